/**
 * Types: a note's `type:` names a type spec (itself a note), whose `schema:` names a JSON Schema (draft
 * 2020-12, in YAML) that validates the note's document model. One `TypeRegistry` per validation run
 * reads each type spec and compiles each schema once, however many notes use it.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import YAML, { LineCounter } from 'yaml';
import type { Finding } from './findings.js';
import { lineOf, parseNote, type DocumentModel, type Note } from './notes.js';
import { cached } from './cached.js';
import { indexSchema, schemaFindings, type Cause, type SchemaLocation, type SchemaRef } from './schema-findings.js';
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

interface LoadedSchemaFile {
  readonly id: string;
  readonly file: string;
  readonly problems: Cause[];
  readonly refs: SchemaRef[];
}

type Compiled =
  | { readonly ok: true; readonly validate: ValidateFunction; readonly root: object; readonly rootFile: string }
  | { readonly ok: false; readonly problem: Problem; readonly causes: readonly Cause[] };

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
    return schemaFindings(compiled.validate.errors ?? [], note, compiled, this.locations);
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
    const fail = (rule: string, message: string): TypeResolution => ({ ok: false, problem: { rule, severity: 'fail', path: '/frontmatter/type', message } });
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
    const problem = (rule: string, message: string, line?: number) =>
      problems.push({ in: file, rule, severity: 'fail', message, ...(line !== undefined && { line }) });
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
    indexSchema(root, file, '', { severity: 'fail', ruleDescription: undefined }, id, { locations: this.locations, refs, problems });
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

  private ajvMessage(error: unknown): string {
    const message = (error as Error).message ?? String(error);
    // Name files by repository path rather than file:// URL.
    const rootUrl = pathToFileURL(this.repoRoot).href + '/';
    return message.split(rootUrl).join('');
  }
}

function isNotFound(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
