/** The action of `review run full-pass`: its own options read, then the shared start-or-continue. */
import type { FullPassOptions } from '../../review/edit/types.js';
import * as fullPassWorkflow from '../../workflows/full-pass.js';
import { parseEditCommand, startOrContinue, type EditCommandOptions } from './edit-start.js';

export type FullPassCommandOptions = EditCommandOptions & { direction?: string };

/** `commonplace review run full-pass <note>`: starts, continues or follows the full pass over the note's current text. */
export async function runFullPass(noteArg: string, options: FullPassCommandOptions): Promise<void> {
  const request = parseEditCommand(options);
  const asked: Partial<FullPassOptions> = { ...(options.profile !== undefined && { profile: options.profile }), ...(options.direction !== undefined && { direction: options.direction }) };
  await startOrContinue({
    kind: 'full-pass',
    noteArg,
    request,
    asked,
    newRun: () => {
      const chosen: FullPassOptions = { profile: asked.profile ?? 'claude', direction: asked.direction ?? null };
      return { options: chosen, start: (client, base, workflowOptions) => client.workflow.start(fullPassWorkflow.fullPass, { ...workflowOptions, args: [{ ...base, options: chosen }] }) };
    },
  });
}
