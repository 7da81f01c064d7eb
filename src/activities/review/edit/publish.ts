import { appendFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import { removeAtomicLeftovers, writeFileAtomic } from '../../../fs/atomic.js';
import { sha256 } from '../../../fs/digest.js';
import { noteTitle, extractHeadings } from '../../../kb/notes.js';
import { criterionHash, hashParts, noteParts } from '../../../review/hash.js';
import { resultPath } from '../../../review/paths.js';
import { formatResultFile, parseResultFile } from '../../../review/result-file.js';
import { unifiedDiff } from '../../../review/edit/diff.js';
import { guardExcluded } from '../../../review/edit/guard.js';
import { recordSanctionedWrite } from './guard.js';
import { formatManifest, formatPacket, packetPath, parseManifest, type Manifest, type PacketRecord } from '../../../review/edit/packet.js';
import { getText, put } from '../../../fs/store.js';
import type { BriefEntry, Decision, EditKind, EditSummary, Proposal, ReviewRecord, ReviewUnit } from '../../../review/edit/types.js';
import { DEFAULT_INSTRUCTIONS, instructionPath, type InstructionName } from '../../../review/edit/instructions.js';
import { CRITIQUE_INSTRUCTION } from '../../../review/paths.js';
import { noFaults, type FaultPoints } from '../../faults.js';
import { proposalKey } from './common.js';
import { briefText, readBrief } from './brief.js';
import { badInput } from './failures.js';
import { writeJson } from './run-files.js';

export interface PassRecord {
  pass: string;
  /** What the pass did, in a few words (`edited the text`, `2 of 3 selections applied`). */
  result: string;
}

export interface CandidateInput {
  kind: EditKind;
  runId: string;
  runDir: string;
  workflowId: string;
  checkout: string;
  note: string;
  startSha256: string;
  finalSha256: string;
  decision: Decision;
  profile: string;
  /** Full pass: the review units (for what each criterion watches) and the reviews of each text. */
  units: ReviewUnit[];
  startReviews: ReviewRecord[];
  finalReviews: ReviewRecord[];
  rationaleSha256: string | null;
  passes: PassRecord[];
  /** The stop number the final proposal would be. */
  stop: number;
}

export interface CandidateOutput {
  manifestSha256: string;
  packet: string;
  closing: string;
  proposal?: Proposal;
}

const journalFile = (runDir: string) => path.join(runDir, 'publication.journal.jsonl');
const shortSha = (digest: string) => digest.slice(0, 12);

function gateRows(
  units: readonly ReviewUnit[],
  start: readonly ReviewRecord[],
  final: readonly ReviewRecord[],
): { id: string; start: string; final: string }[] {
  return units
    .flatMap((unit) => unit.criteria)
    .filter((criterion) => !criterion.report)
    .map((criterion) => ({
      id: criterion.id,
      start: start.find((review) => review.criterion === criterion.id)?.outcome ?? 'not asked',
      final: final.find((review) => review.criterion === criterion.id)?.outcome ?? 'not asked',
    }));
}

/**
 * Builds what publication would write (the packet, the final text's result files, a changed note) into the
 * store, with the manifest naming them; a changed text also gets artifact/final.md, final.diff and
 * publication.json, the exact manifest the operator must approve.
 */
export async function writeCandidate(input: CandidateInput): Promise<CandidateOutput> {
  const final = await getText(input.runDir, input.finalSha256);
  const changed = input.finalSha256 !== input.startSha256;
  const brief = await readBrief(input.runDir);
  const files = await resultFiles(input, final, brief);
  const rows = gateRows(input.units, input.startReviews, input.finalReviews);
  const closing = input.kind === 'revise' ? 'complete' : rows.every((row) => row.final === 'pass') ? 'clean' : 'residual';
  const packetText = await packet(input, final, rows, closing);
  files[packetPath(input.note, input.kind)] = await put(input.runDir, packetText);
  await writeFileAtomic(path.join(input.runDir, 'packet.md'), packetText);
  if (changed) files[input.note] = input.finalSha256;

  const manifest: Manifest = {
    kind: input.kind,
    run: input.runId,
    workflow: input.workflowId,
    note: input.note,
    decision: input.decision,
    start_sha256: input.startSha256,
    final_sha256: input.finalSha256,
    brief_sha256: sha256(JSON.stringify(brief)),
    files,
  };
  const manifestText = formatManifest(manifest);
  const manifestSha256 = await put(input.runDir, manifestText);
  if (!changed) return { manifestSha256, packet: 'packet.md', closing };

  const diff = unifiedDiff(await getText(input.runDir, input.startSha256), final, input.note);
  const artifact = (name: string, text: string) => writeFileAtomic(path.join(input.runDir, 'artifact', name), text);
  await artifact('final.md', final);
  await artifact('final.diff', diff);
  await artifact('publication.json', manifestText);
  const inputs = [
    { path: 'artifact/final.md', sha256: sha256(final) },
    { path: 'artifact/final.diff', sha256: sha256(diff) },
  ];
  const file = 'artifact/publication.json';
  const proposal: Proposal = {
    path: file,
    key: proposalKey(input.runId, input.stop, file, manifestSha256, inputs),
    stop: input.stop,
    sha256: manifestSha256,
    exact: true,
    text: manifestText,
    inputs,
    inspect: ['artifact/final.md', 'artifact/final.diff', 'packet.md'],
  };
  await writeJson(path.join(input.runDir, 'artifact', 'proposal.json'), { ...proposal, text: undefined });
  return { manifestSha256, packet: 'packet.md', closing, proposal };
}

/** Result files for the text the note will hold, into the store: one per criterion, from its review of that text. */
async function resultFiles(input: CandidateInput, final: string, brief: BriefEntry[]): Promise<Record<string, string>> {
  const finalParts = noteParts(final, input.note);
  if (!finalParts.ok) throw badInput(`${input.note}: the final text cannot be hashed: ${finalParts.findings.map((finding) => finding.message).join('; ')}`);
  const files: Record<string, string> = {};
  for (const criterion of input.units.flatMap((unit) => unit.criteria)) {
    const review = input.finalReviews.find((entry) => entry.criterion === criterion.id);
    if (!review) throw badInput(`no review of the final text under ${criterion.id}`);
    const file = resultPath(input.note, criterion.id);
    const text = formatResultFile({
      note: input.note,
      criterion: criterion.id,
      noteSha256: hashParts(finalParts.parts, criterion.watches),
      criterionSha256: criterionHash(await briefText(input.runDir, brief, criterion.path)),
      outcome: review.outcome,
      profile: review.profile,
      model: review.model,
      run: input.runId,
      launch: review.launchId,
      body: await getText(input.runDir, review.bodySha256),
      spend: review.spend,
    });
    const check = parseResultFile(text, file);
    if (!check.ok) throw new Error(`the result for ${criterion.id} would not parse: ${check.findings.map((finding) => finding.message).join('; ')}`);
    files[file] = await put(input.runDir, text);
  }
  return files;
}

/** The packet: what the run decided, its passes, each gate's outcome on the start and the final text, and the final critique. */
async function packet(input: CandidateInput, final: string, rows: ReturnType<typeof gateRows>, closing: string): Promise<string> {
  const nonPass = (outcome: string) => outcome === 'warn' || outcome === 'fail';
  const record: PacketRecord = {
    packet: input.kind,
    note: input.note,
    run: input.runId,
    start_sha256: input.startSha256,
    final_sha256: input.finalSha256,
    decision: input.decision,
    closing: closing as PacketRecord['closing'],
    resolved: rows.filter((row) => nonPass(row.start) && row.final === 'pass').map((row) => row.id),
    remaining: rows.filter((row) => nonPass(row.start) && nonPass(row.final)).map((row) => row.id),
    introduced: rows.filter((row) => row.start === 'pass' && nonPass(row.final)).map((row) => row.id),
    ...(input.kind === 'revise' && { passes: input.passes.map((pass) => `${pass.pass}: ${pass.result}`) }),
    profile: input.profile,
  };
  const title = noteTitle(extractHeadings(final)) ?? input.note;
  const unchanged = input.finalSha256 === input.startSha256 ? ' (unchanged)' : '';
  const rationale = input.rationaleSha256 ? ` — ${(await getText(input.runDir, input.rationaleSha256)).trim()}` : '';
  const body: string[] = [
    `# ${input.kind === 'full-pass' ? 'Full pass' : 'Revision'}: ${title}`,
    '',
    `Run \`${input.runId}\` over \`${input.note}\`: start text \`${shortSha(input.startSha256)}\`, final text \`${shortSha(input.finalSha256)}\`${unchanged}.`,
    '',
    '## Decision',
    '',
    `**${input.decision}**${rationale}`,
    '',
  ];
  if (input.kind === 'revise') {
    body.push('## Passes', '', ...(input.passes.length > 0 ? input.passes.map((pass) => `- ${pass.pass}: ${pass.result}`) : ['- none']), '');
  }
  if (rows.length > 0) {
    const gates = rows.map((row) => `| ${row.id} | ${row.start} | ${row.final} |`);
    body.push('## Gates', '', '| gate | start text | final text |', '| --- | --- | --- |', ...gates, '');
  }
  const critique = input.finalReviews.find((review) => review.criterion === CRITIQUE_INSTRUCTION);
  if (critique) body.push('## Critique of the final text', '', (await getText(input.runDir, critique.bodySha256)).trim(), '');
  return formatPacket(record, body.join('\n'));
}

/** The brief file as the checkout has it now: its digest, or null when it is gone. */
async function briefNow(checkout: string, entry: BriefEntry): Promise<string | null> {
  const text = await readFile(path.join(checkout, ...entry.path.split('/')), 'utf8').catch(() => undefined);
  if (text !== undefined) return sha256(text);
  if (entry.source === 'kb') return null;
  // A shipped default stands while the KB has no file of its own there, and while the package's text is the same.
  const name = (Object.keys(DEFAULT_INSTRUCTIONS) as InstructionName[]).find((candidate) => instructionPath(candidate) === entry.path);
  return name === undefined ? null : sha256(DEFAULT_INSTRUCTIONS[name]);
}

interface JournalEntry {
  event: 'begin' | 'note-writing' | 'done';
  manifest: string;
  written?: string[];
  /** Files a retry found already holding their bytes, and did not write again. */
  skipped?: string[];
  at: string;
}

async function readJournal(runDir: string): Promise<JournalEntry[]> {
  const text = await readFile(journalFile(runDir), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as JournalEntry);
}

/**
 * Whether the note and the captured brief are as the run began: the paths that changed, and why.
 * A note that already holds the final text after this publication began writing it is not a change.
 */
export async function checkConflict(input: {
  runDir: string;
  checkout: string;
  note: string;
  manifestSha256: string;
}): Promise<{ paths: string[]; reason: string }> {
  const manifest = parseManifest(await getText(input.runDir, input.manifestSha256));
  const journal = await readJournal(input.runDir);
  const writing = journal.some((entry) => entry.manifest === input.manifestSha256 && entry.event === 'note-writing');
  const noteText = await readFile(path.join(input.checkout, ...input.note.split('/')), 'utf8').catch(() => undefined);
  const noteNow = noteText === undefined ? null : sha256(noteText);
  const paths: string[] = [];
  const reasons: string[] = [];
  if (noteNow !== manifest.start_sha256 && !(writing && noteNow === manifest.final_sha256)) {
    paths.push(input.note);
    reasons.push(noteNow === null ? `${input.note} was deleted since the run began` : `${input.note} changed since the run began`);
  }
  const changedBrief: string[] = [];
  for (const entry of await readBrief(input.runDir)) {
    if ((await briefNow(input.checkout, entry)) !== entry.sha256) changedBrief.push(entry.path);
  }
  if (changedBrief.length > 0) {
    paths.push(...changedBrief);
    reasons.push(`the captured brief changed since the run began (${changedBrief.join(', ')})`);
  }
  return { paths, reason: reasons.join('; ') };
}

/**
 * Writes the manifest's files from the store under a journal — the note first, right after the
 * conflict check, then the packet and results that describe it — so a retried publication finishes
 * what an earlier try began and never writes twice, and a conflict writes nothing.
 */
export async function publishEdit(
  input: { runDir: string; checkout: string; note: string; manifestSha256: string },
  faults: FaultPoints = noFaults,
): Promise<{ status: 'published'; written: string[] } | { status: 'conflict'; paths: string[]; reason: string }> {
  const journal = await readJournal(input.runDir);
  const done = journal.find((entry) => entry.manifest === input.manifestSha256 && entry.event === 'done');
  if (done) return { status: 'published', written: done.written ?? [] };
  const conflict = await checkConflict(input);
  if (conflict.paths.length > 0) return { status: 'conflict', ...conflict };
  const manifest = parseManifest(await getText(input.runDir, input.manifestSha256));
  const note = (file: string) => file === input.note;
  const ordered = [
    ...Object.keys(manifest.files).filter(note),
    ...Object.keys(manifest.files)
      .filter((file) => !note(file))
      .sort(),
  ];
  const log = (entry: Omit<JournalEntry, 'at' | 'manifest'>) =>
    appendFile(journalFile(input.runDir), `${JSON.stringify({ ...entry, manifest: input.manifestSha256, at: new Date().toISOString() })}\n`);
  if (!journal.some((entry) => entry.manifest === input.manifestSha256 && entry.event === 'begin')) await log({ event: 'begin' });
  const skipped: string[] = [];
  for (const file of ordered) {
    const target = manifest.files[file]!;
    const destination = path.join(input.checkout, ...file.split('/'));
    // A try killed inside the atomic write left its temporary file beside the target.
    await removeAtomicLeftovers(destination);
    // A retry finds what an earlier try wrote: a file that already holds its bytes is not written again.
    const now = await readFile(destination).then(
      (bytes) => sha256(bytes),
      () => null,
    );
    if (now === target) {
      skipped.push(file);
      continue;
    }
    const text = await getText(input.runDir, target);
    if (note(file)) await log({ event: 'note-writing' });
    if (!guardExcluded(file)) await recordSanctionedWrite(input.checkout, { path: file, sha256: target, run: path.basename(input.runDir) });
    await writeFileAtomic(destination, text, { beforeRename: () => faults.at('temp-written', file) });
    if (note(file)) await faults.at('note-written');
  }
  await log({ event: 'done', written: ordered, ...(skipped.length > 0 && { skipped }) });
  return { status: 'published', written: ordered };
}

/** Writes the run's summary beside its packet. */
export async function finishEdit(input: { runDir: string; summary: EditSummary }): Promise<void> {
  await writeJson(path.join(input.runDir, 'summary.json'), input.summary);
}
