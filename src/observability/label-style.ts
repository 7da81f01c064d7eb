/**
 * Metric tag keys reach the exporter in snake_case, as the SDK's core names its own labels: the TypeScript SDK tags
 * workflow and activity metrics in camelCase (`taskQueue`), so the runtime's meter is wrapped once. docs/observability.md.
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

const snakeKey = (key: string): string => key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/** A snake_case key given beside its camelCase twin wins. */
function snakeTags(tags: MetricTags | undefined): MetricTags | undefined {
  if (tags === undefined) return undefined;
  const renamed: MetricTags = {};
  for (const [key, value] of Object.entries(tags)) if (snakeKey(key) !== key) renamed[snakeKey(key)] = value;
  for (const [key, value] of Object.entries(tags)) if (snakeKey(key) === key) renamed[key] = value;
  return renamed;
}

type Recorder = Record<'add' | 'record' | 'set', (value: number, tags?: MetricTags) => void>;

/** `metric` whose `method` hands its tags on in snake_case. */
function snakeCased<M extends MetricCounter | MetricHistogram | MetricGauge>(metric: M, method: keyof Recorder, withTags: (tags: MetricTags) => M): M {
  const { name, unit, description, kind, valueType } = metric;
  const inner = metric as unknown as Recorder;
  return {
    name,
    unit,
    description,
    kind,
    valueType,
    [method]: (value: number, tags?: MetricTags) => inner[method](value, snakeTags(tags)),
    withTags,
  } as unknown as M;
}

class SnakeCaseMeter implements MetricMeter {
  constructor(private readonly inner: MetricMeter) {}

  createCounter(name: string, unit?: string, description?: string): MetricCounter {
    return snakeCased(this.inner.createCounter(name, unit, description), 'add', (tags) => this.withTags(tags).createCounter(name, unit, description));
  }

  createHistogram(name: string, valueType?: NumericMetricValueType, unit?: string, description?: string): MetricHistogram {
    const histogram = this.inner.createHistogram(name, valueType, unit, description);
    return snakeCased(histogram, 'record', (tags) => this.withTags(tags).createHistogram(name, valueType, unit, description));
  }

  createGauge(name: string, valueType?: NumericMetricValueType, unit?: string, description?: string): MetricGauge {
    return snakeCased(this.inner.createGauge(name, valueType, unit, description), 'set', (tags) =>
      this.withTags(tags).createGauge(name, valueType, unit, description),
    );
  }

  withTags(tags: MetricTags): MetricMeter {
    return MetricMeterWithComposedTags.compose(this, tags);
  }
}

/** Call before any worker is created: a worker takes the meter when it is made. */
export function snakeCaseRuntimeMeter(runtime: { metricMeter: MetricMeter }): void {
  Object.defineProperty(runtime, 'metricMeter', { value: new SnakeCaseMeter(runtime.metricMeter), configurable: true, enumerable: true });
}
