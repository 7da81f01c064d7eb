/** A sweep's provider batches; the history carries the requests file's name and counts, never the requests. docs/batches.md explains the ledger. */
import { Context } from '@temporalio/activity';
import type { ApplicationFailure } from '@temporalio/common';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../../fs/atomic.js';
import { sha256 } from '../../../fs/digest.js';
import type {
  BatchRequests,
  BatchState,
  CancelBatchInput,
  CollectBatchInput,
  CollectedBatch,
  PollBatchInput,
  PreparedRequests,
  SubmitBatchInput,
  SubmittedBatch,
  BatchRequestRef,
} from '../../../harness/batches/batch-contract.js';
import { providerBatchesFor, type BatchOutcome } from '../../../harness/batches/index.js';
import { emptyBatchCounts } from '../../../harness/batches/provider.js';
import { reviewRequest } from '../../../harness/executors/api-request.js';
import { writeReview } from '../../../harness/executors/api-review.js';
import type { LaunchExitDetails, LaunchInput, LaunchResult } from '../../../harness/launch-contract.js';
import type { Profile } from '../../../harness/profiles.js';
import { batchLaunchCost } from '../../../harness/prices.js';
import type { SweepUnit } from '../../../review/sweep-types.js';
import { requestCustomId } from '../../../review/unit-identity.js';
import { addLaunch, emptyTokens, type SpendTotals } from '../../../runs/spend.js';
import { noFaults, type FaultPoints } from '../../faults.js';
import { findAnswer, recordAnswer } from './answers.js';
import { captureInputs } from './capture.js';
import { runDirOf } from './run-dir.js';

/** Written before the provider is asked, completed with the batch's ID once it answers. */
interface Submission {
  key: string;
  provider: Profile['harness'];
  customIds: string[];
  at: string;
  batchId?: string;
}

interface Ledger {
  submissions: Submission[];
}

/** `provider-batches.json` in the run directory. */
const ledgerFile = (checkout: string, runId: string) => join(runDirOf(checkout, runId), 'provider-batches.json');

async function readLedger(file: string): Promise<Ledger> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Ledger;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { submissions: [] };
    throw new Error(`${file}: not a submissions ledger (${(error as Error).message})`);
  }
}

/** As the live executors read it. */
async function launchOf(profile: Profile, ref: BatchRequestRef): Promise<LaunchInput> {
  return { launchId: ref.launchId, profile, dir: ref.dir, prompt: await readFile(join(ref.dir, 'prompt.md'), 'utf8'), outputs: ref.outputs };
}

const requestsFile = (checkout: string, runId: string, name: string) => join(runDirOf(checkout, runId), 'provider-requests', `${name}.json`);

/** The file's, or only the named units'. */
async function requestsOf(input: BatchRequests): Promise<BatchRequestRef[]> {
  const all = JSON.parse(await readFile(requestsFile(input.checkout, input.runId, input.requests), 'utf8')) as BatchRequestRef[];
  if (input.only === undefined) return all;
  const only = new Set(input.only);
  return all.filter((ref) => only.has(ref.unit));
}

/** Their first attempts; a unit the run has answered already (in any execution) gets no request: its answer is judged. */
export async function prepareProviderRequests(input: {
  checkout: string;
  runId: string;
  profile: Profile;
  units: SweepUnit[];
  name: string;
}): Promise<PreparedRequests> {
  const refs: BatchRequestRef[] = [];
  let answered = 0;
  for (const [index, unit] of input.units.entries()) {
    const captured = await captureInputs({ checkout: input.checkout, runId: input.runId, unit, attempt: 1, findings: [], profile: input.profile.name });
    if (!unit.reask && (await findAnswer(input.checkout, input.runId, captured.answer)) !== undefined) answered += 1;
    else refs.push({ unit: unit.key, dir: captured.dir, launchId: `${input.runId}/${unit.key}/batch`, outputs: captured.outputs, answer: captured.answer });
    if (index % 100 === 99) Context.current().heartbeat(`captured ${index + 1} of ${input.units.length} units`);
  }
  await writeFileAtomic(requestsFile(input.checkout, input.runId, input.name), JSON.stringify(refs));
  return { requests: refs.length, answered };
}

