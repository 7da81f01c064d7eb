/** The action of `review packet`: a note's or a run's packets against the note as it is now. */
import { sha256 } from '../../../fs/digest.js';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { findCheckout } from '../../../checkout/index.js';
import { packetPath, parsePacket, type PacketRecord } from '../../../review/edit/packet.js';
import { readRunRecord, runDirOf } from '../../../review/edit/runs.js';
import { UserError } from '../../shared/errors.js';
import { printJson } from '../../shared/json-output.js';
import { resolveNote } from './edit-start.js';
import { workingOn } from '../../shared/command-line.js';

const short = (digest: string | null) => (digest === null ? 'gone' : digest.slice(0, 12));

export type PacketVerdict = 'describes' | 'not-applied' | 'changed';

/** Whether a packet still describes its note: the note holds its final text, its unapplied start text, or something else. */
export function packetVerdict(record: PacketRecord, noteSha256: string | null): { verdict: PacketVerdict; says: string } {
  if (noteSha256 === record.final_sha256) {
    return {
      verdict: 'describes',
      says: record.decision === 'edit' ? 'describes the note: it holds the final text' : 'describes the note: unchanged, as the pass left it',
    };
  }
  if (noteSha256 === record.start_sha256)
    return { verdict: 'not-applied', says: 'does not describe the note yet: it still holds the start text (the edit is not published)' };
  return { verdict: 'changed', says: `no longer describes the note: it changed since (it hashes to ${short(noteSha256)} now)` };
}

/** One packet as `review packet --json` reports it (docs/schemas/review-packet.v1.schema.json). */
export type PacketReport = Pick<PacketRecord, 'note' | 'run' | 'decision' | 'closing' | 'profile' | 'resolved' | 'remaining' | 'introduced'> & {
  /** The packet file, repository-relative. */
  file: string;
  /** Where it was read: the note's published packet, or a run directory's packet.md. */
  source: 'published' | 'run';
  /** A run's packet: whether the checkout holds the same packet published (always true for a published one). */
  published: boolean;
  kind: PacketRecord['packet'];
  startSha256: string;
  finalSha256: string;
  /** The note's text now, or null when the note is gone. */
  noteSha256: string | null;
  verdict: PacketVerdict;
  says: string;
  passes: string[];
};

async function readReport(checkout: string, file: string, source: PacketReport['source']): Promise<PacketReport | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const relative = path.relative(checkout, file).split(path.sep).join('/');
  const parsed = parsePacket(text, relative);
  if (!parsed.ok) throw new UserError(`${relative} is not a packet: ${parsed.findings.join('; ')}`);
  const { record } = parsed;
  const noteText = await readFile(path.join(checkout, ...record.note.split('/')), 'utf8').catch(() => undefined);
  const noteSha256 = noteText === undefined ? null : sha256(noteText);
  const { verdict, says } = packetVerdict(record, noteSha256);
  const publishedText =
    source === 'published' ? text : await readFile(path.join(checkout, ...packetPath(record.note, record.packet).split('/')), 'utf8').catch(() => undefined);
  return {
    file: relative,
    source,
    published: publishedText === text,
    kind: record.packet,
    note: record.note,
    run: record.run,
    decision: record.decision,
    closing: record.closing,
    profile: record.profile,
    startSha256: record.start_sha256,
    finalSha256: record.final_sha256,
    noteSha256,
    verdict,
    says,
    resolved: record.resolved,
    remaining: record.remaining,
    introduced: record.introduced,
    passes: record.passes ?? [],
  };
}

function reportLines(report: PacketReport): string[] {
  const lines = [
    `packet ${report.file}${report.source === 'published' ? '' : report.published ? ' (published)' : ' (not published)'}`,
    `  note          ${report.note}`,
    `  run           ${report.run}`,
    `  decision      ${report.decision}, closing ${report.closing}`,
    `  start / final ${short(report.startSha256)} / ${short(report.finalSha256)}`,
    `  note now      ${short(report.noteSha256)}: the packet ${report.says}`,
  ];
  if (report.resolved.length > 0) lines.push(`  resolved      ${report.resolved.join(', ')}`);
  if (report.remaining.length > 0) lines.push(`  remaining     ${report.remaining.join(', ')}`);
  if (report.introduced.length > 0) lines.push(`  introduced    ${report.introduced.join(', ')}`);
  for (const pass of report.passes) lines.push(`  pass          ${pass}`);
  return lines;
}

/** `review packet <note|RUN>`: packets and whether each still describes the note (no server, no Git). Exit 0 all do, 2 one does not, 1 none. */
export async function runPacket(subject: string, options: { kb?: string; json?: boolean }): Promise<void> {
  const checkout = workingOn(findCheckout(process.cwd(), options.kb).root);
  const reports: PacketReport[] = [];
  const run = /[/\\]|\.md$/.test(subject) ? undefined : await readRunRecord(checkout, subject);
  if (run) {
    const report = await readReport(checkout, path.join(runDirOf(checkout, run.runId), 'packet.md'), 'run');
    if (report === undefined) throw new UserError(`run ${run.runId} has no packet yet: it writes one when its work is done`);
    reports.push(report);
  } else {
    const { note } = await resolveNote(checkout, subject).catch((error: unknown) => {
      throw new UserError(`${subject} is neither a run of this checkout nor a note: ${(error as Error).message}`);
    });
    for (const kind of ['full-pass', 'revise'] as const) {
      const report = await readReport(checkout, path.join(checkout, ...packetPath(note, kind).split('/')), 'published');
      if (report !== undefined) reports.push(report);
    }
    if (reports.length === 0) throw new UserError(`${note} has no published packet (a full pass or revision publishes one when it ends)`);
  }
  const describes = reports.every((report) => report.verdict === 'describes');
  if (options.json) printJson('review-packet', 1, { subject, checkout, describes, exitCode: describes ? 0 : 2, packets: reports });
  else process.stdout.write(`${reports.flatMap(reportLines).join('\n')}\n`);
  if (!describes) process.exitCode = 2;
}
