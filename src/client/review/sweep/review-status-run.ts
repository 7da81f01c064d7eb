/** The action of `review status`: freshness from the files alone, as text or the `review-status` JSON shape. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { findCheckout } from '../../../checkout/index.js';
import { KbError } from '../../../kb/errors.js';
import type { Finding } from '../../../kb/findings.js';
import { commandSelections } from '../../../review/criteria.js';
import { ReviewError } from '../../../review/errors.js';
import { RESULTS_DIR } from '../../../review/paths.js';
import { STATUS_CACHE_FILE } from '../../../review/status-cache.js';
import { pruneOrphans, type PruneReport } from '../../../review/prune.js';
import { reviewStatus, type Orphan, type PairStatus, type ReviewStatus, type StrayFile } from '../../../review/status.js';
import { UserError } from '../../shared/errors.js';
import { printJson } from '../../shared/json-output.js';

export interface StatusOptions {
  notes?: string[];
  gates?: string[];
  criteria?: string;
  stale?: boolean;
  orphans?: boolean;
  json?: boolean;
  pruneOrphans?: boolean;
  kb?: string;
}

/** `review status`: every failure is bad input (exit 1) — a pattern that matches nothing, no checkout. */
export async function runReviewStatus(options: StatusOptions): Promise<void> {
  try {
    await runStatus(options);
  } catch (error) {
    if (error instanceof KbError || error instanceof ReviewError) throw new UserError(error.message);
    throw error;
  }
}

async function runStatus(options: StatusOptions): Promise<void> {
  const checkout = findCheckout(process.cwd(), options.kb);
  const kinds = commandSelections(options.criteria, (options.gates ?? []).length > 0);
  if (!kinds.ok) throw new UserError(kinds.message);
  // The status cache is machine-local state: the run that is about to make it makes Git ignore it first.
  if (!existsSync(path.join(checkout.root, ...STATUS_CACHE_FILE.split('/')))) await ignoreState(checkout.root);
  const status = await reviewStatus(checkout.root, { notes: options.notes ?? [], gates: options.gates ?? [], criteria: kinds.kinds, cache: true });
  const listOrphans = options.orphans === true || options.pruneOrphans === true;
  // Listed before anything is deleted, so the listing is the record of what went.
  let pruned: PruneReport | undefined;
  if (options.pruneOrphans === true) pruned = await pruneOrphans(checkout.root, status.orphans);
  if (options.json === true) {
    printJson('review-status', 1, statusJson(status, { stale: options.stale === true, orphans: listOrphans, pruned }));
  } else {
    process.stdout.write(formatStatus(status, { stale: options.stale === true, orphans: listOrphans, pruned }));
  }
  process.exitCode = 0;
}

/** Makes Git ignore the checkout's machine-local state (as any command that works on it does), said once on stderr; loaded only when needed (it runs Git). */
async function ignoreState(root: string): Promise<void> {
  const { ignoreMachineLocal } = await import('../../../kb/machine-local.js');
  const ignored = await ignoreMachineLocal(root);
  if (ignored && ignored.added.length > 0) {
    const file = path.relative(root, ignored.file) || ignored.file;
    process.stderr.write(`added ${ignored.added.join(' ')} to ${file}: machine-local run state and review results, never committed\n`);
  }
}

interface Listing {
  readonly stale: boolean;
  readonly orphans: boolean;
  readonly pruned: PruneReport | undefined;
}

