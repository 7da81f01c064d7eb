import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import type { Finding } from '../../kb/findings.js';
import type { CandidateInput, CandidateOutput } from '../../activities/review/edit/index.js';
import type { EditKind, EditSummary, FullPassInput, PreparedEdit, ReviseInput } from '../../review/edit/types.js';
import { runCommand } from '../../runs/run-commands.js';
import { checked, type CheckedTry, type TryOutcome } from '../asking/checked.js';
import { budgetStopReason } from './budget-stop-reason.js';
import { EditRun } from './edit-run.js';

const { prepareEdit, writeCandidate } = proxyActivities<Activities>({ startToCloseTimeout: '10m', heartbeatTimeout: '30s', retry: { maximumAttempts: 3 } });
const { guardCheck, checkConflict, publishEdit, finishEdit } = proxyActivities<Activities>({
  startToCloseTimeout: '5m',
  heartbeatTimeout: '30s',
  retry: { maximumAttempts: 5 },
});

/** What the guard compares against: the baseline snapshot, replaced when the operator acknowledges. */
export interface RunContext {
  checkout: string;
  note: string;
  prepared: PreparedEdit;
  baseline: string;
  /** Launches asked so far: each launch directory and launch ID is numbered. */
  seq: number;
}

/** Paths changed outside the run's directories stop it until acknowledged. */
export async function guardStep(run: EditRun, ctx: RunContext): Promise<void> {
  for (;;) {
    const check = await guardCheck.executeWithOptions({ summary: `compare the checkout of ${ctx.note} with the run's snapshot` }, [
      { runDir: ctx.prepared.runDir, checkout: ctx.checkout, baseline: ctx.baseline },
    ]);
    if (check.changed.length === 0) return;
    await run.lifecycle.acknowledge(check.changed);
    ctx.baseline = check.snapshot;
  }
}

/** A stop waits for the resume and asks again; a spent budget ends the run; the last findings carry into the next try. */
export async function untilAccepted<I, A>(
  run: EditRun,
  what: string,
  input: I,
  budget: number,
  tryOnce: (current: CheckedTry<I>) => Promise<TryOutcome<I, A>>,
): Promise<A[]> {
  const accepted: A[] = [];
  let pending = input;
  let carried: Finding[] = [];
  for (;;) {
    const result = await checked(pending, budget, async (current) => {
      const outcome = await tryOnce({ ...current, findings: current.findings.length > 0 ? current.findings : carried });
      if (outcome.kind !== 'stop') carried = outcome.findings;
      return outcome;
    });
    accepted.push(...result.accepted);
    if (result.status === 'accepted') return accepted;
    pending = result.pending;
    if (result.status === 'stopped') await run.lifecycle.halt(result.stop);
    else
      await run.lifecycle.halt({
        kind: 'budget-exhausted',
        disposition: 'operator',
        reason: budgetStopReason(what, budget, [{ label: '', findings: result.findings }]),
        evidence: run.runDir ?? undefined,
      });
  }
}

type PacketContent = Pick<CandidateInput, 'kind' | 'finalSha256' | 'decision' | 'units' | 'startReviews' | 'finalReviews' | 'rationaleSha256' | 'passes'>;

/** The one way both kinds end: the candidate (packet, result files, the exact manifest to approve), then publication. */
export async function packetStep(run: EditRun, ctx: RunContext, content: PacketContent): Promise<EditSummary> {
  const { prepared } = ctx;
  run.at('writing the packet');
  run.decisions += 1;
  const candidate = await writeCandidate.executeWithOptions({ summary: `write the packet of ${ctx.note}` }, [
    {
      ...content,
      runId: prepared.runId,
      runDir: prepared.runDir,
      workflowId: workflowInfo().workflowId,
      checkout: ctx.checkout,
      note: ctx.note,
      startSha256: prepared.startSha256,
      profile: prepared.profile.name,
      stop: run.decisions,
    },
  ]);
  return publishStep(run, ctx, candidate, {
    kind: content.kind,
    runId: prepared.runId,
    note: ctx.note,
    runDir: prepared.runDir,
    decision: content.decision,
    startSha256: prepared.startSha256,
    finalSha256: content.finalSha256,
  });
}

