import { outputText, outputTooLarge } from '../../review/output-bounds.js';
import { STATE_ROOT } from '../../places.js';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { appendFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../fs/atomic.js';
import { sha256 } from '../../fs/digest.js';
import { loadProfiles, profilesSource } from '../../harness/load-profiles.js';
import { selectProfile, type Profile } from '../../harness/profiles.js';
import { loadCriterion } from '../../review/criteria.js';
import { criterionHash, hashParts, noteParts } from '../../review/hash.js';
import { resultSpend, writeResultFile } from '../../review/result-file.js';
import type { Finding } from '../../kb/findings.js';
import { checkBundle, checkResultLine, missingSection } from '../../review/result-line.js';
import { selectPairs, type PairStatus } from '../../review/status.js';
import { reviewPrompt } from './prompt.js';
import type {
  AcceptInput,
  AcceptOutcome,
  CapturedUnit,
  Grouping,
  PreparedSweep,
  SweepInput,
  SweepProblem,
  SweepProgress,
  SweepSummary,
  SweepUnit,
  UnitCriterion,
} from '../../review/sweep-types.js';

/** Where a review run keeps its state, inside the KB checkout (never a note's folder). */
export const reviewRunsDir = join('kb', 'reports', 'state', 'review', 'runs');
export const runDirOf = (checkout: string, runId: string) => join(checkout, reviewRunsDir, runId);
const batchFile = (runDir: string, batch: number) => join(runDir, 'batches', `batch-${String(batch + 1).padStart(4, '0')}.json`);
const problemsFile = (runDir: string) => join(runDir, 'problems.jsonl');
const outputName = 'review.md';

function badInput(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: 'bad-sweep-input', nonRetryable: true, message });
}

/** Stable, readable, short enough for a directory name. */
function unitKey(note: string, part: string): string {
  const digest = sha256(`${note}\0${part}`).slice(0, 10);
  const readable = `${note.replace(/^kb\//, '').replace(/\.md$/, '')}--${part}`.replace(/[^A-Za-z0-9._-]+/g, '_').slice(-80);
  return `${readable}-${digest}`;
}

/** A bundle's inputs (its note and criterion files) stay within this many bytes when type and collection criteria join it. */
export const BUNDLE_CAP_BYTES = 64 * 1024;

/** File sizes for bundle grouping: bytes of a repository-relative file (0 when unknown), and the cap a bundle's inputs stay within. */
export interface BundleSizes {
  readonly bytes: (file: string) => number;
  readonly cap: number;
}

/** The lens a unit of a note's type and collection criteria is filed under when no gate bundle of the note can take them. */
export const NOTE_CRITERIA_LENS = 'note-criteria';

type PlannedPair = Pick<PairStatus, 'note' | 'criterion' | 'criterionPath' | 'lens' | 'reportCriterion'>;

/**
 * Groups pairs into launch units: one per pair, or (`bundle`) one per note and lens, a note's type and
 * collection criteria joining its first lens bundle whose inputs stay within the size cap — else
 * bundled together when they fit, else one unit each.
 */
export function planUnits(pairs: readonly PlannedPair[], grouping: Grouping, sizes?: BundleSizes): SweepUnit[] {
  const units = new Map<string, SweepUnit>();
  const extras = new Map<string, UnitCriterion[]>();
  for (const pair of pairs) {
    const criterion = { id: pair.criterion, path: pair.criterionPath, report: pair.reportCriterion };
    if (grouping === 'bundle' && pair.lens === undefined && sizes !== undefined && !pair.reportCriterion) {
      extras.set(pair.note, [...(extras.get(pair.note) ?? []), criterion]);
      continue;
    }
    const lens = pair.lens ?? pair.criterion;
    const group = grouping === 'bundle' && pair.lens !== undefined ? lens : pair.criterion;
    const key = unitKey(pair.note, group);
    const unit = units.get(key);
    if (unit) unit.criteria.push(criterion);
    else units.set(key, { key, note: pair.note, lens, criteria: [criterion] });
  }
  if (sizes === undefined) return [...units.values()];
  const inputBytes = (note: string, criteria: readonly UnitCriterion[]) => criteria.reduce((sum, criterion) => sum + sizes.bytes(criterion.path), sizes.bytes(note));
  for (const [note, criteria] of extras) {
    const host = [...units.values()].find((unit) => unit.note === note && inputBytes(note, [...unit.criteria, ...criteria]) <= sizes.cap);
    if (host) {
      host.criteria.push(...criteria);
    } else if (criteria.length > 1 && inputBytes(note, criteria) <= sizes.cap) {
      const key = unitKey(note, NOTE_CRITERIA_LENS);
      units.set(key, { key, note, lens: NOTE_CRITERIA_LENS, criteria });
    } else {
      for (const criterion of criteria) {
        const key = unitKey(note, criterion.id);
        units.set(key, { key, note, lens: criterion.id, criteria: [criterion] });
      }
    }
  }
  return [...units.values()];
}

