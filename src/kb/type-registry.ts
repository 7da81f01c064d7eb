/**
 * Types: a note's `type:` names a type spec (itself a note), whose `schema:` names a
 * JSON Schema (draft 2020-12, written in YAML) that validates the note's document
 * model. One `TypeRegistry` per validation run reads each type spec once and
 * compiles each schema once, however many notes use it.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import YAML, { LineCounter } from 'yaml';
import type { Finding, Severity } from './findings.js';
import { escapePointer, lineOf, parseNote, type DocumentModel, type Note } from './notes.js';
import { cached } from './cached.js';
import { resolveKbPath, showValue, toPosix, type PathResolution } from './kb-path.js';

export { resolveKbPath, showValue, type PathResolution };

// ajv-formats is CommonJS whose module.exports is the plugin and also carries `.default`.
const addFormats = addFormatsModule.default;

/** A finding before it is tied to the file it is reported on. */
export type Problem = Omit<Finding, 'file'>;

export interface ResolvedType {
  /** Repository-relative path of the type spec: the type's identity. */
  readonly typePath: string;
  /** Repository-relative path of its schema, or null for a type spec that declares `schema: null`. */
  readonly schemaPath: string | null;
}

export type TypeResolution = { readonly ok: true; readonly type: ResolvedType } | { readonly ok: false; readonly problem: Problem };

export interface RegistryStats {
  readonly typeSpecs: number;
  readonly schemaFiles: number;
  readonly compiled: number;
  /** Milliseconds spent in ajv: checking schemas against the meta-schema and compiling them, summed. */
  readonly compileMs: number;
}

/** Where a subschema is written and the severity and message its findings carry. */
interface SchemaLocation {
  readonly file: string;
  readonly pointer: string;
  readonly severity: Severity;
  /** The `description` of the nearest enclosing subschema that sets `severity`. */
  readonly ruleDescription: string | undefined;
  readonly ownDescription: string | undefined;
}

interface SchemaRef {
  readonly href: string;
  /** Where the reference is written, for messages: `$ref \`./x.yaml\` at kb/types/y.schema.yaml#/allOf/0`. */
  readonly site: string;
}

/** A problem with the schema file it lies in, so a file's own check keeps its lines. */
interface Cause extends Problem {
  readonly in: string;
}

interface LoadedSchemaFile {
  readonly id: string;
  readonly file: string;
  readonly problems: Cause[];
  readonly refs: SchemaRef[];
}

type Compiled =
  | { readonly ok: true; readonly validate: ValidateFunction; readonly root: object; readonly rootFile: string }
  | { readonly ok: false; readonly problem: Problem; readonly causes: readonly Cause[] };

const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'] as const;
const SCHEMA_ARRAYS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const;
const SCHEMA_SINGLES = [
  'not',
  'if',
  'then',
  'else',
  'contains',
  'items',
  'additionalItems',
  'additionalProperties',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contentSchema',
] as const;

/** Reads type specs and compiles their schemas once per run; every note of a run shares one registry. */
export class TypeRegistry {
  readonly repoRoot: string;
  private readonly ajv: Ajv2020;
  private readonly types = new Map<string, Promise<TypeResolution>>();
  private readonly files = new Map<string, Promise<LoadedSchemaFile>>();
  private readonly compiled = new Map<string, Promise<Compiled>>();
  private readonly locations = new Map<object, SchemaLocation>();
  private readonly roots = new Map<string, object>();
  private compileMs = 0;
  private compiledCount = 0;

  constructor(repoRoot: string) {
    this.repoRoot = path.resolve(repoRoot);
    this.ajv = new Ajv2020({
      allErrors: true,
      verbose: true,
      strict: true,
      strictTypes: false,
      strictTuples: false,
      strictRequired: false,
      allowUnionTypes: true,
      logger: false,
    });
    addFormats(this.ajv);
    // `severity` and `description` are this KB's rule annotations: warn lowers a subschema's findings, fail is the default.
    this.ajv.addKeyword({ keyword: 'severity', schemaType: 'string', metaSchema: { enum: ['warn', 'fail'] } });
  }

  /** Resolves a note's `type:` value to its type spec and schema, or to the problem that stops it. */
  resolve(typeValue: unknown, noteFile: string): Promise<TypeResolution> {
    const resolved = resolveKbPath(typeValue, noteFile, this.repoRoot);
    if (!resolved.ok) {
      return Promise.resolve({
        ok: false,
        problem: { line: undefined, rule: 'type-invalid', severity: 'fail', path: '/frontmatter/type', message: `frontmatter \`type\` ${resolved.reason}` },
      });
    }
    return this.loadType(resolved.path, typeof typeValue === 'string' ? typeValue : resolved.path);
  }

