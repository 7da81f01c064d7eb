import { Ajv2020 } from 'ajv/dist/2020.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';

const ajv = new Ajv2020({ allErrors: true, strict: false });
const compiled = new Map<string, ReturnType<typeof ajv.compile>>();

/** The schema file of a shape version, as docs/schemas holds it. */
export function schemaFile(shape: string, version: number): string {
  return join(packageRoot(), 'docs', 'schemas', `${shape}.v${version}.schema.json`);
}

/**
 * Parses a command's stdout as one `--json` document and checks it against its shape's schema file;
 * throws naming every violation. Returns the document.
 */
export function expectShape(stdout: string, shape: string): Record<string, unknown> {
  let document: Record<string, unknown>;
  try {
    document = JSON.parse(stdout) as Record<string, unknown>;
  } catch (error) {
    throw new Error(`stdout is not one JSON document (${(error as Error).message}):\n${stdout.slice(0, 2000)}`);
  }
  if (document.shape !== shape) throw new Error(`expected shape ${shape}, got ${String(document.shape)}`);
  const file = schemaFile(shape, document.version as number);
  let validate = compiled.get(file);
  if (!validate) {
    validate = ajv.compile(JSON.parse(readFileSync(file, 'utf8')) as object);
    compiled.set(file, validate);
  }
  if (!validate(document))
    throw new Error(
      `${shape} v${String(document.version)} does not match ${file}:\n${ajv.errorsText(validate.errors, { separator: '\n' })}\n${JSON.stringify(document, null, 2).slice(0, 2000)}`,
    );
  return document;
}