/** A submission whose provider answer was lost (the worker died before the ledger's write) is found at the provider and adopted, never sent again. */
export async function submitProviderBatch(input: SubmitBatchInput, faults: FaultPoints = noFaults): Promise<SubmittedBatch> {
  const provider = providerBatchesFor(input.profile);
  const file = ledgerFile(input.checkout, input.runId);
  const ledger = await readLedger(file);
  const refs = await requestsOf(input);
  const launches = await Promise.all(refs.map((ref) => launchOf(input.profile, ref)));
  const customIds = Object.fromEntries(refs.map((ref) => [ref.unit, requestCustomId(ref.answer, input.round)]));
  const known = new Set(ledger.submissions.flatMap((submission) => (submission.batchId !== undefined ? [submission.batchId] : [])));
  // An intent without its batch: the provider may hold it. Adopt it, or forget it when the provider never got it.
  for (const submission of ledger.submissions.filter((entry) => entry.batchId === undefined && entry.provider === input.profile.harness)) {
    const found = await provider.find(submission.key, submission.at, submission.customIds.length, known);
    if (found !== undefined) {
      submission.batchId = found;
      known.add(found);
    }
  }
  ledger.submissions = ledger.submissions.filter((entry) => entry.batchId !== undefined || entry.provider !== input.profile.harness);
  await writeFileAtomic(file, `${JSON.stringify(ledger, null, 2)}\n`);
  const holding = (customId: string) => ledger.submissions.find((entry) => entry.customIds.includes(customId));
  const fresh = refs.flatMap((ref, index) =>
    holding(customIds[ref.unit]!) === undefined ? [{ customId: customIds[ref.unit]!, launch: launches[index]! }] : [],
  );
  if (fresh.length > 0) {
    const requests = await Promise.all(fresh.map(async ({ customId, launch }) => ({ customId, request: await reviewRequest(launch) })));
    const ids = fresh.map((entry) => entry.customId);
    const submission: Submission = {
      key: `cp-${sha256([...ids].sort().join('\n')).slice(0, 32)}`,
      provider: input.profile.harness,
      customIds: ids,
      at: new Date().toISOString(),
    };
    ledger.submissions.push(submission);
    await writeFileAtomic(file, `${JSON.stringify(ledger, null, 2)}\n`); // the intent, before the provider is asked
    Context.current().heartbeat(`submitting ${ids.length} requests`);
    const batchId = await provider.create(requests, submission.key);
    await faults.at('batch-created'); // the provider accepted the batch; neither the ledger nor the history knows its ID
    submission.batchId = batchId;
    await writeFileAtomic(file, `${JSON.stringify(ledger, null, 2)}\n`);
  }
  const batches = [...new Set(Object.values(customIds).map((customId) => holding(customId)!.batchId!))];
  return { batches, sent: fresh.length };
}

/** The batches' state, summed: whether all have ended, and their requests by state. */
export async function pollProviderBatch(input: PollBatchInput): Promise<BatchState> {
  const provider = providerBatchesFor(input.profile);
  const counts = emptyBatchCounts();
  let ended = true;
  for (const id of input.batches) {
    const state = await provider.state(id);
    ended &&= state.ended;
    for (const key of Object.keys(counts) as (keyof typeof counts)[]) counts[key] += state.counts[key];
  }
  return { ended, counts };
}

/** A succeeded request's answer, checked and written as the live executor writes it, and reported as its launch. */
async function answered(profile: Profile, ref: BatchRequestRef, outcome: Extract<BatchOutcome, { kind: 'succeeded' }>): Promise<LaunchResult> {
  const launch = await launchOf(profile, ref);
  const request = await reviewRequest(launch);
  const cost = batchLaunchCost(outcome.model, outcome.usage);
  await writeReview(launch, '', request, outcome.value, {
    model: outcome.model,
    usage: outcome.usage,
    turns: 1,
    toolUses: 0,
    ...(cost !== null && { costUsd: cost }),
  });
  const outputs = [];
  for (const path of ref.outputs) {
    const bytes = await readFile(join(ref.dir, path));
    outputs.push({ path, sha256: sha256(bytes), size: bytes.length });
  }
  return {
    launchId: ref.launchId,
    profile: profile.name,
    harness: profile.harness,
    exitCode: 0,
    timedOut: false,
    durationMs: 0,
    outputs,
    missing: [],
    model: outcome.model,
    modelSource: 'harness',
    usage: outcome.usage,
    costUsd: cost,
    try: 1,
    logDir: '',
    turns: 1,
    toolUses: 0,
  };
}

/** Collecting again reads the same results: nothing is submitted, and an answer recorded before stays as it was. */
export async function collectProviderBatch(input: CollectBatchInput): Promise<CollectedBatch> {
  const provider = providerBatchesFor(input.profile);
  const outcomes = new Map<string, BatchOutcome>();
  for (const id of input.batches) {
    let results: Map<string, BatchOutcome>;
    try {
      results = await provider.results(id);
    } catch (error) {
      // A batch the provider no longer keeps (results go after 29 days): its requests count as expired, and are resubmitted once.
      if ((error as { status?: number }).status !== 404) throw error;
      results = new Map();
    }
    for (const [customId, outcome] of results) outcomes.set(customId, outcome);
  }
  const billed: SpendTotals = { launches: 0, costUsd: 0, unpriced: 0, tokens: emptyTokens() };
  const collected: CollectedBatch = { answered: 0, errored: {}, expired: [], billed };
  const owner = `provider-batch ${input.batches.join(', ')}`;
  for (const [index, ref] of (await requestsOf(input)).entries()) {
    const outcome = outcomes.get(requestCustomId(ref.answer, input.round));
    if (index % 100 === 99) Context.current().heartbeat(`collected ${index + 1} results`);
    if (outcome === undefined || outcome.kind === 'expired') collected.expired.push(ref.unit);
    else if (outcome.kind === 'errored') collected.errored[ref.unit] = outcome.why.slice(0, 500);
    else {
      try {
        const launch = await answered(input.profile, ref, outcome);
        await recordAnswer(input.checkout, input.runId, ref.answer, { owner, launch }, ref.dir);
        addLaunch(billed, launch);
        collected.answered += 1;
      } catch (error) {
        // A malformed structured answer is the request's error: the unit is asked again live, under the relaunch rule; the provider billed it all the same.
        collected.errored[ref.unit] = (error as Error).message.slice(0, 500);
        const refused = ((error as ApplicationFailure).details?.[0] as LaunchExitDetails | undefined)?.billed?.[0];
        if (refused !== undefined) addLaunch(billed, refused);
      }
    }
  }
  return collected;
}

/** Cancels the batches still running (a cancelled sweep); an ended one is left as it is. */
export async function cancelProviderBatch(input: CancelBatchInput): Promise<void> {
  const provider = providerBatchesFor(input.profile);
  for (const id of input.batches) await provider.cancel(id);
}
