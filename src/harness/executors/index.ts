/** Adding an executor is its module, its row here and its name in `harnessNames` (src/harness/profiles.ts). */
import type { Executor } from '../executor.js';
import type { HarnessName, Profile } from '../profiles.js';
import { findUsageLimitIn, type HarnessReport } from '../report.js';
import { anthropic } from './anthropic.js';
import { claude } from './claude.js';
import { codex } from './codex.js';
import { fake } from './fake.js';
import { openai } from './openai.js';
import { pi } from './pi.js';

export const executors: Record<HarnessName, Executor> = { claude, codex, pi, fake, anthropic, openai };

export function executorFor(name: HarnessName): Executor {
  return executors[name];
}

/** A CLI executor by name; a model-API one has no process to start, so asking for its command line is a bug. */
export function cliExecutor(name: HarnessName) {
  const executor = executors[name];
  if (executor.kind !== 'cli') throw new Error(`executor ${name} is not a CLI: it has no command line`);
  return executor;
}

export function readHarnessReport(harness: HarnessName, stdout: string): HarnessReport {
  return cliExecutor(harness).report(stdout);
}

export function findUsageLimit(harness: HarnessName, stdout: string, stderr: string, report: HarnessReport): string | undefined {
  return findUsageLimitIn(cliExecutor(harness), stdout, stderr, report);
}

/** Each CLI's endpoint and fail-fast settings, the profile's own `env` over them. */
export function harnessEnv(profile: Profile): Record<string, string> {
  const executor = executors[profile.harness];
  return { ...(executor.kind === 'cli' ? executor.env(profile) : {}), ...profile.env };
}