  /** Loads a type spec by its repository path (cached), so layouts and notes share one resolution. */
  loadType(typePath: string, written: string = typePath): Promise<TypeResolution> {
    return cached(this.types, typePath, (key) => this.readType(key)).then((resolution) => {
      if (resolution.ok || written === typePath) return resolution;
      return { ok: false, problem: { ...resolution.problem, message: `${resolution.problem.message} (written \`${written}\`)` } };
    });
  }

  /** Validates a document model against its type's schema, returning every finding with its severity. */
  async validateModel(type: ResolvedType, note: Note): Promise<Finding[]> {
    if (type.schemaPath === null) return [];
    const compiled = await this.compileSchema(type.schemaPath);
    if (!compiled.ok) {
      return [
        {
          file: note.file,
          ...compiled.problem,
          line: lineOf(note, '/frontmatter/type'),
          path: '/frontmatter/type',
          message: `type ${type.typePath}: ${compiled.problem.message}`,
        },
      ];
    }
    // The schema sees the type's canonical path, so `const: kb/…` holds whether the note wrote `./…` or `kb/…`.
    const model: DocumentModel = { ...note.model, frontmatter: { ...note.model.frontmatter, type: type.typePath } };
    if (compiled.validate(model)) return [];
    return this.toFindings(compiled.validate.errors ?? [], note, compiled);
  }

  /** Loads a type and compiles its schema, so a caller that depends on one type (a draft's role) can refuse to run without it. */
  async prepare(typePath: string, written: string = typePath): Promise<Problem | undefined> {
    const resolution = await this.loadType(typePath, written);
    if (!resolution.ok) return resolution.problem;
    if (resolution.type.schemaPath === null) return undefined;
    const compiled = await this.compileSchema(resolution.type.schemaPath);
    return compiled.ok ? undefined : { ...compiled.problem, message: `type ${typePath}: ${compiled.problem.message}` };
  }

  /** Loads and compiles one schema file by repository path: the check a `.schema.yaml` file gets on its own. */
  async checkSchemaFile(schemaPath: string): Promise<Problem[]> {
    const compiled = await this.compileSchema(schemaPath);
    if (compiled.ok) return [];
    // Problems in this file keep their lines; problems in files it references are named by where they are.
    return compiled.causes.map(({ in: where, ...cause }) => {
      if (where === schemaPath) return cause;
      const { line: _line, ...rest } = cause;
      return { ...rest, rule: 'schema-unavailable' };
    });
  }

  /** Counts what this run loaded and how long compilation took, for the benchmark. */
  stats(): RegistryStats {
    return { typeSpecs: this.types.size, schemaFiles: this.files.size, compiled: this.compiledCount, compileMs: this.compileMs };
  }

  private async readType(typePath: string): Promise<TypeResolution> {
    const absolute = path.join(this.repoRoot, ...typePath.split('/'));
    const fail = (rule: string, message: string): TypeResolution => ({
      ok: false,
      problem: { rule, severity: 'fail', path: '/frontmatter/type', message },
    });
    let bytes: Uint8Array;
    try {
      const info = await stat(absolute);
      if (!info.isFile()) return fail('type-unresolved', `type ${typePath} is not a file`);
      bytes = await readFile(absolute);
    } catch (error) {
      if (isNotFound(error)) return fail('type-unresolved', `type ${typePath} does not exist`);
      return fail('type-unresolved', `type ${typePath} cannot be read: ${(error as Error).message}`);
    }
    const parsed = parseNote(bytes, typePath);
    if (parsed.kind === 'unreadable') {
      const first = parsed.findings.find((finding) => finding.severity === 'fail');
      return fail('type-spec-invalid', `type spec ${typePath} cannot be read${first?.line ? ` (line ${first.line})` : ''}: ${first?.message ?? 'unreadable'}`);
    }
    if (parsed.kind === 'text') return fail('type-spec-invalid', `type spec ${typePath} has no frontmatter, so it declares no \`schema:\``);
    const frontmatter = parsed.note.model.frontmatter;
    if (!('schema' in frontmatter))
      return fail('type-spec-invalid', `type spec ${typePath} has no \`schema:\` field (write \`schema: null\` for a type without one)`);
    const schema = frontmatter['schema'];
    if (schema === null) return { ok: true, type: { typePath, schemaPath: null } };
    const schemaPath = resolveKbPath(schema, typePath, this.repoRoot);
    if (!schemaPath.ok) return fail('type-spec-invalid', `type spec ${typePath}: \`schema\` ${schemaPath.reason}`);
    return { ok: true, type: { typePath, schemaPath: schemaPath.path } };
  }

