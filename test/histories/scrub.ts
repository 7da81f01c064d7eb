// Finds the absolute paths of a machine in a recorded history: every payload (base64 JSON) and every
// plain string (failure messages, stack traces). Histories recorded since places name none (the
// recorder fails on one that does); histories recorded before places were scrubbed, their temporary
// directories, package root and home directories replaced by placeholders (`<tmp>`, `<package>`,
// `<home>`, `<work>`): scrubText and scrubHistory are how (test/histories/pre-places/).
//   npx tsx test/histories/scrub.ts FILE...
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { packageRoot } from '../../src/paths.js';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Absolute paths of a machine: under its temporary directory, the package root, a home or /work — each
 * where a path starts (not inside a relative path such as `kb/work/x` or a token's `<state>/tmp/x`).
 */
export const machinePath = new RegExp(`(?<![\\w.>~-])(${[escape(tmpdir()), '/tmp', '/var/folders/[^/"\\s]+/[^/"\\s]+/T', escape(packageRoot()), '/root', '/home/[^/"\\s]+', '/Users/[^/"\\s]+', '/work'].join('|')})(?=/|"|\\s|$)`, 'g');

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

/** Where a history holds a machine path: the event (ID and type), the field's path in it (a decoded payload marked `(payload)`), and the path found. */
export interface MachinePathFound {
  event: string;
  field: string;
  path: string;
}

/** Every machine path a history still holds, decoded payloads included, with where it is. */
export function machinePathsAt(history: unknown): MachinePathFound[] {
  const found: MachinePathFound[] = [];
  const visit = (value: unknown, event: string, field: string, key?: string): void => {
    if (typeof value === 'string') {
      const payload = key === 'data' && /^[A-Za-z0-9+/]*={0,2}$/.test(value);
      const text = payload ? Buffer.from(value, 'base64').toString('utf8') : value;
      for (const path of text.match(machinePath) ?? []) found.push({ event, field: payload ? `${field} (payload)` : field, path });
    } else if (Array.isArray(value)) value.forEach((item, index) => visit(item, event, `${field}[${index}]`));
    else if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      const here = (typeof record.eventId === 'string' || typeof record.eventId === 'number') && typeof record.eventType === 'string' ? `${record.eventId} ${record.eventType}` : event;
      for (const [name, item] of Object.entries(record)) visit(item, here, here === event ? `${field}.${name}` : name, name);
    }
  };
  visit(history, '-', '');
  return found;
}

/** Every machine path a history still holds, decoded payloads included. */
export function machinePathsIn(history: unknown): string[] {
  return machinePathsAt(history).map((found) => found.path);
}

if (process.argv[1]?.endsWith('scrub.ts')) {
  for (const file of process.argv.slice(2)) {
    const history = JSON.parse(await readFile(file, 'utf8')) as unknown;
    await writeFile(file, `${JSON.stringify(scrubHistory(history), null, 2)}\n`);
    console.log(`scrubbed ${file}`);
  }
}
