/** The action of `review run full-pass`: its own options read, then the shared start-or-continue. */
import { loadCriterion } from '../../../review/criteria.js';
import type { FullPassOptions } from '../../../review/edit/types.js';
import { CRITIQUE_INSTRUCTION } from '../../../review/paths.js';
import * as fullPassWorkflow from '../../../workflows/full-pass.js';
import { UserError } from '../../shared/errors.js';
import { parseEditCommand, startOrContinue, type EditCommandOptions } from './edit-start.js';

export type FullPassCommandOptions = EditCommandOptions & { direction?: string };

/** A full pass asks the critique instruction: a KB without a usable one is refused before a run starts (it would fail at its first step). */
async function critiqueAvailable(checkout: string): Promise<void> {
  const critique = await loadCriterion(checkout, CRITIQUE_INSTRUCTION);
  if (!critique.ok)
    throw new UserError(
      `a full pass asks the critique instruction ${CRITIQUE_INSTRUCTION}, and the KB has none usable (${critique.message}); add one — the example KB's is examples/kb/instructions/critique-note.md`,
    );
}

/** `commonplace review run full-pass <note>`: starts, continues or follows the full pass over the note's current text. */
export async function runFullPass(noteArg: string, options: FullPassCommandOptions): Promise<void> {
  const request = parseEditCommand(options);
  const asked: Partial<FullPassOptions> = {
    ...(options.profile !== undefined && { profile: options.profile }),
    ...(options.direction !== undefined && { direction: options.direction }),
  };
  await startOrContinue({
    kind: 'full-pass',
    noteArg,
    request,
    asked,
    check: critiqueAvailable,
    newRun: () => {
      const chosen: FullPassOptions = { profile: asked.profile ?? 'claude', direction: asked.direction ?? null };
      return {
        options: chosen,
        start: (client, base, workflowOptions) =>
          client.workflow.start(fullPassWorkflow.fullPass, { ...workflowOptions, args: [{ ...base, options: chosen }] }),
      };
    },
  });
}
