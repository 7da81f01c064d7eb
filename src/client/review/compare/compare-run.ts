/** The action of `review compare`: its options read once, then a compare run started, attached to or resumed, and followed to its report. */
import { memoInWords } from '../../../place-words.js';
import { resolve } from 'node:path';
import { WorkflowIdConflictPolicy, type Client, type WorkflowHandle } from '@temporalio/client';
import { z } from 'zod';
import { sha256 } from '../../../fs/digest.js';
import { checkoutRoot as checkoutPlace, knownCheckoutId, openCheckout } from '../../../checkout/index.js';
import type { CompareInput } from '../../../review/compare/run-types.js';
import { parseRoute, RESULTS_ROUTE } from '../../../review/compare/types.js';
import { markdownText, runDetails } from '../../../runs/run-details.js';
import { startingAttributes, TASK_QUEUE } from '../../../search-attributes.js';
import { compareProgressQuery, compareResumeUpdate, compareRun } from '../../../workflows/compare.js';
import { checkoutRootOf, knowCheckoutHere, portable, warnUnheld } from '../../shared/checkout.js';
import { connectClient } from '../../shared/connection.js';
import { UserError } from '../../shared/errors.js';
import { follow } from '../../shared/follow.js';
import { describeOrRefuse } from '../../shared/run-errors.js';
import { checkLaunchInputs } from '../../shared/input-checks.js';
import { maxCostOption, parseOptions, positiveWhole } from '../../shared/options.js';
import { requireSearchAttributes } from '../../shared/preflight.js';
import { capNotApplied, sendResume } from '../../shared/spend.js';
import { compareFormat, formatCompareStop } from '../shared/compare-format.js';
import { compareRunId as runIdOfCompare, compareWorkflowId, namespacedIdentity } from '../../../runs/workflow-ids.js';
import { compareEstimate } from '../shared/estimate-inputs.js';
import { estimateLineOf, printEstimate } from '../../shared/estimate-output.js';

/** The options as commander hands them (compare.ts registers them): the fields COMPARE_FIELDS reads, and the flags that choose what to do. */
export type CompareCommandOptions = Partial<z.input<typeof COMPARE_FIELDS>> & { resume?: string; estimate?: boolean; json?: boolean };

/** Adds the issue and ends the parse: zod's way to refuse a value in a transform. */
function refuse(context: z.RefinementCtx, message: string): never {
  context.addIssue({ code: 'custom', message });
  return z.NEVER;
}

const wholeFrom = (flag: string, least: number) =>
  z.string().transform((text, context) => {
    const value = Number(text);
    return Number.isInteger(value) && value >= least ? value : refuse(context, `--${flag} must be a whole number ≥ ${least}, got "${text}"`);
  });

/** Route names checked and written the one way (`claude` → `claude:pair`); `results` only once. */
const routeList = z
  .string({ message: '--routes is required: two or more routes, e.g. --routes claude:pair,anthropic-haiku:pair' })
  .transform((text, context) => {
    const names: string[] = [];
    for (const written of text.split(',').flatMap((part) => part.trim() || [])) {
      const route = parseRoute(written);
      if (typeof route === 'string') return refuse(context, `--routes: ${route}`);
      if (names.includes(route.name)) return refuse(context, `--routes: route ${route.name} is named twice`);
      names.push(route.name);
    }
    return names;
  });

const COMPARE_FIELDS = z
  .object({
    maxCost: maxCostOption,
    routes: routeList,
    reference: z.string().optional(),
    size: positiveWhole('size'),
    seed: wholeFrom('seed', 0),
    perCriterionMin: wholeFrom('per-criterion-min', 0),
    concurrency: positiveWhole('concurrency'),
    criteria: z.array(z.string()),
    notes: z.array(z.string()),
    kb: z.string().optional(),
    profiles: z.string().optional(),
    scenario: z.string().optional(),
  })
  .transform((options, context) => {
    const reference = options.reference === undefined ? undefined : options.reference === RESULTS_ROUTE ? RESULTS_ROUTE : parseRoute(options.reference);
    if (typeof reference === 'string' && reference !== RESULTS_ROUTE) return refuse(context, `--reference: ${reference}`);
    const referenceName = typeof reference === 'object' ? reference.name : reference;
    const routes = referenceName === RESULTS_ROUTE && !options.routes.includes(RESULTS_ROUTE) ? [RESULTS_ROUTE, ...options.routes] : options.routes;
    if (referenceName !== undefined && !routes.includes(referenceName))
      return refuse(context, `--reference ${referenceName} is not one of --routes (${routes.join(', ')}) nor \`results\``);
    if (routes.length < 2)
      return refuse(context, `--routes: a comparison needs two or more routes (with --reference results, one more), got ${routes.join(', ') || 'none'}`);
    return { ...options, routes, reference: referenceName };
  });

/** The compare run's input, its options parsed once and its checkout resolved once. */
function parseCompareCommand(raw: CompareCommandOptions): CompareInput & { runId: '' } {
  const { kb, profiles, scenario, maxCost, reference, ...asked } = parseOptions(COMPARE_FIELDS, raw);
  return {
    checkout: checkoutRootOf(kb),
    runId: '',
    ...asked,
    ...(reference !== undefined && { reference }),
    ...(maxCost !== undefined && { maxCostUsd: maxCost }),
    ...(profiles && { profilesFile: resolve(profiles) }),
    ...(scenario && { env: { COMMONPLACE_FAKE_SCENARIO: resolve(scenario) } }),
  };
}

