/** The launch directory before a try (its files, its leftovers set aside) and after (its outputs digested). */
import { ApplicationFailure } from '@temporalio/common';
import { access, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize, relative, sep } from 'node:path';
import { sha256 } from '../../fs/digest.js';
import type { HarnessReport } from '../../harness/report.js';
import { RETURNED_OUTPUT_CAP, type LaunchInput, type LaunchResult, type OutputDigest } from '../../harness/launch-contract.js';
import { launchStateDir } from './tries.js';

const badInput = (input: LaunchInput, problems: string[]) =>
  ApplicationFailure.create({ type: 'bad-launch-input', nonRetryable: true, message: `launch ${input.launchId}: ${problems.join('; ')}` });

/** The normal form of `path` when it names a place inside the launch directory and outside its state, else undefined. */
function inside(path: string): string | undefined {
  const normal = normalize(path);
  return isAbsolute(path) || normal.startsWith('..') || normal.split(sep)[0] === launchStateDir ? undefined : normal;
}

export function checkInput(input: LaunchInput): void {
  const problems: string[] = [];
  if (!isAbsolute(input.dir)) problems.push(`dir "${input.dir}" is not absolute`);
  for (const output of input.outputs) {
    if (inside(output) === undefined) problems.push(`output "${output}" must be a path inside the launch directory`);
  }
  if (problems.length > 0) throw badInput(input, problems);
}

/** Writes a launch's carried files and its prompt into its directory, emptied first so the worker sees exactly these. */
export async function writeLaunchFiles(input: LaunchInput): Promise<void> {
  const { dir, files } = input;
  if (!files) return;
  await mkdir(dir, { recursive: true });
  for (const entry of await readdir(dir).catch(() => [] as string[])) {
    if (entry !== launchStateDir) await rm(join(dir, entry), { recursive: true, force: true });
  }
  for (const [name, text] of Object.entries({ ...files, 'prompt.md': input.prompt })) {
    const normal = inside(name);
    if (normal === undefined) throw badInput(input, [`file "${name}" must be a path inside the launch directory`]);
    await mkdir(dirname(join(dir, normal)), { recursive: true });
    await writeFile(join(dir, normal), text);
  }
}

/** Makes this attempt's log directory and sets aside what the outputs already hold there. */
export async function freshLogDir(input: LaunchInput, attempt: number): Promise<string> {
  const logDir = join(launchStateDir, `try-${attempt}`);
  await mkdir(join(input.dir, logDir), { recursive: true });
  await setAside(input, logDir, 'leftover');
  return logDir;
}

/** Moves whatever the declared outputs hold into the log directory, so a failed or leftover output can never be accepted. */
export async function setAside({ dir, outputs }: LaunchInput, logDir: string, under: 'leftover' | 'aside'): Promise<string[]> {
  const moved: string[] = [];
  for (const output of outputs) {
    const from = join(dir, output);
    if (
      !(await access(from).then(
        () => true,
        () => false,
      ))
    )
      continue;
    const to = join(dir, logDir, under, output);
    await mkdir(dirname(to), { recursive: true });
    await rename(from, to);
    moved.push(relative(dir, to));
  }
  return moved;
}

/** One shape for every launch that ran to an end, whichever executor ran it. */
export async function launchResult(
  input: LaunchInput,
  report: HarnessReport,
  how: Pick<LaunchResult, 'exitCode' | 'timedOut' | 'durationMs' | 'try' | 'logDir'>,
): Promise<LaunchResult> {
  const { profile, dir } = input;
  const outputs: OutputDigest[] = [];
  const missing: string[] = [];
  for (const output of input.outputs) {
    try {
      const bytes = await readFile(join(dir, output));
      outputs.push({ path: output, sha256: sha256(bytes), size: bytes.length });
    } catch {
      missing.push(output);
    }
  }
  // The outputs' bytes within the cap; larger ones are named instead.
  const outputBytes: Record<string, string> = {};
  const oversize: string[] = [];
  const cap = input.returnOutputs && Math.min(input.returnOutputs.maxBytes, RETURNED_OUTPUT_CAP);
  for (const output of outputs) {
    if (cap === undefined) break;
    if (output.size > cap) oversize.push(output.path);
    else outputBytes[output.path] = (await readFile(join(dir, output.path))).toString('base64');
  }
  return {
    launchId: input.launchId,
    profile: profile.name,
    harness: profile.harness,
    exitCode: how.exitCode,
    timedOut: how.timedOut,
    durationMs: how.durationMs,
    outputs,
    missing,
    model: report.model ?? profile.model ?? null,
    modelSource: report.model ? 'harness' : profile.model ? 'profile' : 'none',
    usage: report.usage ?? null,
    costUsd: report.costUsd ?? null,
    try: how.try,
    logDir: how.logDir,
    ...(report.rateLimitWarning && { rateLimitWarning: { type: report.rateLimitWarning.type ?? 'unknown', resetsAt: report.rateLimitWarning.resetsAt } }),
    ...(report.turns !== undefined && { turns: report.turns, toolUses: report.toolUses ?? 0 }),
    ...(cap !== undefined && { outputBytes, ...(oversize.length > 0 && { oversize }) }),
  };
}
