import { mkdir, readFile, rename } from 'node:fs/promises';
import path from 'node:path';
import { loadProfiles, profilesSource } from '../../../harness/load-profiles.js';
import { selectProfile, type Profile } from '../../../harness/profiles.js';
import { loadCriterion } from '../../../review/criteria.js';
import { sha256 } from '../../../fs/digest.js';
import { formatFindingsInline } from '../../../kb/format.js';
import { CRITIQUE_INSTRUCTION, notePathProblem } from '../../../review/paths.js';
import { selectPairs } from '../../../review/status.js';
import { writeFileAtomic } from '../../../fs/atomic.js';
import { parsePlan } from '../../../review/edit/plan.js';
import { PASSES } from '../../../review/edit/plan-types.js';
import { runDirOf, type RunRecord } from '../../../review/edit/runs.js';
import { put } from '../../../fs/store.js';
import type { BriefEntry, EditCriterion, EditKind, EditRunInput, FullPassInput, PreparedEdit, ReviewUnit, ReviseInput } from '../../../review/edit/types.js';
import type { InstructionName } from '../../../review/edit/instructions.js';
import { briefFile, instructionNow } from './brief.js';
import { badInput } from './failures.js';
import { readJson, writeJson } from './run-files.js';
import { gitSnapshot } from './git.js';
import { writeSnapshot } from './guard.js';
import { pathExists } from '../../../fs/exists.js';

export interface PrepareEditInput {
  kind: EditKind;
  input: FullPassInput | ReviseInput;
  workflowId: string;
  /** A run directory left by an earlier execution of the ID is moved aside. */
  executionRunId: string;
}

/** The input's environment over the profile's own. */
function resolveProfile(input: EditRunInput, name: string): Profile {
  try {
    const source = profilesSource({ checkout: input.checkout, ...(input.profilesFile && { file: input.profilesFile }) });
    const profile = selectProfile(loadProfiles(source), name, source);
    return input.env ? { ...profile, env: { ...profile.env, ...input.env } } : profile;
  } catch (error) {
    throw badInput((error as Error).message);
  }
}

function literalPattern(file: string): string {
  return file.replace(/[*?[\]{}()!+@\\]/g, (char) => `\\${char}`);
}

async function fullPassUnits(checkout: string, note: string): Promise<{ units: ReviewUnit[]; criteria: { path: string; text: string }[] }> {
  let pairs;
  try {
    pairs = await selectPairs(checkout, { notes: [literalPattern(note)], criteria: ['gates'] });
  } catch (error) {
    throw badInput(`${note}: ${(error as Error).message}`);
  }
  const critique = await loadCriterion(checkout, CRITIQUE_INSTRUCTION);
  if (!critique.ok) throw badInput(`a full pass asks the critique instruction ${CRITIQUE_INSTRUCTION}, and the KB has none usable: ${critique.message}`);
  const byLens = new Map<string, EditCriterion[]>();
  const criteria: { path: string; text: string }[] = [];
  for (const pair of pairs) {
    const lens = pair.lens ?? pair.criterion;
    byLens.set(lens, [...(byLens.get(lens) ?? []), { id: pair.criterion, path: pair.criterionPath, report: pair.reportCriterion, watches: [...pair.watches] }]);
  }
  for (const file of [...new Set([...pairs.map((pair) => pair.criterionPath), CRITIQUE_INSTRUCTION])]) {
    criteria.push({ path: file, text: await readFile(path.join(checkout, ...file.split('/')), 'utf8') });
  }
  const units: ReviewUnit[] = [...byLens.entries()].map(([lens, gates]) => ({ key: `gates-${lens}`, lens, criteria: gates }));
  units.push({
    key: 'critique',
    lens: 'critique',
    criteria: [{ id: CRITIQUE_INSTRUCTION, path: CRITIQUE_INSTRUCTION, report: true, watches: [...critique.criterion.watches] }],
  });
  return { units, criteria };
}