  private compileSchema(schemaPath: string): Promise<Compiled> {
    return cached(this.compiled, schemaPath, (key) => this.doCompile(key));
  }

  private async doCompile(schemaPath: string): Promise<Compiled> {
    const absolute = path.join(this.repoRoot, ...schemaPath.split('/'));
    const id = pathToFileURL(absolute).href;
    const unavailable = (message: string, causes: readonly Cause[]): Compiled => ({
      ok: false,
      problem: { rule: 'schema-unavailable', severity: 'fail', message },
      causes,
    });
    // Load the schema and every file it references, breadth-first, before compiling.
    const causes: Cause[] = [];
    const seen = new Set<string>();
    const queue: { href: string; via: string | undefined }[] = [{ href: id, via: undefined }];
    while (queue.length > 0) {
      const next = queue.shift() as { href: string; via: string | undefined };
      if (seen.has(next.href)) continue;
      seen.add(next.href);
      const loaded = await this.loadSchemaFile(next.href);
      for (const cause of loaded.problems) {
        causes.push(next.via === undefined ? cause : { ...cause, message: `${next.via}: ${cause.message}` });
      }
      for (const ref of loaded.refs) queue.push({ href: ref.href, via: ref.site });
    }
    if (causes.length > 0) {
      const first = causes[0] as Cause;
      const more = causes.length > 1 ? ` (and ${causes.length - 1} more)` : '';
      return unavailable(`schema ${schemaPath} is unavailable: ${first.message}${more}`, causes);
    }
    const root = this.roots.get(id) as object;
    const started = performance.now();
    try {
      const validate = this.ajv.getSchema(id);
      if (validate === undefined) return unavailable(`schema ${schemaPath} did not register with the validator`, []);
      this.compiledCount += 1;
      return { ok: true, validate, root, rootFile: schemaPath };
    } catch (error) {
      const message = `schema ${schemaPath} does not compile: ${this.ajvMessage(error)}`;
      return unavailable(message, [{ in: schemaPath, rule: 'schema-invalid', severity: 'fail', message }]);
    } finally {
      this.compileMs += performance.now() - started;
    }
  }

  private loadSchemaFile(id: string): Promise<LoadedSchemaFile> {
    return cached(this.files, id, (key) => this.doLoadSchemaFile(key));
  }

