export type JsonObject = Record<string, unknown>;

export const isJsonObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
export const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
export const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function parseObject(text: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The index just past the JSON object that opens at `start`, scanning strings and escapes; -1 when it does not close. */
function objectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{') depth++;
    else if (char === '}' && --depth === 0) return index + 1;
  }
  return -1;
}

/** An object that is an event of its own, not a part of one (a content block also has a `type`). */
const isEvent = (object: JsonObject): boolean => object.type === 'rate_limit_event' || typeof object.session_id === 'string';

/** Some claude versions write one event (a `rate_limit_event`) into the middle of another's line: each stands on its own, and the rest may be the outer event. */
function cutEmbedded(line: string): { embedded: JsonObject[]; rest: string } {
  const embedded: JsonObject[] = [];
  let rest = line;
  let from = 1;
  for (;;) {
    const start = rest.indexOf('{"type":', from);
    if (start < 0) break;
    const end = objectEnd(rest, start);
    const object = end < 0 ? undefined : parseObject(rest.slice(start, end));
    if (!object || !isEvent(object)) {
      from = start + 1;
      continue;
    }
    embedded.push(object);
    rest = rest.slice(0, start) + rest.slice(end);
    from = Math.max(1, start);
  }
  return { embedded, rest };
}

/** Banners and warnings are skipped; an event written into another's line is recovered with the line it broke, even across a newline. */
export class JsonLineReader {
  private buffer = '';
  private broken: string | undefined;

  push(chunk: string): JsonObject[] {
    this.buffer += chunk;
    const events: JsonObject[] = [];
    let newline = this.buffer.indexOf('\n');
    while (newline >= 0) {
      events.push(...this.line(this.buffer.slice(0, newline)));
      this.buffer = this.buffer.slice(newline + 1);
      newline = this.buffer.indexOf('\n');
    }
    return events;
  }

  /** Ends the stream: a last line without a newline still counts. */
  end(): JsonObject[] {
    const rest = this.buffer;
    this.buffer = '';
    return rest.trim() ? this.line(rest) : [];
  }

  private line(raw: string): JsonObject[] {
    const line = raw.trim();
    if (!line) return [];
    const broken = this.broken;
    this.broken = undefined;
    if (broken !== undefined) {
      const joined = parseObject(broken + line);
      if (joined) return [joined];
    }
    if (!line.includes('{')) return [];
    const whole = parseObject(line);
    if (whole) return [whole];
    const { embedded, rest } = cutEmbedded(line);
    const outer = rest.trim() ? parseObject(rest.trim()) : undefined;
    if (outer) return [...embedded, outer];
    // The outer line may go on after the next newline; keep its start once, to join with the next line.
    if (embedded.length > 0 && rest.trim().startsWith('{')) this.broken = rest.trim();
    return embedded;
  }
}

export function parseJsonLines(text: string): JsonObject[] {
  const reader = new JsonLineReader();
  return [...reader.push(text), ...reader.end()];
}
