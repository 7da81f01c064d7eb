// What the stand-in's two dialects (anthropic.ts, openai.ts) build their answers from.

export type Json = Record<string, unknown>;

/** Server-sent events, each named by its type. */
export const sse = (events: Json[]) => events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`).join('');

/** The tools a request offers, by name (a built-in tool without one by its type). */
export function toolNames(body: Json): string[] {
  return Array.isArray(body.tools) ? body.tools.map((tool: Json) => String(tool.name ?? tool.type)) : [];
}

/** Quotes a string for a POSIX shell. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