  private async doLoadSchemaFile(id: string): Promise<LoadedSchemaFile> {
    const absolute = fileURLToPath(id);
    const file = toPosix(path.relative(this.repoRoot, absolute));
    const problems: Cause[] = [];
    const problem = (rule: string, message: string, line?: number): void => {
      problems.push(line === undefined ? { in: file, rule, severity: 'fail', message } : { in: file, rule, severity: 'fail', message, line });
    };
    const result = (refs: SchemaRef[] = []): LoadedSchemaFile => ({ id, file, problems, refs });
    if (file === '..' || file.startsWith('../') || path.isAbsolute(file)) {
      problem('schema-unavailable', `${file} is outside the repository`);
      return result();
    }
    let source: string;
    try {
      source = await readFile(absolute, 'utf8');
    } catch (error) {
      problem('schema-unavailable', isNotFound(error) ? `${file} does not exist` : `${file} cannot be read: ${(error as Error).message}`);
      return result();
    }
    const lineCounter = new LineCounter();
    const doc = YAML.parseDocument(source, { lineCounter, prettyErrors: false, uniqueKeys: true });
    if (doc.errors.length > 0) {
      for (const error of doc.errors) {
        const line = lineCounter.linePos(error.pos[0]).line;
        problem('schema-yaml', `${file} line ${line}: malformed YAML: ${error.message.split('\n')[0] ?? ''}`, line);
      }
      return result();
    }
    let schema: unknown;
    try {
      schema = doc.toJS({ maxAliasCount: 100 });
    } catch (error) {
      problem('schema-yaml', `${file}: malformed YAML: ${(error as Error).message}`);
      return result();
    }
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
      problem('schema-invalid', `${file} must hold a JSON Schema object, found ${showValue(schema)}`);
      return result();
    }
    // The file is the schema's identity, so `$ref`s resolve relative to it.
    const root = { ...(schema as Record<string, unknown>), $id: id };
    const refs: SchemaRef[] = [];
    this.index(root, file, '', { severity: 'fail', ruleDescription: undefined }, id, refs, problems);
    if (problems.length > 0) return result();
    // Adding checks the schema against the 2020-12 meta-schema: part of compilation's cost, so timed with it.
    const started = performance.now();
    try {
      this.ajv.addSchema(root, id);
      this.roots.set(id, root);
    } catch (error) {
      problem('schema-invalid', `${file} is not a valid JSON Schema: ${this.ajvMessage(error)}`);
    } finally {
      this.compileMs += performance.now() - started;
    }
    return result(refs);
  }

  /** Walks a schema's subschemas, recording where each is written and what severity it carries, and collecting file `$ref`s. */
  private index(
    schema: unknown,
    file: string,
    pointer: string,
    inherited: { severity: Severity; ruleDescription: string | undefined },
    base: string,
    refs: SchemaRef[],
    problems: Cause[],
  ): void {
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return;
    const node = schema as Record<string, unknown>;
    let scope = inherited;
    const severity = node['severity'];
    const description = typeof node['description'] === 'string' ? node['description'] : undefined;
    if (severity === 'warn' || severity === 'fail') scope = { severity, ruleDescription: description };
    this.locations.set(node, { file, pointer, severity: scope.severity, ruleDescription: scope.ruleDescription, ownDescription: description });

    let here = base;
    if (pointer !== '' && typeof node['$id'] === 'string') {
      try {
        here = new URL(node['$id'], base).href;
      } catch {
        // ajv reports an unusable $id when it compiles.
      }
    }
    for (const keyword of ['$ref', '$dynamicRef'] as const) {
      const ref = node[keyword];
      if (typeof ref !== 'string' || ref.startsWith('#')) continue;
      let target: URL;
      try {
        target = new URL(ref, here);
      } catch {
        problems.push({ in: file, rule: 'schema-ref', severity: 'fail', message: `${file}#${pointer}: ${keyword} \`${ref}\` is not a valid reference` });
        continue;
      }
      target.hash = '';
      if (target.protocol !== 'file:') {
        problems.push({
          in: file,
          rule: 'schema-ref',
          severity: 'fail',
          message: `${file}#${pointer}: ${keyword} \`${ref}\` is remote; only files in the repository can be referenced`,
        });
        continue;
      }
      refs.push({ href: target.href, site: `${keyword} \`${ref}\` at ${file}#${pointer}` });
    }
    for (const keyword of SCHEMA_MAPS) {
      const map = node[keyword];
      if (map !== null && typeof map === 'object' && !Array.isArray(map)) {
        for (const [name, child] of Object.entries(map)) this.index(child, file, `${pointer}/${keyword}/${escapePointer(name)}`, scope, here, refs, problems);
      }
    }
    for (const keyword of SCHEMA_ARRAYS) {
      const list = node[keyword];
      if (Array.isArray(list)) list.forEach((child, index) => this.index(child, file, `${pointer}/${keyword}/${index}`, scope, here, refs, problems));
    }
    for (const keyword of SCHEMA_SINGLES) {
      const child = node[keyword];
      if (Array.isArray(child)) child.forEach((item, index) => this.index(item, file, `${pointer}/${keyword}/${index}`, scope, here, refs, problems));
      else this.index(child, file, `${pointer}/${keyword}`, scope, here, refs, problems);
    }
  }

  private ajvMessage(error: unknown): string {
    const message = (error as Error).message ?? String(error);
    // Name files by repository path rather than file:// URL.
    const rootUrl = pathToFileURL(this.repoRoot).href + '/';
    return message.split(rootUrl).join('');
  }

  private toFindings(errors: readonly ErrorObject[], note: Note, compiled: Extract<Compiled, { ok: true }>): Finding[] {
    // `if` only says "then failed", whose own errors follow. The errors of anyOf/oneOf branches and of each item a
    // `contains` tried are noise once the aggregate is reported: they fail by design.
    const aggregates = errors.filter((error) => error.keyword === 'anyOf' || error.keyword === 'oneOf' || error.keyword === 'contains');
    const findings: Finding[] = [];
    for (const error of errors) {
      if (error.keyword === 'if') continue;
      if (
        aggregates.some(
          (aggregate) =>
            aggregate !== error && error.schemaPath.startsWith(`${aggregate.schemaPath}/`) && error.instancePath.startsWith(aggregate.instancePath),
        )
      )
        continue;
      const location = this.locate(error, compiled);
      let pointer = error.instancePath;
      const params = error.params as Record<string, unknown>;
      if ((error.keyword === 'required' || error.keyword === 'dependentRequired') && typeof params['missingProperty'] === 'string') {
        pointer += `/${escapePointer(params['missingProperty'])}`;
      } else if (error.keyword === 'additionalProperties' && typeof params['additionalProperty'] === 'string') {
        pointer += `/${escapePointer(params['additionalProperty'])}`;
      }
      const detail = explain(error, pointer);
      const message = location?.ownDescription ?? location?.ruleDescription ?? detail;
      findings.push({
        file: note.file,
        line: lineOf(note, pointer),
        rule: `schema/${error.keyword}`,
        keyword: error.keyword,
        path: pointer,
        message: message === detail ? detail : `${message} (${detail})`,
        severity: location?.severity ?? 'fail',
        schema: location ? `${location.file}#${location.pointer}/${error.keyword}` : `${compiled.rootFile}${error.schemaPath}`,
      });
    }
    return findings;
  }

  /** Finds where the failing keyword is written: by the identity of its subschema, or (for boolean subschemas) by walking the schema path. */
  private locate(error: ErrorObject, compiled: Extract<Compiled, { ok: true }>): SchemaLocation | undefined {
    const parent = error.parentSchema;
    if (parent !== null && typeof parent === 'object') {
      const found = this.locations.get(parent);
      if (found) return found;
    }
    if (!error.schemaPath.startsWith('#/')) return undefined;
    // A boolean subschema (`status: false`): walk the path from the root and keep the deepest located object.
    const segments = error.schemaPath
      .slice(2)
      .split('/')
      .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
    let node: unknown = compiled.root;
    let deepest = this.locations.get(compiled.root);
    for (const segment of segments) {
      if (node === null || typeof node !== 'object') break;
      node = (node as Record<string, unknown>)[segment];
      if (node !== null && typeof node === 'object') deepest = this.locations.get(node) ?? deepest;
    }
    if (deepest && error.keyword === 'false schema') {
      const pointer = error.schemaPath.slice(1).replace(/\/false schema$/, '');
      return { ...deepest, pointer, ownDescription: undefined };
    }
    return deepest;
  }
}