/** The sizes of a sweep's notes and criterion files as they stand, for bundle grouping. */
async function bundleSizes(checkout: string, pairs: readonly PlannedPair[]): Promise<BundleSizes> {
  const files = new Set<string>();
  for (const pair of pairs) files.add(pair.note).add(pair.criterionPath);
  const bytes = new Map<string, number>();
  await Promise.all([...files].map(async (file) => bytes.set(file, (await stat(join(checkout, file)).catch(() => undefined))?.size ?? 0)));
  return { bytes: (file) => bytes.get(file) ?? 0, cap: BUNDLE_CAP_BYTES };
}

async function readProblems(runDir: string): Promise<SweepProblem[]> {
  const text = await readFile(problemsFile(runDir), 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as SweepProblem);
}

function resolveProfile(input: SweepInput): Profile {
  try {
    const source = profilesSource({ checkout: input.checkout, ...(input.profilesFile && { file: input.profilesFile }) });
    const profile = selectProfile(loadProfiles(source), input.profile, source);
    return input.env ? { ...profile, env: { ...profile.env, ...input.env } } : profile;
  } catch (error) {
    throw badInput((error as Error).message);
  }
}

interface InputsNow {
  noteText: string;
  criteria: Map<string, { text: string; hashes: { note: string; criterion: string } }>;
}

/**
 * Reads a unit's note and criteria as they stand and hashes them (the note parsed once, hashed under
 * each criterion's watches); undefined for a criterion that is gone or no longer a criterion.
 */
async function inputsNow(checkout: string, unit: SweepUnit): Promise<InputsNow | undefined> {
  const noteText = await readFile(join(checkout, unit.note), 'utf8').catch(() => undefined);
  if (noteText === undefined) return undefined;
  const parts = noteParts(noteText, unit.note);
  if (!parts.ok) throw badInput(`note ${unit.note} cannot be hashed: ${parts.findings.map((finding) => finding.message).join('; ')}`);
  const criteria: InputsNow['criteria'] = new Map();
  for (const criterion of unit.criteria) {
    const text = await readFile(join(checkout, criterion.path), 'utf8').catch(() => undefined);
    const loaded = await loadCriterion(checkout, criterion.id);
    if (text === undefined || !loaded.ok) continue;
    criteria.set(criterion.id, { text, hashes: { note: hashParts(parts.parts, loaded.criterion.watches), criterion: criterionHash(text) } });
  }
  return { noteText, criteria };
}

