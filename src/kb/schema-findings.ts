/** Where each subschema of a type's schema is written and which severity it carries, and ajv's errors as findings located there. */
import type { ErrorObject } from 'ajv';
import type { Finding, Severity } from './findings.js';
import { escapePointer, lineOf, type Note } from './notes.js';
import { showValue } from './kb-path.js';

/** Where a subschema is written and the severity and message its findings carry. */
export interface SchemaLocation {
  readonly file: string;
  readonly pointer: string;
  readonly severity: Severity;
  /** The `description` of the nearest enclosing subschema that sets `severity`. */
  readonly ruleDescription: string | undefined;
  readonly ownDescription: string | undefined;
}

export interface SchemaRef {
  readonly href: string;
  /** Where the reference is written, for messages: `$ref \`./x.yaml\` at kb/types/y.schema.yaml#/allOf/0`. */
  readonly site: string;
}

/** A problem with the schema file it lies in, so a file's own check keeps its lines. */
export type Cause = Omit<Finding, 'file'> & { readonly in: string };

const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SCHEMA_ARRAYS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_SINGLES =
  'not if then else contains items additionalItems additionalProperties propertyNames unevaluatedProperties unevaluatedItems contentSchema'.split(' ');

const segmentsOf = (pointer: string) => pointer.split('/').map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));

/** What the walk of one schema file fills in: where its subschemas are written, the files it references, its problems. */
export interface SchemaIndex {
  readonly locations: Map<object, SchemaLocation>;
  readonly refs: SchemaRef[];
  readonly problems: Cause[];
}

/** Walks a schema's subschemas, recording where each is written and what severity it carries, and collecting file `$ref`s. */
export function indexSchema(
  schema: unknown,
  file: string,
  pointer: string,
  inherited: { severity: Severity; ruleDescription: string | undefined },
  base: string,
  into: SchemaIndex,
): void {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return;
  const node = schema as Record<string, unknown>;
  let scope = inherited;
  const severity = node['severity'];
  const description = typeof node['description'] === 'string' ? node['description'] : undefined;
  if (severity === 'warn' || severity === 'fail') scope = { severity, ruleDescription: description };
  into.locations.set(node, { file, pointer, severity: scope.severity, ruleDescription: scope.ruleDescription, ownDescription: description });

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
    const refProblem = (why: string) =>
      into.problems.push({ in: file, rule: 'schema-ref', severity: 'fail', message: `${file}#${pointer}: ${keyword} \`${ref}\` ${why}` });
    let target: URL;
    try {
      target = new URL(ref, here);
    } catch {
      refProblem('is not a valid reference');
      continue;
    }
    target.hash = '';
    if (target.protocol !== 'file:') refProblem('is remote; only files in the repository can be referenced');
    else into.refs.push({ href: target.href, site: `${keyword} \`${ref}\` at ${file}#${pointer}` });
  }
  const walk = (child: unknown, at: string) => indexSchema(child, file, `${pointer}/${at}`, scope, here, into);
  for (const keyword of SCHEMA_MAPS) {
    const map = node[keyword];
    if (map !== null && typeof map === 'object' && !Array.isArray(map)) {
      for (const [name, child] of Object.entries(map)) walk(child, `${keyword}/${escapePointer(name)}`);
    }
  }
  for (const keyword of SCHEMA_ARRAYS) {
    const list = node[keyword];
    if (Array.isArray(list)) list.forEach((child, index) => walk(child, `${keyword}/${index}`));
  }
  for (const keyword of SCHEMA_SINGLES) {
    const child = node[keyword];
    if (Array.isArray(child)) child.forEach((item, index) => walk(item, `${keyword}/${index}`));
    else walk(child, keyword);
  }
}

/** A compiled schema's root object and file, where a boolean subschema's error is located from. */
export interface SchemaRoot {
  readonly root: object;
  readonly rootFile: string;
}

/** ajv's errors for one note as findings, each at the note's line and the schema place that set its severity and message. */
export function schemaFindings(errors: readonly ErrorObject[], note: Note, compiled: SchemaRoot, locations: Map<object, SchemaLocation>): Finding[] {
  // `if` only says "then failed", whose own errors follow. The errors of anyOf/oneOf branches and of each item a
  // `contains` tried are noise once the aggregate is reported: they fail by design.
  const aggregates = errors.filter((error) => error.keyword === 'anyOf' || error.keyword === 'oneOf' || error.keyword === 'contains');
  const findings: Finding[] = [];
  for (const error of errors) {
    const within = (aggregate: ErrorObject) =>
      aggregate !== error && error.schemaPath.startsWith(`${aggregate.schemaPath}/`) && error.instancePath.startsWith(aggregate.instancePath);
    if (error.keyword === 'if' || aggregates.some(within)) continue;
    const location = locate(error, compiled, locations);
    const params = error.params as Record<string, unknown>;
    const field = error.keyword === 'additionalProperties' ? params['additionalProperty'] : params['missingProperty'];
    const named = typeof field === 'string' && ['required', 'dependentRequired', 'additionalProperties'].includes(error.keyword);
    const pointer = named ? `${error.instancePath}/${escapePointer(field)}` : error.instancePath;
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
function locate(error: ErrorObject, compiled: SchemaRoot, locations: Map<object, SchemaLocation>): SchemaLocation | undefined {
  const parent = error.parentSchema;
  if (parent !== null && typeof parent === 'object') {
    const found = locations.get(parent);
    if (found) return found;
  }
  if (!error.schemaPath.startsWith('#/')) return undefined;
  // A boolean subschema (`status: false`): walk the path from the root and keep the deepest located object.
  const segments = segmentsOf(error.schemaPath.slice(2));
  let node: unknown = compiled.root;
  let deepest = locations.get(compiled.root);
  for (const segment of segments) {
    if (node === null || typeof node !== 'object') break;
    node = (node as Record<string, unknown>)[segment];
    if (node !== null && typeof node === 'object') deepest = locations.get(node) ?? deepest;
  }
  if (deepest && error.keyword === 'false schema') {
    const pointer = error.schemaPath.slice(1).replace(/\/false schema$/, '');
    return { ...deepest, pointer, ownDescription: undefined };
  }
  return deepest;
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
  const segments = segmentsOf(pointer.slice(1));
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
