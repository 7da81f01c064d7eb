/** An editing run's state beside its lifecycle. One stop at a time; each ends only by its own Update. */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import { parseSelectionList } from '../../review/edit/selection.js';
import type { EditKind, EditProgress, EditSummary, PreparedAsk } from '../../review/edit/types.js';
import type { LaunchResult } from '../../harness/launch-contract.js';
import { Answers } from '../asking/answers.js';
import { runCommand } from '../../runs/run-commands.js';
import type { Stop } from '../../runs/stop.js';
import { editAcknowledgeUpdate, editApproveUpdate, editProgressQuery, editResumeUpdate } from '../messages.js';
import { Lifecycle } from '../lifecycle.js';

export interface EditAnswer<P extends PreparedAsk = PreparedAsk> {
  asked: P;
  result: LaunchResult;
}

const { finishEdit } = proxyActivities<Activities>({ startToCloseTimeout: '5m', heartbeatTimeout: '30s', retry: { maximumAttempts: 5 } });

export class EditRun {
  readonly lifecycle: Lifecycle<EditProgress>;
  launches = 0;
  /** Decisions proposed so far: each proposal's stop number (bound into its key). */
  decisions = 0;
  runDir: string | null = null;
  readonly answers = new Answers<EditAnswer>();

  constructor(
    readonly identity: { kind: EditKind; runId: string; note: string },
    rerun: string,
    maxCostUsd?: number,
  ) {
    this.lifecycle = new Lifecycle<EditProgress>({
      runId: identity.runId,
      view: {
        headline: (stage) => `**${identity.kind}** ${identity.note}: ${stage}`,
        next: {
          resume: rerun,
          approve: (proposal) => runCommand.approve(identity.runId, proposal),
          acknowledge: runCommand.acknowledge(identity.runId),
          ended: rerun,
        },
      },
      autoResume: false,
      progress: {
        query: editProgressQuery,
        build: (common) => ({ ...common, kind: identity.kind, note: identity.note, runDir: this.runDir, launches: this.launches }),
      },
      updates: {
        resume: editResumeUpdate,
        approve: editApproveUpdate,
        acknowledge: editAcknowledgeUpdate,
        checkAnswer: (answer) => {
          const parsed = parseSelectionList(answer.text);
          if (parsed.ok) return undefined;
          const lines = parsed.findings.flatMap((finding) => (finding.line === undefined ? [] : [finding.line]));
          return `does not read as a selection list: ${parsed.findings.length} malformed selection${parsed.findings.length === 1 ? '' : 's'}${lines.length > 0 ? ` (line${lines.length === 1 ? '' : 's'} ${lines.join(', ')})` : ''}`;
        },
      },
      ...(maxCostUsd !== undefined && { spend: { maxCostUsd } }),
    });
  }

  at(stage: string): void {
    this.lifecycle.at(stage);
  }

  /** The result of a run a spent budget ended: nothing published, the stop kept in the summary and in the run directory. */
  async ended(stop: Stop, base: { startSha256: string }): Promise<EditSummary> {
    const summary: EditSummary = {
      kind: this.identity.kind,
      runId: this.identity.runId,
      note: this.identity.note,
      runDir: this.runDir ?? '',
      decision: 'no-edit',
      outcome: 'exhausted',
      stop,
      startSha256: base.startSha256,
      finalSha256: base.startSha256,
      packet: '',
      closing: '',
      written: [],
      launches: this.launches,
      spend: this.lifecycle.spend.progress(),
    };
    if (this.runDir !== null)
      await finishEdit.executeWithOptions({ summary: `write the summary of the edit of ${this.identity.note}` }, [{ runDir: this.runDir, summary }]);
    return summary;
  }
}