/** Builds the sweep's activities over their dependencies; all I/O of a gate sweep happens here. */
export function createSweepActivities() {
  /** Selects the stale and missing pairs (or a finished sweep's problem pairs) and writes them, in batches, to the run directory. */
  async function prepareSweep(input: SweepInput & { runId: string }): Promise<PreparedSweep> {
    const profile = resolveProfile(input);
    const runDir = runDirOf(input.checkout, input.runId);
    let pairs: PairStatus[];
    try {
      // An input recorded without `criteria` began when sweeps asked gates only: it still selects gates only.
      const selected = await selectPairs(input.checkout, { notes: input.notes, gates: input.gates, criteria: input.criteria ?? ['gates'] });
      if (input.retryOf) {
        const wanted = new Set((await readProblems(runDirOf(input.checkout, input.retryOf))).map((problem) => `${problem.note}\0${problem.criterion}`));
        pairs = selected.filter((pair) => wanted.has(`${pair.note}\0${pair.criterion}`) && pair.status !== 'fresh');
      } else {
        pairs = selected.filter((pair) => pair.status !== 'fresh');
      }
    } catch (error) {
      throw badInput((error as Error).message);
    }
    Context.current().heartbeat({ selected: pairs.length });
    const units = planUnits(pairs, input.grouping, input.grouping === 'bundle' ? await bundleSizes(input.checkout, pairs) : undefined);
    const batches = Math.ceil(units.length / input.batchSize);
    await mkdir(runDir, { recursive: true });
    await writeFileAtomic(join(runDir, 'input.json'), `${JSON.stringify(input, null, 2)}\n`);
    for (let batch = 0; batch < batches; batch++) {
      await writeFileAtomic(batchFile(runDir, batch), JSON.stringify(units.slice(batch * input.batchSize, (batch + 1) * input.batchSize)));
    }
    await writeFileAtomic(problemsFile(runDir), '');
    await rm(join(runDir, 'stale-on-arrival.jsonl'), { force: true });
    return { runId: input.runId, runDir, profile, pairs: pairs.length, units: units.length, batches };
  }

  /** Reads one batch's units back, so the history carries a batch number instead of the work list. */
  async function loadBatch(input: { runId: string; checkout: string; batch: number }): Promise<SweepUnit[]> {
    return JSON.parse(await readFile(batchFile(runDirOf(input.checkout, input.runId), input.batch), 'utf8')) as SweepUnit[];
  }

  /** Copies one unit's note and criteria into a fresh launch directory and records their hashes: the worker sees only these copies. */
  async function captureUnit(input: {
    runId: string;
    checkout: string;
    unit: SweepUnit;
    attempt: number;
    findings: Finding[];
  }): Promise<CapturedUnit> {
    const { unit } = input;
    const dir = join(runDirOf(input.checkout, input.runId), 'launches', unit.key, `attempt-${input.attempt}`);
    // A run ID names its selection, so a later sweep of the same selection reuses this directory: start it empty.
    await rm(dir, { recursive: true, force: true });
    await mkdir(join(dir, 'inputs'), { recursive: true });
    const now = await inputsNow(input.checkout, unit);
    if (!now) throw badInput(`note ${unit.note} is gone`);
    await writeFile(join(dir, 'inputs', 'note.md'), now.noteText);
    const hashes: CapturedUnit['hashes'] = {};
    const criterionInputs: Record<string, string> = {};
    const files: Record<string, string> = { [join('inputs', 'note.md')]: now.noteText };
    for (const criterion of unit.criteria) {
      const read = now.criteria.get(criterion.id);
      if (!read) throw badInput(`criterion ${criterion.id} (${criterion.path}) is gone or no longer a criterion`);
      const relative = join('inputs', 'criteria', `${criterion.id.replace(/\.md$/, '')}.md`);
      await mkdir(join(dir, relative, '..'), { recursive: true });
      await writeFile(join(dir, relative), read.text);
      files[relative] = read.text;
      criterionInputs[criterion.id] = relative;
      hashes[criterion.id] = read.hashes;
    }
    // A unit of several gates is asked as a bundle; a bundle re-asked for one gate is asked as a pair.
    const grouping: Grouping = unit.criteria.length > 1 ? 'bundle' : 'pair';
    const prompt = reviewPrompt({ unit, grouping, noteInput: join('inputs', 'note.md'), criterionInputs, output: outputName, findings: input.findings });
    await writeFile(join(dir, 'prompt.md'), prompt);
    // The launch carries these copies and runs under its own worker's state: any worker can run it.
    const launchDir = `${STATE_ROOT}/review/${input.runId}/${unit.key}/attempt-${input.attempt}`;
    files['prompt.md'] = prompt;
    return { dir, prompt, outputs: [outputName], hashes, grouping, files, launchDir };
  }

  /**
   * Checks one output and writes a result file for each accepted criterion — but only while the
   * note and criterion still hash to what the worker was given; otherwise the pair arrived stale.
   */
  async function acceptUnit(input: AcceptInput): Promise<AcceptOutcome> {
    const { unit, captured, launch } = input;
    const file = join(captured.dir, outputName);
    const bounds = { file: outputName, ...(input.maxOutputBytes !== undefined && { maxBytes: input.maxOutputBytes }) };
    // A launch that ran elsewhere returned its output's bytes: they are kept beside the captured inputs, then checked.
    if (launch.outputBytes?.[outputName] !== undefined) await writeFileAtomic(file, Buffer.from(launch.outputBytes[outputName], 'base64'));
    const oversize = launch.oversize?.includes(outputName) ? launch.outputs.find((output) => output.path === outputName)?.size : undefined;
    const read = oversize !== undefined ? outputTooLarge(oversize, bounds) : outputText(await readFile(file), bounds);
    if (!read.ok) {
      // Outside the output bounds: every criterion it answered is refused, and nothing is written.
      return { written: [], rejected: unit.criteria.map((criterion) => ({ criterion: criterion.id, findings: read.findings.map((finding) => ({ ...finding, criterion: criterion.id })) })), staleOnArrival: [] };
    }
    const text = read.text;
    const sections: { criterion: string; outcome: 'pass' | 'warn' | 'fail' | 'report'; body: string }[] = [];
    const rejected: AcceptOutcome['rejected'] = [];
    if (captured.grouping === 'bundle') {
      const check = checkBundle(text, unit.criteria.map((criterion) => criterion.id), { file: outputName });
      for (const section of check.accepted) sections.push({ criterion: section.gate, outcome: section.outcome, body: section.text });
      for (const refusal of check.rejected) rejected.push({ criterion: refusal.gate, findings: [...refusal.findings] });
      for (const gate of check.missing) rejected.push({ criterion: gate, findings: [missingSection(gate, outputName)] });
    } else {
      const criterion = unit.criteria[0]!;
      const check = checkResultLine(text, { report: criterion.report, file: outputName, criterion: criterion.id });
      if (check.ok) sections.push({ criterion: criterion.id, outcome: check.outcome, body: text.endsWith('\n') ? text : `${text}\n` });
      else rejected.push({ criterion: criterion.id, findings: [...check.findings] });
    }

    const now = sections.length > 0 ? await inputsNow(input.checkout, unit) : undefined;
    const written: AcceptOutcome['written'] = [];
    const staleOnArrival: string[] = [];
    for (const section of sections) {
      const criterion = unit.criteria.find((entry) => entry.id === section.criterion)!;
      const capturedHashes = captured.hashes[criterion.id]!;
      const current = now?.criteria.get(criterion.id)?.hashes;
      if (!current || current.note !== capturedHashes.note || current.criterion !== capturedHashes.criterion) {
        staleOnArrival.push(criterion.id);
        continue;
      }
      await writeResultFile(input.checkout, {
        note: unit.note,
        criterion: criterion.id,
        noteSha256: capturedHashes.note,
        criterionSha256: capturedHashes.criterion,
        outcome: section.outcome,
        profile: launch.profile,
        model: launch.model ?? 'unreported',
        run: input.runId,
        launch: launch.launchId,
        body: section.body,
        spend: resultSpend(launch, unit.criteria.length),
      });
      written.push({ criterion: criterion.id, outcome: section.outcome });
    }
    if (staleOnArrival.length > 0) {
      await appendFile(join(runDirOf(input.checkout, input.runId), 'stale-on-arrival.jsonl'), staleOnArrival.map((criterion) => `${JSON.stringify({ note: unit.note, criterion })}\n`).join(''));
    }
    return { written, rejected, staleOnArrival };
  }

  /** Appends a batch's problem pairs to the run directory, where `review retry` finds them. */
  async function recordProblems(input: { checkout: string; runId: string; problems: SweepProblem[] }): Promise<void> {
    await appendFile(problemsFile(runDirOf(input.checkout, input.runId)), input.problems.map((problem) => `${JSON.stringify(problem)}\n`).join(''));
  }

  /** Writes the sweep's summary beside its results and returns it with the first problems. */
  async function finishSweep(input: { checkout: string; runId: string; progress: SweepProgress; runDir: string }): Promise<SweepSummary> {
    const problems = await readProblems(input.runDir);
    const summary: SweepSummary = { ...input.progress, runDir: input.runDir, problems: problems.slice(0, 100) };
    await writeFileAtomic(join(input.runDir, 'summary.json'), `${JSON.stringify({ ...summary, problems: problems.length }, null, 2)}\n`);
    return summary;
  }

  return { prepareSweep, loadBatch, captureUnit, acceptUnit, recordProblems, finishSweep };
}