/** Opens (or, on a retry, re-opens) an editing run over exactly the text the command read. */
export async function prepareEdit(request: PrepareEditInput): Promise<PreparedEdit> {
  const { input, kind } = request;
  const problem = notePathProblem(input.note);
  if (problem !== undefined) throw badInput(problem);
  const noteText = await readFile(path.join(input.checkout, ...input.note.split('/')), 'utf8').catch(() => undefined);
  if (noteText === undefined) throw badInput(`${input.note} does not exist in ${input.checkout}`);
  if (sha256(noteText) !== input.noteSha256) {
    throw badInput(`${input.note} changed since the command read it (its text no longer hashes to ${input.noteSha256.slice(0, 12)}); run the command again`);
  }
  const profile = resolveProfile(input, input.options.profile);
  const runDir = runDirOf(input.checkout, input.runId);

  const recorded = await readJson<RunRecord>(path.join(runDir, 'run.json')).catch(() => undefined);
  if (recorded && recorded.workflowId !== request.workflowId) {
    throw badInput(`run directory ${runDir} belongs to ${recorded.workflowId}, not ${request.workflowId}`);
  }
  if (recorded && recorded.executionRunId !== request.executionRunId) {
    // An earlier execution of this workflow ID (cancelled or failed) left its directory: keep it, beside.
    let n = 1;
    while (await pathExists(`${runDir}.previous-${n}`)) n += 1;
    await rename(runDir, `${runDir}.previous-${n}`);
  }
  await mkdir(runDir, { recursive: true });

  const startSha256 = await put(runDir, noteText);
  const briefFiles: { path: string; source: 'kb' | 'shipped'; text: string }[] = [];
  let units: ReviewUnit[] = [];
  const instructions: InstructionName[] = [];
  if (kind === 'full-pass') {
    const full = await fullPassUnits(input.checkout, input.note);
    units = full.units;
    briefFiles.push(...full.criteria.map((criterion) => ({ ...criterion, source: 'kb' as const })));
    instructions.push('edit-note');
  }

  let plan: PreparedEdit['plan'];
  if (kind === 'revise') {
    const revise = input as ReviseInput;
    if (revise.options.mode === 'plan') {
      if (revise.planText === undefined || sha256(revise.planText) !== revise.options.planSha256)
        throw badInput('a revision with --plan needs the plan text its digest names');
      const parsed = parsePlan(revise.planText, 'the --plan file');
      if (!parsed.ok) throw badInput(`the --plan file is not a valid plan: ${formatFindingsInline(parsed.findings)}`);
      plan = parsed.plan;
      await writeFileAtomic(path.join(runDir, 'plan.yaml'), revise.planText);
      // A fixed plan's brief is its passes' instructions: nothing a planner would have read.
      instructions.push(...plan.passes.map((entry) => `revise-${entry.pass}` as const));
    } else {
      instructions.push('assess-revision', ...PASSES.map((pass) => `revise-${pass}` as const));
    }
  }
  for (const name of instructions) briefFiles.push(await instructionNow(input.checkout, name));

  const sameExecution = recorded?.executionRunId === request.executionRunId;
  // A retry keeps what the first try captured.
  const brief: BriefEntry[] = sameExecution ? await readJson<BriefEntry[]>(briefFile(runDir)).catch(() => []) : [];
  if (brief.length === 0) {
    for (const file of briefFiles) brief.push({ path: file.path, source: file.source, sha256: await put(runDir, file.text) });
    await writeJson(briefFile(runDir), brief);
  }

  const baseline =
    sameExecution && (await pathExists(path.join(runDir, 'guard', 'baseline.json')))
      ? 'baseline.json'
      : await writeSnapshot(runDir, await gitSnapshot(input.checkout), 'baseline.json');

  const record: RunRecord = {
    kind,
    runId: input.runId,
    workflowId: request.workflowId,
    executionRunId: request.executionRunId,
    note: input.note,
    startSha256,
    options: input.options,
    created: sameExecution ? recorded.created : new Date().toISOString(),
  };
  await writeJson(path.join(runDir, 'run.json'), record);
  return { runId: input.runId, runDir, workflowId: request.workflowId, profile, startSha256, brief, baseline, units, ...(plan && { plan }) };
}
