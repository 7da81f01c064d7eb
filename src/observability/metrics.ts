/**
 * The project's own metrics, defined once. Workflows record through `@temporalio/workflow`'s `metricMeter` (which drops
 * records made in replay), activities through `Context.current().metricMeter`. docs/observability.md says what each answers.
 * Labels are bounded (no run, launch or workflow ID, no note path), snake_case like the SDK's, and none repeats one the
 * SDK adds. PURE MODULE: workflows import it.
 */
import type { MetricMeter, MetricTags } from '@temporalio/common';
import type { AskOutcome, BilledTry, LaunchResult, TokenUsage } from '../harness/launch-contract.js';
import { launchCost } from '../harness/prices.js';
import { opensAt as gateOpensAt, type QuotaState } from '../runs/quota.js';
import type { Stop } from '../runs/stop.js';
import type { SpendTotals } from '../runs/spend.js';
import { CRITIQUE_INSTRUCTION, isPathCriterion } from '../review/paths.js';

export type MetricKind = 'counter' | 'histogram' | 'gauge';

export interface MetricDefinition {
  name: string;
  kind: MetricKind;
  valueType: 'int' | 'float';
  unit: string;
  description: string;
  labels: readonly string[];
}

const define = <const L extends readonly string[]>(name: string, kind: MetricKind, valueType: 'int' | 'float', unit: string, labels: L, description: string) =>
  ({ name, kind, valueType, unit, labels, description }) satisfies MetricDefinition;

const counter = <const L extends readonly string[]>(name: string, labels: L, description: string) => define(name, 'counter', 'int', '', labels, description);
const histogram = <const L extends readonly string[]>(name: string, unit: string, labels: L, description: string) =>
  define(name, 'histogram', 'float', unit, labels, description);

/** Every metric the project records, by key. */
export const METRICS = {
  launches: counter(
    'commonplace_launches_total',
    ['executor', 'profile', 'model', 'outcome'],
    'Launches that came to an outcome (completed, incomplete, timed-out, usage-limit, launch-failed)',
  ),
  launchDuration: histogram('commonplace_launch_duration_seconds', 's', ['executor', 'profile', 'outcome'], 'How long a launch that ran to an end took'),
  tokens: counter(
    'commonplace_tokens_total',
    ['executor', 'profile', 'model', 'kind'],
    'Tokens launches used, by kind (input, output, cache_read, cache_write)',
  ),
  cost: histogram('commonplace_launch_cost_usd', 'USD', ['profile', 'model'], 'Dollars per launch (harness-reported or priced); its _sum is the spend'),
  usageLimits: counter('commonplace_usage_limits_total', ['executor', 'account'], 'Launches that came to a usage limit'),
  pairsReviewed: counter(
    'commonplace_pairs_reviewed_total',
    ['criterion_kind', 'verdict'],
    'Review pairs whose result file was written, by criterion kind and verdict',
  ),
  stops: counter('commonplace_stops_total', ['kind', 'disposition'], 'Runs that stopped, by stop kind and what it waits for (retry, inspect, operator)'),
  quotaGateClosed: define('commonplace_quota_gate_closed', 'gauge', 'int', '', ['account'], "1 while the account's quota gate is closed, 0 while open"),
  quotaGateOpensAt: define(
    'commonplace_quota_gate_opens_at_seconds',
    'gauge',
    'float',
    's',
    ['account'],
    'Unix time the closed gate said it opens (the reset plus its margin, or the probe); 0 while open',
  ),
  quotaGateClosedSeconds: counter(
    'commonplace_quota_gate_closed_seconds_total',
    ['account'],
    "Seconds the account's quota gate was closed, added when it opens",
  ),
  spendCapUsed: define(
    'commonplace_spend_cap_used_ratio',
    'gauge',
    'float',
    '',
    [],
    "The latest capped run's spend as a fraction of its --max-cost, per workflow type (the SDK's workflow_type label)",
  ),
  batchRequestsPending: define(
    'commonplace_batch_requests_pending',
    'gauge',
    'int',
    '',
    ['provider', 'profile'],
    'Provider batch requests submitted and not yet collected',
  ),
} as const;

export type MetricKey = keyof typeof METRICS;