/** The human report: counts first, then the lists asked for, then problems. */
export function formatStatus(status: ReviewStatus, listing: Listing): string {
  const { counts } = status;
  const out: string[] = [];
  const width = String(Math.max(counts.pairs, counts.orphans, counts.strays, counts.outside)).length;
  const row = (label: string, value: number, detail = ''): string => `${label.padEnd(11)}${String(value).padStart(width)}${detail === '' ? '' : `  ${detail}`}`;
  out.push(`review status of ${status.checkoutRoot} (results in ${RESULTS_DIR}/)`);
  const kinds = counts.byKind;
  const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;
  out.push(
    row(
      'pairs',
      counts.pairs,
      `${counts.notes} notes × ${counts.gates} gates, ${plural(kinds.type.criteria, 'type spec', 'type specs')}, ${plural(kinds.collection.criteria, 'collection', 'collections')}, where the criterion applies`,
    ),
  );
  out.push(row('  fresh', counts.fresh));
  out.push(
    row(
      '  stale',
      counts.stale,
      counts.stale === 0 ? '' : `note changed ${counts.staleNote}, criterion changed ${counts.staleCriterion}, both ${counts.staleBoth}`,
    ),
  );
  out.push(row('  missing', counts.missing));
  out.push(row('  malformed', counts.malformed));
  out.push(`${'  by kind'.padEnd(11)}${' '.repeat(width + 2)}${kindBreakdown(counts)}`);
  out.push(row('orphans', counts.orphans, orphanBreakdown(status.orphans)));
  if (counts.strays > 0) out.push(row('strays', counts.strays, 'files in the results tree that are not readable results (--orphans lists them)'));
  if (counts.outside > 0) out.push(row('other', counts.outside, 'valid results outside this selection (other criteria, or not matched by --notes/--gates)'));

  if (listing.stale) {
    const open = status.pairs.filter((pair) => pair.status !== 'fresh');
    out.push('', open.length === 0 ? 'every pair is fresh' : `not fresh (${open.length}):`);
    for (const pair of open) {
      out.push(`  ${pairLabel(pair).padEnd(19)} ${pair.note}  ${pair.criterion}${pair.kind === 'gate' ? '' : ` (${pair.kind})`}`);
      for (const finding of pair.findings ?? []) out.push(`      ${findingLine(finding)}`);
    }
  }
  if (listing.orphans) {
    out.push('', status.orphans.length === 0 ? 'no orphaned results' : `orphaned results (${status.orphans.length}):`);
    for (const orphan of status.orphans) out.push(`  ${orphanLabel(orphan).padEnd(16)} ${orphan.resultPath}`, `      ${orphan.detail}`);
    if (status.strays.length > 0) {
      out.push('', `stray files in the results tree (${status.strays.length}; never pruned, look at them):`);
      for (const stray of status.strays) {
        out.push(`  ${stray.path}`);
        for (const finding of stray.findings) out.push(`      ${findingLine(finding)}`);
      }
    }
  }
  if (listing.pruned !== undefined) {
    const { deleted, kept, removedDirs } = listing.pruned;
    out.push('');
    for (const file of deleted) out.push(`deleted ${file}`);
    for (const file of kept) out.push(`kept ${file.path}: ${file.reason}`);
    out.push(
      `pruned ${deleted.length} orphaned result${deleted.length === 1 ? '' : 's'}, removed ${removedDirs.length} empty director${removedDirs.length === 1 ? 'y' : 'ies'}${kept.length === 0 ? '' : `, kept ${kept.length}`}`,
    );
  }
  if (status.problems.length > 0) {
    out.push('', `problems (${status.problems.length}):`);
    for (const problem of status.problems)
      out.push(`  ${problem.file}${problem.line === undefined ? '' : `:${problem.line}`}  ${problem.severity}  ${problem.message}`);
  }
  return `${out.join('\n')}\n`;
}

/** The machine report: the same counts, and the lists the flags ask for. */
export function statusJson(status: ReviewStatus, listing: Listing): Record<string, unknown> {
  const json: Record<string, unknown> = { checkout: status.checkoutRoot, resultsDir: RESULTS_DIR, counts: status.counts, problems: status.problems };
  if (listing.stale) json['pairs'] = status.pairs.filter((pair) => pair.status !== 'fresh').map(pairJson);
  if (listing.orphans) {
    json['orphans'] = status.orphans.map(({ fileSha256: _digest, ...orphan }) => orphan);
    json['strays'] = status.strays.map((stray: StrayFile) => stray);
  }
  if (listing.pruned !== undefined) json['pruned'] = listing.pruned;
  return json;
}

function pairJson(pair: PairStatus): Record<string, unknown> {
  return {
    note: pair.note,
    criterion: pair.criterion,
    kind: pair.kind,
    status: pair.status,
    ...(pair.staleBecause === undefined ? {} : { staleBecause: pair.staleBecause }),
    resultPath: pair.resultPath,
    criterionPath: pair.criterionPath,
    lens: pair.lens ?? null,
    watches: pair.watches,
    noteSha256: pair.noteSha256,
    criterionSha256: pair.criterionSha256,
    ...(pair.result === undefined ? {} : { result: pair.result }),
    ...(pair.findings === undefined ? {} : { findings: pair.findings }),
  };
}

/** `gate 11 (fresh 6, stale 4, missing 1); type 2 (missing 2); collection 0`: the states each kind has. */
function kindBreakdown(counts: ReviewStatus['counts']): string {
  return (['gate', 'type', 'collection'] as const)
    .map((kind) => {
      const of = counts.byKind[kind];
      const states = (['fresh', 'stale', 'missing', 'malformed'] as const).filter((state) => of[state] > 0).map((state) => `${state} ${of[state]}`);
      return `${kind} ${of.pairs}${states.length === 0 ? '' : ` (${states.join(', ')})`}`;
    })
    .join('; ');
}

function pairLabel(pair: PairStatus): string {
  if (pair.status === 'stale') return `stale (${pair.staleBecause === 'both' ? 'both' : pair.staleBecause === 'note' ? 'note' : 'criterion'})`;
  return pair.status;
}

function orphanLabel(orphan: Orphan): string {
  return orphan.reason === 'note-gone' ? 'note gone' : orphan.reason === 'criterion-gone' ? 'criterion gone' : 'not applicable';
}

function orphanBreakdown(orphans: readonly Orphan[]): string {
  if (orphans.length === 0) return '';
  const by = (reason: Orphan['reason']): number => orphans.filter((orphan) => orphan.reason === reason).length;
  return `note gone ${by('note-gone')}, criterion gone ${by('criterion-gone')}, not applicable ${by('not-applicable')}`;
}

function findingLine(finding: Finding): string {
  return `${finding.line === undefined ? '' : `line ${finding.line}: `}${finding.message}`;
}
