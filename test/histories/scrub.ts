// Finds the absolute paths of a machine in a recorded history: every payload (base64 JSON) and every
// plain string (failure messages, stack traces). Histories recorded since places name none (the
// recorder fails on one that does); histories recorded before places were scrubbed, their temporary
// directories, package root and home directories replaced by placeholders (`<tmp>`, `<package>`,
// `<home>`, `<work>`) when they were recorded (test/histories/pre-places/).
import { tmpdir } from 'node:os';
import { packageRoot } from '../../src/paths.js';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Absolute paths of a machine: under its temporary directory, the package root, a home or /work — each
 * where a path starts (not inside a relative path such as `kb/work/x` or a token's `<state>/tmp/x`).
 */
export const machinePath = new RegExp(`(?<![\\w.>~-])(${[escape(tmpdir()), '/tmp', '/var/folders/[^/"\\s]+/[^/"\\s]+/T', escape(packageRoot()), '/root', '/home/[^/"\\s]+', '/Users/[^/"\\s]+', '/work'].join('|')})(?=/|"|\\s|$)`, 'g');

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