/** The SDK's runtime metrics the dashboard and alert rules read, served once a worker has run a workflow and an activity (latencies in ms). */
export const SDK_METRICS: readonly Pick<MetricDefinition, 'name' | 'kind'>[] = [
  { name: 'temporal_activity_schedule_to_start_latency', kind: 'histogram' },
  { name: 'temporal_workflow_task_schedule_to_start_latency', kind: 'histogram' },
  { name: 'temporal_activity_execution_latency', kind: 'histogram' },
  { name: 'temporal_workflow_task_execution_latency', kind: 'histogram' },
  { name: 'temporal_workflow_task_replay_latency', kind: 'histogram' },
  { name: 'temporal_worker_task_slots_available', kind: 'gauge' },
  { name: 'temporal_worker_task_slots_used', kind: 'gauge' },
  { name: 'temporal_sticky_cache_size', kind: 'gauge' },
  { name: 'temporal_sticky_cache_hit_total', kind: 'counter' },
  { name: 'temporal_num_pollers', kind: 'gauge' },
  { name: 'temporal_workflow_completed_total', kind: 'counter' },
  { name: 'temporal_request_total', kind: 'counter' },
];

/** Histogram buckets fitted to what is measured (the exporter's default, 50 to 10,000, fits milliseconds). */
export const HISTOGRAM_BUCKETS: Record<string, number[]> = {
  [METRICS.launchDuration.name]: [1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200],
  [METRICS.cost.name]: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
};
type LabelsOf<K extends MetricKey> = Record<(typeof METRICS)[K]['labels'][number], string>;

/** The names the worker's endpoint serves a metric under: a histogram's `_bucket`, `_sum` and `_count`; a counter's name ends in `_total`. */
export function exportedNames(definition: Pick<MetricDefinition, 'name' | 'kind'>): string[] {
  if (definition.kind === 'histogram') return ['_bucket', '_sum', '_count'].map((suffix) => `${definition.name}${suffix}`);
  return [definition.name];
}

/** A label value kept short and plain: a model or profile name as written, never more than 80 characters. */
function label(value: string | null | undefined): string {
  if (value === null || value === undefined || value === '') return 'none';
  return value.length > 80 ? value.slice(0, 80) : value;
}

function tags<K extends MetricKey>(_key: K, values: LabelsOf<K>): MetricTags {
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [name, label(value as string)]));
}

/** A counter is created without its `_total`: the exporter adds it (`countersTotalSuffix`, src/client/shared/runtime.ts). */
export const createdName = (definition: Pick<MetricDefinition, 'name' | 'kind'>): string =>
  definition.kind === 'counter' ? definition.name.replace(/_total$/, '') : definition.name;

const meterCounter = (meter: MetricMeter, key: MetricKey) =>
  meter.createCounter(createdName(METRICS[key]), METRICS[key].unit || undefined, METRICS[key].description);
const meterHistogram = (meter: MetricMeter, key: MetricKey) =>
  meter.createHistogram(METRICS[key].name, METRICS[key].valueType, METRICS[key].unit || undefined, METRICS[key].description);
const meterGauge = (meter: MetricMeter, key: MetricKey) =>
  meter.createGauge(METRICS[key].name, METRICS[key].valueType, METRICS[key].unit || undefined, METRICS[key].description);

type Profile = { name: string; harness: string; model?: string };

/** The tokens and dollars one billed request (or a provider batch's sum) spent; `costUsd` null when unpriced. */
function recordSpend(meter: MetricMeter, profile: Profile, model: string, tokens: Record<string, number | undefined>, costUsd: number | null): void {
  for (const [kind, count] of Object.entries(tokens)) {
    if (count !== undefined && count > 0)
      meterCounter(meter, 'tokens').add(Math.round(count), tags('tokens', { executor: profile.harness, profile: profile.name, model, kind }));
  }
  if (costUsd !== null) meterHistogram(meter, 'cost').record(costUsd, tags('cost', { profile: profile.name, model }));
}

const usageTokens = (usage: TokenUsage | null) => ({
  input: usage?.inputTokens,
  output: usage?.outputTokens,
  cache_read: usage?.cacheReadTokens,
  cache_write: usage?.cacheWriteTokens,
});

/** Records one ask that launched: its outcome, and for a launch that ran to an end its duration, tokens and cost. */
export function recordLaunch(meter: MetricMeter, profile: Profile, outcome: AskOutcome, account?: string): void {
  const result: LaunchResult | undefined = 'result' in outcome ? outcome.result : undefined;
  const executor = profile.harness;
  const model = label(result?.model ?? profile.model ?? null);
  meterCounter(meter, 'launches').add(1, tags('launches', { executor, profile: profile.name, model, outcome: outcome.status }));
  if (outcome.status === 'usage-limit') {
    meterCounter(meter, 'usageLimits').add(1, tags('usageLimits', { executor, account: label(outcome.account ?? account ?? profile.name) }));
  }
  if (result === undefined) return;
  meterHistogram(meter, 'launchDuration').record(
    result.durationMs / 1000,
    tags('launchDuration', { executor, profile: profile.name, outcome: outcome.status }),
  );
  recordSpend(meter, profile, model, usageTokens(result.usage), launchCost(result).costUsd);
}

