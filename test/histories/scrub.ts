// Scrubs the absolute paths of the machine that recorded a history: every payload (base64 JSON)
// and every plain string (failure messages, stack traces) has its temporary directories, the
// package root and home directories replaced by placeholders, so a committed history names no
// path of any one machine. Replay reads inputs and results from the history as they are, so
// consistent placeholders replay the same.
//   npx tsx test/histories/scrub.ts test/histories/*.json
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { packageRoot } from '../../src/paths.js';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Absolute paths of a machine: under its temporary directory, the package root, a home or /work. */
export const machinePath = new RegExp(`(${[escape(tmpdir()), '/tmp', '/var/folders/[^/"\\s]+/[^/"\\s]+/T', escape(packageRoot()), '/root', '/home/[^/"\\s]+', '/Users/[^/"\\s]+', '/work'].join('|')})(?=/|"|\\s|$)`, 'g');

/** Replaces machine paths in a text with placeholders (`<tmp>`, `<package>`, `<home>`). */
export function scrubText(text: string): string {
  return text.replace(machinePath, (found) => {
    if (found === packageRoot()) return '<package>';
    if (found === tmpdir() || found === '/tmp' || found.startsWith('/var/folders/')) return '<tmp>';
    if (found === '/work') return '<work>';
    return '<home>';
  });
}

/** The history with every payload and string scrubbed. */
export function scrubHistory(history: unknown): unknown {
  if (typeof history === 'string') return scrubText(history);
  if (Array.isArray(history)) return history.map(scrubHistory);
  if (history !== null && typeof history === 'object') {
    const entries = Object.entries(history as Record<string, unknown>).map(([key, value]) => {
      if (key === 'data' && typeof value === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(value) && value.length % 4 === 0) {
        const decoded = Buffer.from(value, 'base64').toString('utf8');
        if (Buffer.from(decoded, 'utf8').toString('base64') === value) return [key, Buffer.from(scrubText(decoded), 'utf8').toString('base64')];
      }
      return [key, scrubHistory(value)];
    });
    return Object.fromEntries(entries);
  }
  return history;
}

/** Every machine path a history still holds, decoded payloads included. */
export function machinePathsIn(history: unknown): string[] {
  const found: string[] = [];
  const visit = (value: unknown, key?: string): void => {
    if (typeof value === 'string') {
      const text = key === 'data' && /^[A-Za-z0-9+/]*={0,2}$/.test(value) ? Buffer.from(value, 'base64').toString('utf8') : value;
      found.push(...(text.match(machinePath) ?? []));
    } else if (Array.isArray(value)) value.forEach((item) => visit(item));
    else if (value !== null && typeof value === 'object') for (const [name, item] of Object.entries(value)) visit(item, name);
  };
  visit(history);
  return found;
}

if (process.argv[1]?.endsWith('scrub.ts')) {
  for (const file of process.argv.slice(2)) {
    const history = JSON.parse(await readFile(file, 'utf8')) as unknown;
    await writeFile(file, `${JSON.stringify(scrubHistory(history), null, 2)}\n`);
    console.log(`scrubbed ${file}`);
  }
}
