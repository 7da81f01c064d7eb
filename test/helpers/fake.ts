import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HarnessName, Profile } from '../../src/harness/profiles.js';

export interface FakeAttempt {
  outputs?: Record<string, string>;
  writeDeclared?: string;
  writeOutside?: Record<string, string>;
  exitCode?: number;
  stdout?: string;
  stderr?: string;
  usageLimit?: string;
  delayMs?: number;
  hang?: boolean;
  /** The launch waits until this file exists (a test ends it when it chooses). */
  waitForFile?: string;
  /** Stdout lines (objects are written as JSON) played one by one before anything else, `eventDelayMs` apart. */
  events?: (Record<string, unknown> | string)[];
  eventDelayMs?: number;
  model?: string;
  /** The cost the launch reports (default 0), and its tokens. */
  costUsd?: number;
  tokens?: { input?: number; output?: number };
  review?: 'pass' | 'warn' | 'fail' | 'report';
  outcomes?: Record<string, 'pass' | 'warn' | 'fail' | 'report'>;
  skip?: string[];
  malformed?: string[];
}

export interface FakeRule {
  match?: string;
  attempts: FakeAttempt[];
}

export interface LedgerEntry {
  event: 'start' | 'end' | 'hang' | 'waiting';
  rule: number;
  attempt: number;
  pid: number;
  at: string;
  cwd?: string;
  exitCode?: number;
  childPid?: number;
  promptSha256?: string;
}

/** A temporary directory for one test. */
export async function scratch(prefix = 'commonplace-test-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** Writes a fake-harness scenario and returns the environment that points the fake at it and at a fresh ledger. */
export async function fakeScenario(dir: string, launches: FakeRule[]): Promise<{ env: Record<string, string>; ledger: string; scenario: string }> {
  const scenario = join(dir, 'scenario.json');
  const ledger = join(dir, 'ledger.jsonl');
  await writeFile(scenario, JSON.stringify({ ledger: 'ledger.jsonl', launches }, null, 2));
  return { env: { COMMONPLACE_FAKE_SCENARIO: scenario, COMMONPLACE_FAKE_LEDGER: ledger }, ledger, scenario };
}

/** Every entry the fake harness recorded. */
export async function readLedger(ledger: string): Promise<LedgerEntry[]> {
  const text = await readFile(ledger, 'utf8').catch(() => '');
  // Only whole lines: a launch may be appending its entry as the test reads.
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LedgerEntry);
}

/** The launches the fake harness recorded starting. */
export async function ledgerStarts(ledger: string): Promise<LedgerEntry[]> {
  return (await readLedger(ledger)).filter((entry) => entry.event === 'start');
}

/** A resolved profile of a harness, named after it unless `extra` names it: no flags or environment, one-minute tries, three attempts. */
export function harnessProfile(harness: HarnessName, extra: Partial<Profile> = {}): Profile {
  return { name: harness, harness, flags: [], timeoutMs: 60_000, attempts: 3, env: {}, ...extra };
}

/** A resolved profile for a harness, played by the fake executable (so each harness's parser reads real process output). */
export function fakeProfile(overrides: Partial<Profile> & { env: Record<string, string> }): Profile {
  return { name: 'fake', harness: 'fake', flags: [], timeoutMs: 60_000, attempts: 3, ...overrides };
}

/** Waits until a condition holds, polling; fails with the description after the deadline. */
export async function waitFor(description: string, condition: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${description}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}
