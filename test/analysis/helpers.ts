import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { WorkflowIdConflictPolicy, type WorkflowHandle } from '@temporalio/client';
import { execa } from 'execa';
import { appendFile, cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { prepareRun, type PreparedRun } from '../../src/activities/analysis/prepare.js';
import { treeDigest } from '../../src/activities/analysis/source.js';
import type { AnalysisInput, AnalysisProgress, AnalysisResult } from '../../src/analysis/progress.js';
import { analysisWorkflowId } from '../../src/runs/workflow-ids.js';
import { announceCheckout } from '../helpers/kb.js';
import { checkoutId, checkoutIdOf } from '../../src/checkout/index.js';
import { packageRoot } from '../../src/paths.js';
import { CommonplaceKind, CommonplaceProfile, CommonplaceStatus, CommonplaceSubject, TASK_QUEUE } from '../../src/search-attributes.js';
import { ledgerStarts, fakeScenario, scratch, type FakeAttempt, type FakeRule, type LedgerEntry } from '../helpers/fake.js';
import { fakeProfilesFile } from '../helpers/probe.js';
import { testWorker } from '../helpers/temporal.js';

export const fixtures = join(packageRoot(), 'test', 'fixtures', 'analysis');
export const toyPlan = 'kb/instructions/toy-analysis/plan.yaml';
export const sourceFixture = join(fixtures, 'source');

/**
 * `commonplace analysis prepare` of a system on a toy checkout: the toy plan, worktrees beside the checkout, the
 * source fixture and the fake profile unless told otherwise (`source: false` leaves --source out).
 */
export function toyPrepareArgs(checkout: string, system: string, { profile = 'fake', source = sourceFixture as string | false } = {}): string[] {
  return [
    'analysis',
    'prepare',
    system,
    ...(source === false ? [] : ['--source', source]),
    '--profile',
    profile,
    '--plan',
    join(checkout, toyPlan),
    '--worktrees',
    join(checkout, '..', 'worktrees'),
    '--kb',
    checkout,
  ];
}

/** Every role of the toy plan, in the workflow's order. */
export const ROLES = [
  'boundary',
  'runtime-report',
  'lens-control',
  'lens-memory',
  'lens-learning',
  'reconciliation',
  'report-verification',
  'memory-profile',
  'profile-verification',
  'synthesis',
  'synthesis-verification',
] as const;
export type Role = (typeof ROLES)[number];

export async function git(cwd: string, ...args: string[]): Promise<string> {
  return (await execa('git', args, { cwd })).stdout;
}

/**
 * A fresh Git checkout of the toy KB, committed, with a local identity. Its machine-local state is
 * already ignored (as after a first command there), unless `stateIgnored` is false.
 */
export async function toyCheckout(options: { stateIgnored?: boolean } = {}): Promise<string> {
  const root = join(await scratch('commonplace-analysis-'), 'kb-checkout');
  await cp(join(fixtures, 'toy'), root, { recursive: true });
  await git(root, 'init', '--quiet', '--initial-branch=main');
  await git(root, 'config', 'user.name', 'Analysis Test');
  await git(root, 'config', 'user.email', 'analysis-test@example.invalid');
  await git(root, 'add', '-A');
  await git(root, 'commit', '--quiet', '-m', 'toy KB');
  if (options.stateIgnored ?? true) await appendFile(join(root, '.git', 'info', 'exclude'), '/.commonplace/\n/kb/reports/state/\n');
  await announceCheckout(root);
  return root;
}

/** The identity acquisition gives the toy source directory. */
export async function sourceIdentity(): Promise<string> {
  return `directory:sha256:${await treeDigest(sourceFixture)}`;
}

let preparedCount = 0;
/**
 * A distinct preparation day per prepared run of a test file, so run IDs — and so workflow IDs on
 * the file's one server — never repeat (each toy checkout would otherwise allocate `…-toy-01`).
 */
export function nextPreparationDay(): Date {
  preparedCount += 1;
  return new Date(2030, 0, preparedCount, 12);
}

/** Prepares a toy run of the toy source on the fake profile. */
export async function prepareToy(checkout: string, overrides: Partial<Parameters<typeof prepareRun>[0]> = {}): Promise<PreparedRun> {
  return prepareRun({
    checkout,
    system: 'toy',
    source: sourceFixture,
    profile: 'fake',
    plan: toyPlan,
    worktreesRoot: join(checkout, '..', 'worktrees'),
    now: nextPreparationDay(),
    ...overrides,
  });
}

/** The message of an Update's failure (the client wraps the validator's rejection). */
export async function updateRejection(update: Promise<unknown>): Promise<string> {
  try {
    await update;
  } catch (error) {
    return (error as { cause?: Error }).cause?.message ?? (error as Error).message;
  }
  throw new Error('the update was accepted');
}

const front = (type: string, runId: string, description: string, extra: Record<string, string> = {}) =>
  ['---', `type: ${type}`, `description: ${description}`, `run: ${runId}`, ...Object.entries(extra).map(([key, value]) => `${key}: ${value}`), '---', ''].join(
    '\n',
  );

const report = (runId: string, title: string, description: string, body: string) =>
  `${front('kb/types/toy-report.md', runId, description)}\n# ${title}\n\n## Findings\n\n${body.trim()}\n`;

/** A valid member for each role of the toy layout (variants by option). */
export const member = {
  boundary: (runId: string, source: string, disposition = 'published') =>
    `${front('kb/types/toy-boundary.md', runId, 'What the toy system is and which sources the analysis reads', { disposition, source })}\n# Boundary of the toy system\n\nThe toy system is ${disposition === 'published' ? 'in scope' : disposition}.\n\n## Sources\n\n| ID | Source |\n|----|--------|\n| SRC-1 | README.md |\n| SRC-2 | src/main.ts |\n`,
  'runtime-report': (runId: string, options: { record?: string; text?: string } = {}) =>
    report(
      runId,
      'Runtime report',
      'How the toy system runs, from its entry point to its outputs',
      `### ${options.record ?? 'RT-CMP-loop'} — the main loop\n\n${options.text ?? 'The main loop reads its input once (SRC-2) and writes one file, as the README says (SRC-1).'}`,
    ),
  lens: (runId: string, lens: 'control' | 'memory' | 'learning', options: { cites?: string; text?: string } = {}) => {
    const record = { control: 'RT-CTL-flow', memory: 'RT-MEM-none', learning: 'RT-LRN-none' }[lens];
    return report(
      runId,
      `The ${lens} lens`,
      `The toy system seen through the ${lens} lens, from the runtime report`,
      `### ${record} — ${lens}\n\n${options.text ?? `Through the ${lens} lens, ${options.cites ?? 'RT-CMP-loop'} is one pass over one input (SRC-2).`}`,
    );
  },
  reconciliation: (runId: string, options: { text?: string } = {}) =>
    report(
      runId,
      'Reconciliation',
      'Where the three lens reports agree and where they conflict',
      `### RT-REC-agree — the lenses agree\n\n${options.text ?? 'RT-CTL-flow, RT-MEM-none and RT-LRN-none describe the same single pass that keeps nothing.'}`,
    ),
  'memory-profile': (runId: string) =>
    report(
      runId,
      'Memory profile',
      'What the toy system keeps between runs, which is nothing',
      '### RT-PRF-stateless — stateless\n\nNothing persists between runs (RT-MEM-none, RT-REC-agree).',
    ),
  synthesis: (runId: string) =>
    report(
      runId,
      'Synthesis',
      'What the toy analysis concludes, drawn from every report',
      '### RT-SYN-simple — a stateless loop\n\nA single stateless pass (RT-REC-agree, RT-PRF-stateless).',
    ),
  verification: (runId: string, blockers: string[] = [], limits: string[] = ['Only the two sources were read.']) =>
    `${front('kb/types/toy-verification.md', runId, 'The verdict on the members this verifier was handed')}\n# Verification\n\n## Blockers\n\n${blockers.length === 0 ? 'none' : blockers.map((blocker) => `- ${blocker}`).join('\n')}\n\n## Limits\n\n${limits.map((limit) => `- ${limit}`).join('\n')}\n`,
};

/** Each role's member in a clean run. */
export function cleanMembers(runId: string, source: string): Record<Role, string> {
  return {
    boundary: member.boundary(runId, source),
    'runtime-report': member['runtime-report'](runId),
    'lens-control': member.lens(runId, 'control'),
    'lens-memory': member.lens(runId, 'memory'),
    'lens-learning': member.lens(runId, 'learning'),
    reconciliation: member.reconciliation(runId),
    'report-verification': member.verification(runId),
    'memory-profile': member['memory-profile'](runId),
    'profile-verification': member.verification(runId),
    synthesis: member.synthesis(runId),
    'synthesis-verification': member.verification(runId),
  };
}

/** One attempt writing a role's output. */
export const writes = (role: string, text: string, extra: FakeAttempt = {}): FakeAttempt => ({ outputs: { [`${role}.md`]: text }, ...extra });

/**
 * The verifier refuses the runtime report; its first correction is the refused bytes again (the check rejects it
 * before the verifier is asked), its second changes them. The recorded history `analysis-unchanged-correction` too.
 */
export const unchangedCorrection = (clean: Record<Role, string>, runId: string): Partial<Record<Role, FakeAttempt[]>> => ({
  'report-verification': [
    writes('report-verification', member.verification(runId, ['runtime-report: the loop is said to read once, which src/main.ts does not show'])),
    writes('report-verification', clean['report-verification']),
  ],
  'runtime-report': [
    writes('runtime-report', clean['runtime-report']),
    writes('runtime-report', clean['runtime-report']),
    writes('runtime-report', clean['runtime-report'].replace('reads its input once (SRC-2)', 'reads in.txt whole (SRC-2)')),
  ],
  reconciliation: [writes('reconciliation', clean.reconciliation), writes('reconciliation', clean.reconciliation)],
});

/** Rules matching each role's prompt: per role, the attempts in order (a role without entry gets its clean member once). */
export function roleRules(clean: Record<Role, string>, overrides: Partial<Record<Role, FakeAttempt[]>> = {}): FakeRule[] {
  return ROLES.map((role) => ({ match: `^role = ${role}$`, attempts: overrides[role] ?? [writes(role, clean[role])] }));
}

/** The ledger's launches per role (rule index = role index). */
export async function startsByRole(ledger: string): Promise<Record<Role, LedgerEntry[]>> {
  const entries = await ledgerStarts(ledger);
  return Object.fromEntries(ROLES.map((role, index) => [role, entries.filter((entry) => entry.rule === index)])) as Record<Role, LedgerEntry[]>;
}

export async function toyScenario(
  dir: string,
  prepared: PreparedRun,
  overrides: (clean: Record<Role, string>) => Partial<Record<Role, FakeAttempt[]>> = () => ({}),
) {
  const clean = cleanMembers(prepared.runId, await sourceIdentity());
  return fakeScenario(dir, roleRules(clean, overrides(clean)));
}

export async function toyProfiles(dir: string): Promise<string> {
  return fakeProfilesFile(dir, { fake: { harness: 'fake', timeout: '1m' } });
}

/** The workflow input for a prepared run. */
export function analysisInput(prepared: PreparedRun, profilesFile: string, env: Record<string, string>, autoResume = false): AnalysisInput {
  return { runId: prepared.runId, checkout: prepared.parameters.checkout, worktree: prepared.worktree, runDir: prepared.runDir, autoResume, profilesFile, env };
}

/** Starts the analysis workflow as the CLI does (its ID, summary and search attributes). */
export async function startAnalysis(env: TestWorkflowEnvironment, input: AnalysisInput, searchAttributes = true): Promise<WorkflowHandle> {
  return env.client.workflow.start('analysis', {
    taskQueue: TASK_QUEUE,
    // An input naming its checkout by ID (`<checkout:ID>`, as the CLI sends it) or, as runs begun before places, by its path.
    workflowId: analysisWorkflowId(checkoutIdOf(input.checkout) ?? (await checkoutId(input.checkout)), input.runId),
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    args: [input],
    memo: { worktree: input.worktree },
    staticSummary: `analysis of toy: run ${input.runId}`,
    ...(searchAttributes && {
      typedSearchAttributes: [
        { key: CommonplaceKind, value: 'analysis' },
        { key: CommonplaceStatus, value: 'running' },
        { key: CommonplaceSubject, value: 'toy' },
        { key: CommonplaceProfile, value: 'fake' },
      ],
    }),
  });
}

/** Polls the progress query until the predicate holds. */
export async function progressUntil(
  handle: WorkflowHandle,
  predicate: (progress: AnalysisProgress) => boolean,
  timeoutMs = 120_000,
): Promise<AnalysisProgress> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const progress = await handle.query<AnalysisProgress>('progress').catch(() => undefined);
    if (progress && predicate(progress)) return progress;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting on ${handle.workflowId}: last ${progress ? `${progress.status} at ${progress.stage}` : 'no progress'}`);
    await new Promise((done) => setTimeout(done, 200));
  }
}

export async function readJson<T>(file: string): Promise<T> {
  return JSON.parse(await readFile(file, 'utf8')) as T;
}

export async function writeText(file: string, text: string): Promise<void> {
  await writeFile(file, text);
}

export { scratch };

/** A toy run started by `withRun`, while its test worker serves it. */
export interface Started {
  prepared: PreparedRun;
  ledger: string;
  handle: WorkflowHandle;
  dir: string;
}

/** Prepares a toy run, writes its scenario, and starts its workflow on `env`; `body` runs while a test worker serves it. */
export async function withRun<T>(
  env: TestWorkflowEnvironment,
  overrides: Parameters<typeof toyScenario>[2],
  body: (run: Started) => Promise<T>,
  options: { beforeStart?: (prepared: PreparedRun) => Promise<void> } = {},
): Promise<T> {
  const checkout = await toyCheckout();
  const prepared = await prepareToy(checkout);
  const dir = await scratch();
  const { env: fakeEnv, ledger } = await toyScenario(dir, prepared, overrides);
  await options.beforeStart?.(prepared);
  const worker = await testWorker(env, { stateDir: join(dir, 'state') });
  return worker.runUntil(async () => {
    const handle = await startAnalysis(env, analysisInput(prepared, await toyProfiles(dir), fakeEnv));
    try {
      return await body({ prepared, ledger, handle, dir });
    } catch (error) {
      // A failed body ends its run, so the worker's shutdown does not wait on a launch of it: the file's next tests
      // then find the task queue free. The error says where the run stood.
      const where = await whereItStood(handle);
      await handle.terminate('its test failed').catch(() => undefined);
      throw Object.assign(error instanceof Error ? error : new Error(String(error)), {
        message: `${error instanceof Error ? error.message : String(error)}\n${where}`,
      });
    }
  });
}

/** The run's status, stage and pending activities, for a failed test's message. */
async function whereItStood(handle: WorkflowHandle): Promise<string> {
  const progress = await handle.query<AnalysisProgress>('progress').catch((error: unknown) => `progress not answered: ${String(error)}`);
  const described = await handle.describe().catch(() => undefined);
  const pending = (described?.raw.pendingActivities ?? []).map(
    (activity) =>
      `${activity.activityType?.name ?? '?'} ${activity.activityId ?? ''} (attempt ${activity.attempt ?? 0}, state ${activity.state ?? '?'}${activity.lastFailure?.message ? `, last failure: ${activity.lastFailure.message}` : ''})`,
  );
  const status =
    typeof progress === 'string'
      ? progress
      : `${progress.status} at ${progress.stage}, stops [${progress.stops.map((stop) => stop.kind).join(', ')}], in flight [${progress.inFlight.map((launch) => `${launch.role} since ${launch.since}`).join(', ')}], attempts [${progress.attempts.map((attempt) => `${attempt.role} ${attempt.outcome}`).join(', ')}]`;
  return `the run ${handle.workflowId} stood ${status} (${described?.status.name ?? 'not described'}); pending activities: ${pending.join('; ') || 'none'}`;
}

/** The run's result; a run not closed within 180 s fails its test before jest's 240 s, so `withRun` can end it and say where it stood. */
export async function result(handle: WorkflowHandle, timeoutMs = 180_000): Promise<AnalysisResult> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the run ${handle.workflowId} did not close within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    return (await Promise.race([handle.result(), late])) as AnalysisResult;
  } finally {
    clearTimeout(timer);
  }
}
export const attemptsOf = (progress: AnalysisProgress, role: string) => progress.attempts.filter((attempt) => attempt.role === role);

/** Each role launched once, or as often as `expected` says. */
export function expectLaunches(starts: Record<Role, unknown[]>, expected: Partial<Record<Role, number>>): void {
  expect(Object.fromEntries(ROLES.map((role) => [role, starts[role].length]))).toEqual(Object.fromEntries(ROLES.map((role) => [role, expected[role] ?? 1])));
}

/** A file of a role's launch directory under the run directory (`launches/<role>/<n>/<file>`). */
export const launchFile = (prepared: PreparedRun, role: string, launch: number, file: string) => join(prepared.runDir, 'launches', role, String(launch), file);
