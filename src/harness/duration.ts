/** Parses an operator-written duration ("90s", "30m", "2h", "1h30m", or plain seconds) so profiles read like the Temporal CLI's flags. */
export function parseDuration(text: string | number): number {
  if (typeof text === 'number') {
    if (!Number.isFinite(text) || text <= 0) throw new Error(`duration must be a positive number of seconds, got ${text}`);
    return Math.round(text * 1000);
  }
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return parseDuration(Number(trimmed));
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  const part = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;
  let total = 0;
  let consumed = 0;
  for (let match = part.exec(trimmed); match; match = part.exec(trimmed)) {
    total += Number(match[1]) * (units[match[2] as string] as number);
    consumed = part.lastIndex;
  }
  if (consumed !== trimmed.length || total <= 0) {
    throw new Error(`"${text}" is not a duration (expected e.g. 90s, 30m, 2h, 1h30m)`);
  }
  return Math.round(total);
}
