import { execa } from 'execa';
import { createHash } from 'node:crypto';
import { appendFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { editRunId } from '../../src/review/edit/identity.js';
import { editWorkflowId } from '../../src/runs/workflow-ids.js';
import { checkoutIdOf } from '../helpers/kb.js';
import type { EditKind } from '../../src/review/edit/types.js';
import { CRITIQUE_INSTRUCTION } from '../../src/review/paths.js';
import { selectPairs } from '../../src/review/status.js';
import type { FakeAttempt, FakeRule, LedgerEntry } from '../helpers/fake.js';
import { ledgerStarts, fakeScenario, scratch } from '../helpers/fake.js';
import { runCli } from '../helpers/cli.js';
import { corpusCopy } from '../helpers/kb.js';

export const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The note the tests edit: a short corpus note of the default note type. */
export const NOTE = 'kb/notes/agent-is-a-tool-loop.md';

let copies = 0;

/**
 * A writable copy of the corpus under Git, committed, as the checkout guard needs. The test note gets
 * a line of its own in each copy: a run's identity is its note's path and text, and tests on one
 * server must not share runs.
 */
export async function gitCorpus(): Promise<string> {
  const root = await corpusCopy();
  copies += 1;
  const text = await readFile(join(root, NOTE), 'utf8');
  await writeFile(join(root, NOTE), `${text.trimEnd()}\n\nThis copy is number ${copies} of process ${process.pid} at ${Date.now()}.\n`);
  const git = (...args: string[]) => execa('git', ['-C', root, ...args]);
  await git('init', '-q', '-b', 'main');
  await git('config', 'user.name', 'Commonplace Test');
  await git('config', 'user.email', 'test@example.invalid');
  await writeFile(join(root, '.gitignore'), 'kb/reports/state/\n');
  // The file's worker holds the checkout from its announcement and may be recording its ID in
  // .commonplace/ (machine-local, never committed) while the KB is added: Git must not list it.
  await appendFile(join(root, '.git', 'info', 'exclude'), '/.commonplace/\n');
  await git('add', '-A');
  await git('commit', '-q', '-m', 'the KB');
  return root;
}

export async function noteText(checkout: string, note = NOTE): Promise<string> {
  return readFile(join(checkout, note), 'utf8');
}

/** The run's ID and workflow ID over a text, as the CLI derives them (on the file's namespace: outside `default` the run ID names it). */
export function runOf(kind: EditKind, note: string, text: string, checkout: string): { runId: string; workflowId: string } {
  const namespace = process.env.TEMPORAL_NAMESPACE || 'default';
  return { runId: editRunId(kind, note, sha256(text), sha256(note), namespace), workflowId: editWorkflowId(kind, checkoutIdOf(checkout), note, sha256(text)) };
}

/** A line of an editing run's publication journal. */
export interface JournalLine {
  event: string;
  written?: string[];
  skipped?: string[];
}

/** An editing run's publication journal, line by line. */
export async function publicationJournal(checkout: string, runId: string): Promise<JournalLine[]> {
  const lines = await readFile(join(runDir(checkout, runId), 'publication.journal.jsonl'), 'utf8');
  return lines
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as JournalLine);
}

export function runDir(checkout: string, runId: string): string {
  return join(checkout, 'kb', 'reports', 'state', 'review', 'runs', runId);
}

/** A review answer for every criterion: pass, and the critique's report line. */
export const reviewsPass: FakeAttempt = { review: 'pass', outcomes: { [CRITIQUE_INSTRUCTION]: 'report' } };

/** The edited text the fake editor writes: the note with one more sentence in its last paragraph. */
export function editedText(text: string): string {
  return `${text.trimEnd()} An edit the full pass proposed.\n`;
}

/** An editor that edits (or decides no edit). */
export function editorRule(attempt: { edited: string; decision: 'edit' | 'no-edit' } | FakeAttempt): FakeRule {
  const answer =
    'decision' in attempt
      ? { outputs: { 'edited.md': attempt.edited, 'decision.md': `The reviews found something to resolve.\n\nDecision: ${attempt.decision}\n` } }
      : attempt;
  return { match: '^job = edit$', attempts: [answer] };
}

/** A CLI run's result, its output as text. */
export interface CliResult {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
}

/** Runs the compiled CLI on a checkout (from inside it), against the test server: in `namespace` when given (a test's room, test/helpers/servers.ts), else the file's. */
export async function cliOn(checkout: string, address: string, args: string[], namespace?: string): Promise<CliResult> {
  const result = await runCli([...args, '--kb', checkout], {
    env: { TEMPORAL_ADDRESS: address, ...(namespace !== undefined && { TEMPORAL_NAMESPACE: namespace }) },
    cwd: checkout,
  });
  return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
}

/** Launch starts in the ledger, with the job each one was (from its prompt). */
export async function launches(ledger: string): Promise<(LedgerEntry & { job: string; prompt: string })[]> {
  const starts = await ledgerStarts(ledger);
  return Promise.all(
    starts.map(async (entry) => {
      const prompt = await readFile(join(entry.cwd!, 'prompt.md'), 'utf8').catch(() => '');
      return { ...entry, prompt, job: /^job = (\S+)$/m.exec(prompt)?.[1] ?? 'unknown' };
    }),
  );
}

/** The gate lenses and the gates that apply to a note (what a full pass bundles). */
export async function gatesOf(checkout: string, note = NOTE): Promise<{ gates: string[]; lenses: string[] }> {
  const pairs = await selectPairs(checkout, { notes: [note], criteria: ['gates'] });
  return { gates: pairs.map((pair) => pair.criterion), lenses: [...new Set(pairs.map((pair) => pair.lens!))] };
}

/** Files under a directory, recursively, relative to it. */
export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}

/**
 * An editing run's fixture: a Git copy of the corpus, its note's text, a fake scenario of `rules` with
 * its ledger, the CLI on the checkout, a run of `review run KIND` with the scenario, and plan files.
 */
export async function editFixture(address: string, rules: (start: string) => FakeRule[]) {
  const checkout = await gitCorpus();
  const start = await noteText(checkout);
  const dir = await scratch();
  const { scenario, ledger } = await fakeScenario(dir, rules(start));
  const cli = (...args: string[]) => cliOn(checkout, address, args);
  const run = (kind: 'full-pass' | 'revise', ...extra: string[]) => cli('review', 'run', kind, NOTE, '--profile', 'fake', '--scenario', scenario, ...extra);
  let plans = 0;
  const planFile = async (text: string) => {
    const file = join(dir, `plan-${(plans += 1)}.yaml`);
    await writeFile(file, text);
    return file;
  };
  return { checkout, start, ledger, cli, run, planFile };
}

/** A committed corpus copy, a scenario (its rules may use the checkout and the note's start text), and the CLI on them against `address`. */
export async function fullPassSetup(address: string, rules: FakeRule[] | ((checkout: string, start: string) => FakeRule[])) {
  const checkout = await gitCorpus();
  const start = await noteText(checkout);
  const { scenario, ledger } = await fakeScenario(await scratch(), typeof rules === 'function' ? rules(checkout, start) : rules);
  const cli = (...args: string[]) => cliOn(checkout, address, args);
  const fullPass = (...extra: string[]) => cli('review', 'run', 'full-pass', NOTE, '--profile', 'fake', '--scenario', scenario, ...extra);
  return { checkout, ledger, scenario, cli, fullPass };
}
