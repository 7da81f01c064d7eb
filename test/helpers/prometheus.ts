// The Prometheus text format, read back: one sample per line, `name{label="value",...} value`.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const line = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const pair = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Every sample of a scrape; a line that is neither a comment nor a sample fails the parse. */
export function parsePrometheus(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const raw of text.split('\n')) {
    if (raw.trim() === '' || raw.startsWith('#')) continue;
    const match = line.exec(raw.trim());
    if (!match) throw new Error(`not a Prometheus sample: ${raw}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(pair))
      labels[name as string] = (value as string).replace(/\\(.)/g, (_, escaped: string) => (escaped === 'n' ? '\n' : escaped));
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of a metric's samples whose labels include `where`. */
export function total(samples: Sample[], name: string, where: Record<string, string> = {}): number {
  return samples
    .filter((sample) => sample.name === name && Object.entries(where).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + sample.value, 0);
}

/** Scrapes a metrics endpoint and parses it. */
export async function scrape(url: string): Promise<Sample[]> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return parsePrometheus(await response.text());
}

/** Each metric family's declared type (`# TYPE name counter`), by name. */
export async function scrapeTypes(url: string): Promise<Map<string, string>> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  const types = new Map<string, string>();
  for (const raw of (await response.text()).split('\n')) {
    const match = /^# TYPE (\S+) (\S+)$/.exec(raw.trim());
    if (match) types.set(match[1] as string, match[2] as string);
  }
  return types;
}
