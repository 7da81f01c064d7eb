/** The action of `review run revise`: the choice of work checked, then the shared start-or-continue. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { formatFindingsInline } from '../../../kb/format.js';
import { sha256 } from '../../../fs/digest.js';
import { parsePlan } from '../../../review/edit/plan.js';
import type { ReviseOptions } from '../../../review/edit/types.js';
import { revise } from '../../../workflows/revise.js';
import { UserError } from '../../shared/errors.js';
import { parseEditCommand, startOrContinue, type EditCommandOptions } from './edit-start.js';

export type ReviseCommandOptions = EditCommandOptions & { plan?: string; assess?: boolean };

/** `review run revise <note>`: a new run needs a mode; a repeat over the same text keeps the run's; an edited note needs a new choice. */
export async function runRevise(noteArg: string, options: ReviseCommandOptions): Promise<void> {
  if (options.plan && options.assess) throw new UserError('--plan and --assess choose the work two ways; give one');
  let planText: string | undefined;
  const asked: Partial<ReviseOptions> = { ...(options.profile !== undefined && { profile: options.profile }) };
  if (options.plan) {
    planText = await readFile(path.resolve(options.plan), 'utf8').catch(() => {
      throw new UserError(`--plan ${options.plan}: no such file`);
    });
    const parsed = parsePlan(planText, options.plan);
    if (!parsed.ok) throw new UserError(`--plan ${options.plan} is not a valid plan: ${formatFindingsInline(parsed.findings)}`);
    asked.mode = 'plan';
    asked.planSha256 = sha256(planText);
  } else if (options.assess) {
    asked.mode = 'assess';
    asked.planSha256 = null;
  }
  const request = parseEditCommand(options);
  await startOrContinue({
    kind: 'revise',
    noteArg,
    request,
    asked,
    newRun: () => {
      if (asked.mode === undefined) {
        throw new UserError(
          `a new revision of ${noteArg} needs a choice of work: --plan FILE or --assess (a repeat over the same note text keeps its run's choice; this text has no run)`,
        );
      }
      const chosen: ReviseOptions = { profile: asked.profile ?? 'claude', mode: asked.mode, planSha256: asked.planSha256 ?? null };
      return {
        options: chosen,
        start: (client, base, workflowOptions) =>
          client.workflow.start(revise, { ...workflowOptions, args: [{ ...base, options: chosen, ...(planText !== undefined && { planText }) }] }),
      };
    },
  });
}
