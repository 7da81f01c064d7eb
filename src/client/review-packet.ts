import { sha256 } from '../fs/digest.js';
import type { Command } from 'commander';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { findCheckout } from '../kb/checkout.js';
import { packetPath, parsePacket, type PacketRecord } from '../review/edit/packet.js';
import { readRunRecord, runDirOf } from '../review/edit/runs.js';
import { action, UserError } from './errors.js';
import { resolveNote } from './review-full-pass.js';

const short = (digest: string | null) => (digest === null ? 'gone' : digest.slice(0, 12));

export type PacketVerdict = 'describes' | 'not-applied' | 'changed';

/** Whether a packet still describes its note: the note holds its final text, its unapplied start text, or something else. */
export function packetVerdict(record: PacketRecord, noteSha256: string | null): { verdict: PacketVerdict; says: string } {
  if (noteSha256 === record.final_sha256) {
    return { verdict: 'describes', says: record.decision === 'edit' ? 'describes the note: it holds the final text' : 'describes the note: unchanged, as the pass left it' };
  }
  if (noteSha256 === record.start_sha256) return { verdict: 'not-applied', says: 'does not describe the note yet: it still holds the start text (the edit is not published)' };
  return { verdict: 'changed', says: `no longer describes the note: it changed since (it hashes to ${short(noteSha256)} now)` };
}

async function report(checkout: string, file: string, published: boolean): Promise<PacketVerdict | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const parsed = parsePacket(text, path.relative(checkout, file));
  if (!parsed.ok) throw new UserError(`${path.relative(checkout, file)} is not a packet: ${parsed.findings.join('; ')}`);
  const { record } = parsed;
  const noteText = await readFile(path.join(checkout, ...record.note.split('/')), 'utf8').catch(() => undefined);
  const noteSha256 = noteText === undefined ? null : sha256(noteText);
  const { verdict, says } = packetVerdict(record, noteSha256);
  const publishedText = await readFile(path.join(checkout, ...packetPath(record.note, record.packet).split('/')), 'utf8').catch(() => undefined);
  const lines = [
    `packet ${path.relative(checkout, file)}${published ? '' : publishedText === text ? ' (published)' : ' (not published)'}`,
    `  note          ${record.note}`,
    `  run           ${record.run}`,
    `  decision      ${record.decision}, closing ${record.closing}`,
    `  start / final ${short(record.start_sha256)} / ${short(record.final_sha256)}`,
    `  note now      ${short(noteSha256)}: the packet ${says}`,
  ];
  if (record.resolved.length > 0) lines.push(`  resolved      ${record.resolved.join(', ')}`);
  if (record.remaining.length > 0) lines.push(`  remaining     ${record.remaining.join(', ')}`);
  if (record.introduced.length > 0) lines.push(`  introduced    ${record.introduced.join(', ')}`);
  for (const pass of record.passes ?? []) lines.push(`  pass          ${pass}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return verdict;
}

/**
 * `commonplace review packet <note|RUN>`: a note's published packets, or a run's packet, with whether
 * each still describes the note (its recorded hashes against the file). No server, no Git. Exit 0
 * when every packet shown describes the note, 2 when one does not, 1 when there is none.
 */
export function registerPacket(review: Command): void {
  review
    .command('packet')
    .description('show the packet of a note (published) or of a run, and whether it still describes the note')
    .argument('<note-or-run>', 'a note path, or a run ID')
    .option('--kb <dir>', 'KB checkout (default: the Git root above the current directory that holds kb/)')
    .action(
      action(async (subject: string, options: { kb?: string }) => {
        const checkout = findCheckout(process.cwd(), options.kb).root;
        const verdicts: PacketVerdict[] = [];
        const run = /[/\\]|\.md$/.test(subject) ? undefined : await readRunRecord(checkout, subject);
        if (run) {
          const verdict = await report(checkout, path.join(runDirOf(checkout, run.runId), 'packet.md'), false);
          if (verdict === undefined) throw new UserError(`run ${run.runId} has no packet yet: it writes one when its work is done`);
          verdicts.push(verdict);
        } else {
          const { note } = await resolveNote(checkout, subject).catch((error: unknown) => {
            throw new UserError(`${subject} is neither a run of this checkout nor a note: ${(error as Error).message}`);
          });
          for (const kind of ['full-pass', 'revise'] as const) {
            const verdict = await report(checkout, path.join(checkout, ...packetPath(note, kind).split('/')), true);
            if (verdict !== undefined) verdicts.push(verdict);
          }
          if (verdicts.length === 0) throw new UserError(`${note} has no published packet (a full pass or revision publishes one when it ends)`);
        }
        if (verdicts.some((verdict) => verdict !== 'describes')) process.exitCode = 2;
      }),
    );
}