/** Tries billed besides a counted launch (relaunched after a malformed answer, or a failed launch's): spend counts every billed request. */
export function recordBilled(meter: MetricMeter, profile: Profile, billed: readonly BilledTry[]): void {
  for (const each of billed) recordSpend(meter, profile, label(each.model ?? profile.model ?? null), usageTokens(each.usage), launchCost(each).costUsd);
}

/** A provider batch's collected results, recorded once as the launches, tokens and cost they were billed. */
export function recordBilledTotals(meter: MetricMeter, profile: Profile, billed: SpendTotals): void {
  if (billed.launches === 0) return;
  const model = label(profile.model ?? null);
  meterCounter(meter, 'launches').add(billed.launches, tags('launches', { executor: profile.harness, profile: profile.name, model, outcome: 'completed' }));
  const tokens = billed.tokens ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  const { input, output, cacheRead: cache_read, cacheWrite: cache_write } = tokens;
  recordSpend(meter, profile, model, { input, output, cache_read, cache_write }, billed.costUsd > 0 ? billed.costUsd : null);
}

/** The `criterion_kind` label of a criterion ID, from its shape alone (gate IDs are `{lens}/{name}`, the others KB paths). */
export function criterionKindOf(id: string): 'gate' | 'type-spec' | 'collection' | 'instruction' {
  if (!isPathCriterion(id)) return 'gate';
  if (id === CRITIQUE_INSTRUCTION) return 'instruction';
  return id === 'COLLECTION.md' || id.endsWith('/COLLECTION.md') ? 'collection' : 'type-spec';
}

/** Records the pairs one accepted answer wrote, each by its criterion's kind and its verdict (`pass`, `warn`, `fail`, `report`). */
export function recordPairsReviewed(meter: MetricMeter, written: readonly { criterion: string; outcome: string }[]): void {
  const reviewed = meterCounter(meter, 'pairsReviewed');
  for (const pair of written) reviewed.add(1, tags('pairsReviewed', { criterion_kind: criterionKindOf(pair.criterion), verdict: pair.outcome }));
}

/** Records a run's stop by its kind and disposition. */
export function recordStop(meter: MetricMeter, stop: Pick<Stop, 'kind' | 'disposition'>): void {
  meterCounter(meter, 'stops').add(1, tags('stops', { kind: stop.kind, disposition: stop.disposition }));
}

/** Records a quota gate's state after a transition; on opening, the seconds it was closed (from the closure's `since` to `now`). */
export function recordQuotaGate(meter: MetricMeter, previous: QuotaState | undefined, state: QuotaState, now: number): void {
  const account = { account: label(state.account) };
  meterGauge(meter, 'quotaGateClosed').set(state.status === 'open' ? 0 : 1, tags('quotaGateClosed', account));
  const opensAt = gateOpensAt(state) ?? 0;
  meterGauge(meter, 'quotaGateOpensAt').set(Number.isFinite(opensAt) ? opensAt / 1000 : 0, tags('quotaGateOpensAt', account));
  if (previous !== undefined && previous.status !== 'open' && state.status === 'open') {
    const closedMs = now - Date.parse(previous.since);
    if (Number.isFinite(closedMs) && closedMs > 0)
      meterCounter(meter, 'quotaGateClosedSeconds').add(Math.round(closedMs / 1000), tags('quotaGateClosedSeconds', account));
  }
}

/** Records a capped run's spend as a fraction of its cap (nothing for a run without a cap). */
export function recordSpendCap(meter: MetricMeter, spentUsd: number, capUsd: number | undefined): void {
  if (capUsd === undefined || capUsd <= 0) return;
  // The workflow's type is the SDK's own label (workflow_type): a label of ours for it would repeat it.
  meterGauge(meter, 'spendCapUsed').set(spentUsd / capUsd, tags('spendCapUsed', {}));
}

/** Set after a batch is submitted (its request count) and after it is collected or cancelled (0). */
export function recordBatchRequestsPending(meter: MetricMeter, provider: string, profile: string, pending: number): void {
  meterGauge(meter, 'batchRequestsPending').set(pending, tags('batchRequestsPending', { provider, profile }));
}
