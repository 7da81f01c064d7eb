/** A route's accepted verdicts: one file per pair while the route is asked, gathered into the route's verdicts file when it is done. */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../../fs/atomic.js';
import type { LaunchResult } from '../../../harness/launch-contract.js';
import { resultSpend } from '../../../review/result-file.js';
import type { RouteVerdict } from '../../../review/compare/types.js';
import { routeVerdict } from '../../../review/compare/verdict-record.js';
import type { CompareTarget, Outcome } from '../../../review/sweep-types.js';
import { answerFile, answersDir, compareRunDir, verdictsFile } from './run-dir.js';

/** Writes one accepted verdict of a route (atomically: a retried accept writes the same file again). */
export async function writeCompareVerdict(
  checkout: string,
  target: CompareTarget,
  accepted: {
    note: string;
    criterion: string;
    outcome: Outcome;
    body: string;
    launch: LaunchResult;
    hashes: { note: string; criterion: string };
    share: number;
  },
): Promise<void> {
  if (accepted.outcome === 'report') return; // report criteria are never sampled
  const verdict = routeVerdict({
    route: target.route,
    note: accepted.note,
    criterion: accepted.criterion,
    verdict: accepted.outcome,
    review: accepted.body,
    executor: accepted.launch.harness,
    model: accepted.launch.model,
    spend: resultSpend(accepted.launch, accepted.share),
    hashes: accepted.hashes,
  });
  await writeFileAtomic(answerFile(compareRunDir(checkout, target.runId), target.route, accepted.note, accepted.criterion), `${JSON.stringify(verdict)}\n`);
}

/** Writes a route's verdicts file (one RouteVerdict a line, by note and criterion) from its accepted verdicts; returns how many. */
export async function collectVerdicts(input: { checkout: string; runId: string; route: string }): Promise<{ verdicts: number }> {
  const runDir = compareRunDir(input.checkout, input.runId);
  const dir = answersDir(runDir, input.route);
  const files = (await readdir(dir).catch(() => [] as string[])).filter((name) => name.endsWith('.json')).sort();
  const verdicts: RouteVerdict[] = [];
  for (const name of files) verdicts.push(JSON.parse(await readFile(join(dir, name), 'utf8')) as RouteVerdict);
  await writeVerdicts(runDir, input.route, verdicts);
  return { verdicts: verdicts.length };
}

/** A route's verdicts file, written whole and atomically. */
export async function writeVerdicts(runDir: string, route: string, verdicts: RouteVerdict[]): Promise<void> {
  const ordered = [...verdicts].sort((a, b) => (a.note === b.note ? (a.criterion < b.criterion ? -1 : 1) : a.note < b.note ? -1 : 1));
  await writeFileAtomic(verdictsFile(runDir, route), ordered.map((verdict) => `${JSON.stringify(verdict)}\n`).join(''));
}
