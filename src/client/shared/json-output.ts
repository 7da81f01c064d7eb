/**
 * Output a script can read: every `--json` document is one JSON object on stdout whose first two
 * keys name its shape and the shape's version. Each shape has a JSON Schema file,
 * `docs/schemas/<shape>.v<version>.schema.json`, which tests check real output against; a change
 * that breaks a shape gets a new version and a new file.
 */
import { hostPaths } from './render-paths.js';

/** The document for a shape version: its name and version first, then the body. */
export function jsonDocument(shape: string, version: number, body: object): Record<string, unknown> {
  return { shape, version, ...body };
}

/** Prints one JSON document on stdout; paths a run carries as tokens of a checkout this command named print as its paths here. */
export function printJson(shape: string, version: number, body: object): void {
  process.stdout.write(
    `${JSON.stringify(jsonDocument(shape, version, body), (_key, value: unknown) => (typeof value === 'string' ? hostPaths(value) : value), 2)}\n`,
  );
}