/** A compare run's ID is its identity: the checkout's ID and a digest of what it asks (routes, reference, sample options). */
export function compareRunId(input: Omit<CompareInput, 'checkout' | 'runId'>, checkout: string, namespace: string): string {
  const identity = [
    checkoutPlace(checkout),
    input.routes,
    input.reference ?? null,
    input.size,
    input.seed,
    input.perCriterionMin,
    [...input.criteria].sort(),
    [...input.notes].sort(),
    // Outside `default` the namespace is part of the identity: two namespaces' compare runs never share a directory.
    ...namespacedIdentity(namespace),
  ];
  return runIdOfCompare(checkout, sha256(JSON.stringify(identity)));
}

/** `review compare`: bad input is refused before the server is asked anything; then start, resume or attach, and follow. */
export async function runCompare(options: CompareCommandOptions): Promise<void> {
  if (options.resume !== undefined && options.estimate)
    throw new UserError('--estimate estimates a compare run before it starts: give it the options of a new run, without --resume');
  if (options.resume !== undefined) return resumeCompare(options.resume, parseOptions(z.object({ maxCost: maxCostOption }), options).maxCost, options);
  const parsed = parseCompareCommand(options);
  for (const route of parsed.routes.filter((name) => name !== RESULTS_ROUTE)) {
    try {
      checkLaunchInputs({ ...parsed, profile: (parseRoute(route) as { profile: string }).profile });
    } catch (error) {
      throw error instanceof UserError ? new UserError(`route ${route}: ${error.message}`) : error;
    }
  }
  if (options.estimate) return printEstimate(await compareEstimate(parsed), options.json);
  const client = await connectClient();
  await requireSearchAttributes(client);
  const checkout = await knownCheckoutId(parsed.checkout);
  const runId = compareRunId(parsed, checkout, client.options.namespace);
  const handle = client.workflow.getHandle<typeof compareRun>(compareWorkflowId(runId));
  const status = (await handle.describe().catch(() => undefined))?.status.name;
  if (status === 'RUNNING') return resumeAndFollow(client, handle, parsed.maxCostUsd, options);
  if (status === 'COMPLETED') {
    process.stderr.write(`compare run ${runId} has completed; its summary:\n`);
    return follow(handle, compareFormat(client, options));
  }
  // The estimate is the started run's first line, before the checkout's first-use notice.
  process.stderr.write(`${await estimateLineOf(() => compareEstimate(parsed))}\n`);
  await openCheckout(parsed.checkout);
  const started = await startCompare(client, { ...parsed, runId });
  process.stderr.write(`started ${compareWorkflowId(runId)}: ${parsed.routes.join(', ')} on a sample of ${parsed.size} (seed ${parsed.seed})\n`);
  await follow(started, compareFormat(client, options));
}

/** Starts the compare run (or attaches to the open one with this ID) with its search attributes, summary and details. */
async function startCompare(client: Client, given: CompareInput): Promise<WorkflowHandle<typeof compareRun>> {
  const input = await portable(given, given.checkout);
  await warnUnheld(client, given.checkout);
  return client.workflow.start(compareRun, {
    taskQueue: TASK_QUEUE,
    workflowId: compareWorkflowId(input.runId),
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    args: [input],
    memo: memoInWords({ input }),
    staticSummary: markdownText(`compare run ${input.runId}: ${input.routes.join(' vs ')} on ${input.size} pairs (seed ${input.seed})`),
    staticDetails: runDetails(`compare run ${input.runId}`, [
      ['checkout', input.checkout],
      ['routes', input.routes.join(', ')],
      ['reference', input.reference ?? input.routes[0]],
      ['sample', `${input.size} pairs, seed ${input.seed}, at least ${input.perCriterionMin} per criterion`],
      ['criteria', input.criteria.join(' ') || 'every gate, type spec and collection'],
      ['notes', input.notes.join(' ') || 'every reviewable note'],
      ['concurrency', input.concurrency],
      ['max cost', input.maxCostUsd === undefined ? 'none' : `$${input.maxCostUsd}`],
    ]),
    typedSearchAttributes: startingAttributes('compare', input.notes.join(' ') || 'all notes', input.routes.join(',')),
  });
}

/** `review compare --resume RUN`: a stopped run resumes (with a new cap when given), a running one is attached to, a closed one prints its outcome. */
async function resumeCompare(runId: string, maxCostUsd: number | undefined, options: CompareCommandOptions): Promise<void> {
  await knowCheckoutHere(options.kb);
  const client = await connectClient();
  await requireSearchAttributes(client);
  const handle = client.workflow.getHandle<typeof compareRun>(compareWorkflowId(runId));
  const described = await describeOrRefuse(handle, `compare run ${runId}`);
  if (described.status.name === 'RUNNING') return resumeAndFollow(client, handle, maxCostUsd, options);
  return follow(handle, compareFormat(client, options));
}

/** Resumes a stopped run or attaches to a running one, then follows it; a refused resume is a stop still (exit 2). */
async function resumeAndFollow(
  client: Client,
  handle: WorkflowHandle<typeof compareRun>,
  maxCostUsd: number | undefined,
  options: CompareCommandOptions,
): Promise<void> {
  const progress = await handle.query(compareProgressQuery).catch(() => undefined);
  if (progress?.status === 'stopped') {
    process.stderr.write(`resuming ${handle.workflowId} (stopped: ${progress.stops.map((stop) => stop.kind).join(', ')})\n`);
    const refused = await sendResume(handle, compareResumeUpdate, maxCostUsd);
    if (refused !== undefined) throw new UserError(`${formatCompareStop(progress)}\n  not resumed: ${refused}`, 2);
  } else {
    process.stderr.write(`attaching to ${handle.workflowId}${capNotApplied(maxCostUsd)}\n`);
  }
  await follow(handle, compareFormat(client, options));
}
