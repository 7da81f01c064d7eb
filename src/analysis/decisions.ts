/** The analysis workflow's pure decisions, unit-tested without a server. PURE MODULE. */
import type { Disposition } from '../kb/layouts.js';
import { namedPaths, type StopOf } from '../runs/stop.js';
import { manifestMember, type Manifest, type ManifestStatus } from './manifest.js';
import type { AskKind, FrozenSource, MemberRecord } from './progress.js';

/** Accepted members, role → SHA-256. */
export type Snapshot = Readonly<Record<string, string>>;

export function snapshotOf(members: Readonly<Record<string, MemberRecord>>): Snapshot {
  return Object.fromEntries(Object.values(members).map((member) => [member.role, member.sha256]));
}

/** A candidate is checked against the others. */
export function without(snapshot: Snapshot, role: string): Snapshot {
  return Object.fromEntries(Object.entries(snapshot).filter(([name]) => name !== role));
}

/** Applied to the exact versions the verifier was handed; returns the members to replace. */
export function applyVerdict(
  members: Readonly<Record<string, MemberRecord>>,
  handed: Snapshot,
  verifier: string,
  subjects: readonly string[],
  refused: readonly string[],
): Record<string, MemberRecord> {
  const marked: Record<string, MemberRecord> = {};
  for (const subject of subjects) {
    const sha256 = handed[subject];
    const member = members[subject];
    if (sha256 === undefined || member === undefined) continue;
    marked[subject] = { ...member, verified: { by: verifier, outcome: refused.includes(subject) ? 'refused' : 'accepted', sha256 } };
  }
  return marked;
}

export function changedSubjects(members: Readonly<Record<string, MemberRecord>>, handed: Snapshot, subjects: readonly string[]): string[] {
  return subjects.filter((subject) => members[subject]?.sha256 !== handed[subject]);
}

/** Reconciliation runs again when any read changed since it was written. */
export function changedReads(member: MemberRecord, members: Readonly<Record<string, MemberRecord>>, reads: readonly string[]): string[] {
  return reads.filter((read) => members[read]?.sha256 !== member.handed[read]);
}

export function environmentStop(found: { problems: readonly string[]; evidence?: string }, what = 'the environment changed'): StopOf<'environment-changed'> {
  const more = found.problems.length > 1 ? ` (and ${found.problems.length - 1} more)` : '';
  return {
    kind: 'environment-changed',
    disposition: 'operator',
    reason: `${what}: ${found.problems[0] ?? 'see the evidence'}${more}; restore it and resume, or prepare a new run`,
    ...(found.evidence !== undefined && { evidence: found.evidence }),
  };
}

export function sourceUnavailableStop(found: { problems: readonly string[]; evidence?: string }): StopOf<'source-unavailable'> {
  return {
    kind: 'source-unavailable',
    disposition: 'operator',
    reason: `the source cannot be acquired: ${found.problems[0] ?? 'see the evidence'}; make it reachable and resume, or prepare a new run`,
    ...(found.evidence !== undefined && { evidence: found.evidence }),
  };
}

/** Paths a launch wrote outside its outputs. */
export function strayStop(strays: readonly string[], stage: string, role: string, attempt: number, worktree: string): StopOf<'environment-changed'> {
  return {
    kind: 'environment-changed',
    disposition: 'inspect',
    reason: `the worktree changed outside run state during the ${stage} launches (seen after ${role} attempt ${attempt}): ${namedPaths(strays)}; workers write only their outputs — restore the worktree and resume`,
    evidence: `${worktree} (git -C ${worktree} status)`,
  };
}

/** The main checkout changed while a launch ran: its answer is not accepted. */
export function checkoutStop(paths: readonly string[], role: string, attempt: number, launchId: string, checkout: string): StopOf<'environment-changed'> {
  return {
    kind: 'environment-changed',
    disposition: 'inspect',
    reason: `the main checkout changed while ${role} attempt ${attempt} ran (launch ${launchId}): ${namedPaths(paths)}; workers write only in the run's worktree — restore the checkout and resume (the launch's answer is not accepted)`,
    evidence: `${checkout} (git -C ${checkout} status)`,
  };
}

export function budgetStop(role: string, max: number, why: string, evidence: string | undefined): StopOf<'budget-exhausted'> {
  return {
    kind: 'budget-exhausted',
    disposition: 'operator',
    reason: `${role} has used all ${max} of its attempts; ${why}`,
    ...(evidence !== undefined && { evidence }),
  };
}

export function rejectedReason(kind: AskKind, reason: string | undefined): string {
  if (kind === 'write' || kind === 're-ask') return reason ?? 'rejected by its check';
  return `${(reason ?? kind).replace(/; then rejected by its check$/, '')}; then rejected by its check`;
}

interface ManifestRun {
  readonly runId: string;
  readonly order: readonly string[];
  readonly parameters?: {
    readonly system: string;
    readonly layout: string;
    readonly layoutSha256: string;
    readonly plan: string;
    readonly planSha256: string;
    readonly preparationCommit: string;
  };
  readonly source?: FrozenSource;
  readonly disposition?: Disposition;
}

/** The working (or, at assembly, the exact) manifest, in the layout's order. */
export function buildManifest(run: ManifestRun, members: Readonly<Record<string, MemberRecord>>, status: ManifestStatus, updatedAt: string): Manifest {
  const current = Object.values(members).sort((a, b) => run.order.indexOf(a.role) - run.order.indexOf(b.role));
  const parameters = run.parameters;
  return {
    run: run.runId,
    system: parameters?.system ?? '',
    status,
    ...(run.disposition !== undefined && { disposition: run.disposition }),
    layout: parameters?.layout ?? '',
    layoutSha256: parameters?.layoutSha256 ?? '',
    plan: parameters?.plan ?? '',
    planSha256: parameters?.planSha256 ?? '',
    preparationCommit: parameters?.preparationCommit ?? '',
    ...(run.source !== undefined && { source: run.source.identity }),
    files: Object.fromEntries(current.map((member) => [member.path, member.sha256])),
    members: current.map(manifestMember),
    updatedAt,
  };
}

export { answerKey, type AskIdentity } from '../runs/answer-key.js';