/** A changed text's exact manifest is approved first; the note and brief must be as the run began (else a conflict stop); the note is written last. */
async function publishStep(
  run: EditRun,
  ctx: RunContext,
  candidate: CandidateOutput,
  summary: Omit<EditSummary, 'outcome' | 'written' | 'launches' | 'packet' | 'closing'>,
): Promise<EditSummary> {
  if (candidate.proposal) {
    await guardStep(run, ctx);
    run.at('awaiting approval of the final text');
    await run.lifecycle.decide(
      candidate.proposal,
      `the final text differs from the note: read ${candidate.proposal.inspect.join(' and ')}, then approve the exact ${candidate.proposal.path}`,
    );
  }
  for (;;) {
    run.at('checking the note and the brief before publication');
    const target = { runDir: ctx.prepared.runDir, checkout: ctx.checkout, note: ctx.note, manifestSha256: candidate.manifestSha256 };
    const conflict = await checkConflict.executeWithOptions({ summary: `check ${ctx.note} and its brief before publication` }, [target]);
    if (conflict.paths.length > 0) {
      await run.lifecycle.halt({ kind: 'conflict', disposition: 'operator', reason: `${conflict.reason}; nothing was written`, paths: conflict.paths });
      continue;
    }
    await guardStep(run, ctx);
    run.at('publishing');
    const published = await publishEdit.executeWithOptions({ summary: `publish the edit of ${ctx.note}` }, [target]);
    if (published.status !== 'published') {
      await run.lifecycle.halt({ kind: 'conflict', disposition: 'operator', reason: `${published.reason}; nothing was written`, paths: published.paths });
      continue;
    }
    const done: EditSummary = {
      ...summary,
      outcome: candidate.proposal ? 'published' : 'unchanged',
      written: published.written,
      launches: run.launches,
      spend: run.lifecycle.spend.progress(),
      packet: candidate.packet,
      closing: candidate.closing,
    };
    await finishEdit.executeWithOptions({ summary: `write the summary of the edit of ${ctx.note}` }, [{ runDir: ctx.prepared.runDir, summary: done }]);
    run.lifecycle.complete(
      'completed',
      candidate.proposal
        ? `published: ${published.written.length} files written, the note last`
        : `no edit: ${published.written.length} files published (the packet and the results)`,
    );
    return done;
  }
}

/** Opens and closes an editing run the one way both kinds share; `body` does the kind's work. */
export function editRun<I extends FullPassInput | ReviseInput>(
  kind: EditKind,
  input: I,
  body: (run: EditRun, ctx: RunContext) => Promise<EditSummary>,
): Promise<EditSummary> {
  const run = new EditRun({ kind, runId: input.runId, note: input.note }, runCommand.editRerun({ kind, note: input.note }), input.maxCostUsd);
  const start = { startSha256: input.noteSha256 };
  return run.lifecycle.close(
    async () => {
      const { workflowId, runId: executionRunId } = workflowInfo();
      run.at('preparing: capturing the note, the brief and the checkout state');
      const prepared = await prepareEdit.executeWithOptions({ summary: `capture ${input.note}, its brief and the checkout state` }, [
        { kind, input, workflowId, executionRunId } as Parameters<typeof prepareEdit>[0],
      ]);
      run.runDir = prepared.runDir;
      start.startSha256 = prepared.startSha256;
      const ctx: RunContext = { checkout: input.checkout, note: input.note, prepared, baseline: prepared.baseline, seq: 0 };
      await guardStep(run, ctx);
      return body(run, ctx);
    },
    (stop) => run.ended(stop, start),
  );
}