/** ajv's message, made specific: the field, the allowed value, what was found. */
function explain(error: ErrorObject, pointer: string): string {
  const params = error.params as Record<string, unknown>;
  const field = fieldName(pointer);
  switch (error.keyword) {
    case 'required':
    case 'dependentRequired':
      return `${field} is required`;
    case 'false schema':
      return `${field} is not allowed`;
    case 'additionalProperties':
      return `${field} is not allowed (no other fields are)`;
    case 'const':
      return `${field} must be ${showValue(params['allowedValue'])}, found ${showValue(error.data)}`;
    case 'enum':
      return `${field} must be one of ${(params['allowedValues'] as unknown[]).map(showValue).join(', ')}, found ${showValue(error.data)}`;
    case 'type':
      return `${field} must be ${String(params['type'])}, found ${jsonType(error.data)}`;
    case 'format':
      return `${field} must be a valid ${String(params['format'])}, found ${showValue(error.data)}`;
    case 'minLength':
    case 'maxLength': {
      const length = typeof error.data === 'string' ? [...error.data].length : 0;
      const limit = Number(params['limit']);
      return `${field} has ${plural(length, 'character')}, ${error.keyword === 'minLength' ? 'fewer' : 'more'} than ${limit}`;
    }
    case 'minItems':
    case 'maxItems': {
      const count = Array.isArray(error.data) ? error.data.length : 0;
      return `${field} has ${plural(count, 'item')}, ${error.keyword === 'minItems' ? 'fewer' : 'more'} than ${Number(params['limit'])}`;
    }
    case 'contains': {
      const contains = (error.parentSchema as Record<string, unknown> | undefined)?.['contains'];
      if (contains !== null && typeof contains === 'object' && 'const' in contains) {
        return `${field} must include ${showValue((contains as Record<string, unknown>)['const'])}`;
      }
      return `${field} ${error.message ?? 'must contain a matching item'}`;
    }
    default:
      return `${field} ${error.message ?? `fails ${error.keyword}`}`;
  }
}

function fieldName(pointer: string): string {
  if (pointer === '') return 'the document';
  const segments = pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (segments[0] === 'frontmatter') {
    return segments.length === 1 ? 'the frontmatter' : `frontmatter \`${segments.slice(1).join('.')}\``;
  }
  return `\`${segments.join('.')}\``;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (Number.isInteger(value)) return 'integer';
  return typeof value;
}

function isNotFound(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
