/** How a run reads from outside; the commands it shows run as pasted from any directory (`webUiCommand`). */
import { setCurrentDetails, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { nextCap, spendLine } from '../runs/spend.js';
import { ADDRESS_MEMO, webUiCommand, type NextCommands, type WebUiPlace } from '../runs/run-commands.js';
import { workflowCheckoutId } from '../runs/workflow-ids.js';
import { STOP_RULES, type RunStatus, type Stop } from '../runs/stop.js';
import { CommonplaceKind, CommonplaceStatus } from '../search-attributes.js';
import { clipAll, DETAIL_LINE, stopLines } from './current-details.js';
import type { Spend } from './spend-cap.js';

export interface RunViewSettings {
  /** The first line of the current details, for a stage (`**analysis** AAS-…: boundary`). */
  headline: (stage: string) => string;
  next: NextCommands;
  /** More lines of current details while the run goes. */
  details?: () => string[];
  /** The command that shows the whole run (every stop in full): current details name it where they leave something out. */
  inspect?: string;
}

export interface RunState {
  status: RunStatus;
  stage: string;
  stops: readonly Stop[];
  resumesAt: string | undefined;
  spend: Spend;
}

/** Records a status change only where the starter set the project's search attributes (the time-skipping server has none). */
function recordStatus(status: RunStatus): void {
  if (workflowInfo().typedSearchAttributes.get(CommonplaceKind) === undefined) return;
  upsertSearchAttributes([{ key: CommonplaceStatus, value: status }]);
}

/** Where this run's Web UI commands run: its checkout (from its workflow ID), its namespace, and the address its starter named (its memo). */
export function webUiPlace(): WebUiPlace {
  const { workflowId, namespace, memo } = workflowInfo();
  const address = memo?.[ADDRESS_MEMO];
  return { checkoutId: workflowCheckoutId(workflowId), namespace, address: typeof address === 'string' && address !== '' ? address : undefined };
}

export class RunView {
  constructor(private readonly settings: RunViewSettings) {}

  record(status: RunStatus): void {
    recordStatus(status);
  }

  /** Current details bounded to a screen; the next command is the only one in backticks, and what was left out is behind `inspect`. */
  show(run: RunState): void {
    const place = webUiPlace();
    const inspect = this.settings.inspect === undefined ? undefined : webUiCommand(this.settings.inspect, place);
    const stage = clipAll([this.settings.headline(run.stage), ...(this.settings.details?.() ?? [])], DETAIL_LINE);
    const stops = stopLines(run.stops, run.status, inspect);
    const lines = [...stage.lines, ...stops.lines];
    if ((stage.clipped || stops.clipped) && run.stops.length <= 1 && inspect) lines.push(`in full: ${inspect}`);
    if (run.resumesAt) lines.push(`goes on by itself at ${run.resumesAt}`);
    const spend = run.spend.progress();
    if (spend.launches > 0 || spend.capUsd !== undefined) lines.push(`spent: ${spendLine(spend)}`);
    const next = this.nextCommand(run);
    if (next) lines.push(`next: \`${webUiCommand(next, place)}\``);
    setCurrentDetails(lines.join('\n\n'));
  }

  nextCommand(run: RunState): string | undefined {
    const stop = run.stops[0];
    if (stop === undefined) return undefined;
    const { next } = this.settings;
    if (run.status === 'exhausted') return next.ended;
    const by = STOP_RULES[stop.kind].by;
    if (by === 'approve' && stop.kind === 'awaiting-approval') return next.approve?.(stop.proposal);
    if (by === 'acknowledge') return next.acknowledge;
    if (stop.kind === 'spend-limit') return `${next.resume} --max-cost ${nextCap(run.spend.all())}`;
    return next.resume;
  }
}
