// The resolve hook of load-trace.mjs: appends each resolved module URL to the trace file.
import { appendFileSync } from 'node:fs';

let traceFile;

export function initialize(data) {
  traceFile = data?.file;
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (traceFile) appendFileSync(traceFile, `${resolved.url}\n`);
  return resolved;
}
