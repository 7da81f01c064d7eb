/** `commonplace review packet`: registration only; the action loads review-packet-run.ts. */
import type { Command } from 'commander';
import { action } from '../../shared/errors.js';
import { KB_HELP } from '../../shared/help-text.js';

/** A note's published packets or a run's packet, each with whether its recorded hashes still match the note; no server, no Git. */
export function registerPacket(review: Command): void {
  review
    .command('packet')
    .description('show the packet of a note (published) or of a run, and whether it still describes the note')
    .argument('<note-or-run>', 'a note path, or a run ID')
    .option('--kb <dir>', KB_HELP)
    .option('--json', 'print the packets as one review-packet JSON document on stdout')
    .addHelpText(
      'after',
      `
Exit status: 0 every packet shown describes the note; 2 one does not (the note changed since, or
the edit is not published yet); 1 no packet, not a note or run of this checkout, a malformed packet.

Examples:
  $ commonplace review packet kb/notes/tidy-desk.md
  $ commonplace review packet full-pass-notes_tidy-desk-3f2a9c1b07de --json
`,
    )
    .action(action(async (subject: string, options: { kb?: string; json?: boolean }) => (await import('./review-packet-run.js')).runPacket(subject, options)));
}
