/**
 * One label style on the worker's endpoint: snake_case, as the SDK's core names its own labels
 * (`task_queue`, `workflow_type`, `activity_type`, `namespace`). The TypeScript SDK tags the metrics a
 * workflow or an activity records through its meters in camelCase (`taskQueue`, `workflowType`,
 * `activityType`); the runtime's meter is wrapped once so every tag key reaches the exporter in
 * snake_case, whichever layer added it. docs/observability.md, "Labels".
 */
import {
  MetricMeterWithComposedTags,
  type MetricCounter,
  type MetricGauge,
  type MetricHistogram,
  type MetricMeter,
  type MetricTags,
  type NumericMetricValueType,
} from '@temporalio/common';

/** A tag key in snake_case: `taskQueue` → `task_queue`; a key already so is kept. */
export const snakeKey = (key: string): string => key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/** The tags with every key in snake_case (a snake_case key given beside its camelCase twin wins). */
export function snakeTags(tags: MetricTags | undefined): MetricTags | undefined {
  if (tags === undefined) return undefined;
  const renamed: MetricTags = {};
  for (const [key, value] of Object.entries(tags)) if (snakeKey(key) !== key) renamed[snakeKey(key)] = value;
  for (const [key, value] of Object.entries(tags)) if (snakeKey(key) === key) renamed[key] = value;
  return renamed;
}

/** A meter that hands every record to `inner` with its tags' keys in snake_case. */
export class SnakeCaseMeter implements MetricMeter {
  constructor(private readonly inner: MetricMeter) {}

  createCounter(name: string, unit?: string, description?: string): MetricCounter {
    const counter = this.inner.createCounter(name, unit, description);
    return {
      name: counter.name,
      unit: counter.unit,
      description: counter.description,
      kind: 'counter',
      valueType: 'int',
      add: (value, tags) => counter.add(value, snakeTags(tags)),
      withTags: (tags) => MetricMeterWithComposedTags.compose(this, tags).createCounter(name, unit, description),
    } as MetricCounter;
  }

  createHistogram(name: string, valueType?: NumericMetricValueType, unit?: string, description?: string): MetricHistogram {
    const histogram = this.inner.createHistogram(name, valueType, unit, description);
    return {
      name: histogram.name,
      unit: histogram.unit,
      description: histogram.description,
      kind: 'histogram',
      valueType: histogram.valueType,
      record: (value, tags) => histogram.record(value, snakeTags(tags)),
      withTags: (tags) => MetricMeterWithComposedTags.compose(this, tags).createHistogram(name, valueType, unit, description),
    } as MetricHistogram;
  }

  createGauge(name: string, valueType?: NumericMetricValueType, unit?: string, description?: string): MetricGauge {
    const gauge = this.inner.createGauge(name, valueType, unit, description);
    return {
      name: gauge.name,
      unit: gauge.unit,
      description: gauge.description,
      kind: 'gauge',
      valueType: gauge.valueType,
      set: (value, tags) => gauge.set(value, snakeTags(tags)),
      withTags: (tags) => MetricMeterWithComposedTags.compose(this, tags).createGauge(name, valueType, unit, description),
    } as MetricGauge;
  }

  withTags(tags: MetricTags): MetricMeter {
    return MetricMeterWithComposedTags.compose(this, tags);
  }
}

/** Wraps the installed runtime's meter (before any worker is created: a worker takes the meter when it is made). */
export function snakeCaseRuntimeMeter(runtime: { metricMeter: MetricMeter }): void {
  Object.defineProperty(runtime, 'metricMeter', { value: new SnakeCaseMeter(runtime.metricMeter), configurable: true, enumerable: true });
}
