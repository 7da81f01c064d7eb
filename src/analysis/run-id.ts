/** `AAS-<YYYY-MM-DD>-<system-slug>-<nn>`, numbered per checkout (so the workflow ID also names the checkout). PURE MODULE. */

export const RUN_ID = /^AAS-(\d{4}-\d{2}-\d{2})-([a-z0-9]+(?:-[a-z0-9]+)*)-(\d{2,})$/;

export function systemSlug(system: string): string {
  return system
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** Local time: the operator's calendar date. */
export function runDate(now: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

export function formatRunId(date: string, slug: string, sequence: number): string {
  return `AAS-${date}-${slug}-${String(sequence).padStart(2, '0')}`;
}

export function parseRunId(runId: string): { date: string; slug: string; sequence: number } | undefined {
  const match = RUN_ID.exec(runId);
  if (!match) return undefined;
  return { date: match[1] ?? '', slug: match[2] ?? '', sequence: Number(match[3]) };
}

/** `existing`: the run IDs of branches and worktrees. */
export function nextRunId(date: string, slug: string, existing: Iterable<string>): string {
  let highest = 0;
  for (const id of existing) {
    const parsed = parseRunId(id);
    if (parsed && parsed.date === date && parsed.slug === slug) highest = Math.max(highest, parsed.sequence);
  }
  return formatRunId(date, slug, highest + 1);
}

export const runBranch = (runId: string) => `analysis/${runId}`;
