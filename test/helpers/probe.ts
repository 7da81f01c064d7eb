import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { PrepareProbeInput } from '../../src/activities/index.js';
import { fakeHarnessPath } from '../../src/worker.js';
import type { ProbeResult } from '../../src/workflows/probe.js';

/** Writes a profiles file whose profiles are all played by the fake executable, under each harness's own output format. */
export async function fakeProfilesFile(dir: string, profiles: Record<string, Record<string, unknown>>): Promise<string> {
  const file = join(dir, 'worker-profiles.yaml');
  const resolved = Object.fromEntries(Object.entries(profiles).map(([name, profile]) => [name, { command: fakeHarnessPath, ...profile }]));
  await writeFile(file, stringify({ profiles: resolved }));
  return file;
}

/** The probe workflow's input for a profile of such a file. */
export function probeInput(probeId: string, profile: string, profilesFile: string, env: Record<string, string>): PrepareProbeInput {
  return { probeId, profile, profilesFile, env };
}

/** A probe's result: a probe whose launch does not complete fails its workflow (probe-failed) with the result as the failure's details. */
export async function probeResult(execution: Promise<unknown>): Promise<ProbeResult> {
  try {
    return (await execution) as ProbeResult;
  } catch (error) {
    const cause = error instanceof WorkflowFailedError ? error.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === 'probe-failed') return cause.details?.[0] as ProbeResult;
    throw error;
  }
}

/** A probe's result with its directory as a path of the worker that ran it: `<state>/…` is under that worker's state directory. */
export function inState(result: ProbeResult, stateDir: string): ProbeResult {
  return { ...result, dir: result.dir.replace(/^<state>(?=\/|$)/, stateDir) };
}
