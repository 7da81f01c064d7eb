/** OTLP traces: the SDK's OpenTelemetry interceptors and one GenAI-convention span per launch. Loaded only when traces are on (`tracing-switch.ts`). */
import { SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { envDetectorSync, Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ApplicationFailure } from '@temporalio/common';
import { OpenTelemetryPlugin } from '@temporalio/interceptors-opentelemetry';
import { SimplePlugin } from '@temporalio/plugin';
import type { ActivityInboundCallsInterceptor, ActivityExecuteInput, Next } from '@temporalio/worker';
import type { LaunchInput, LaunchResult } from '../harness/launch-contract.js';
import { launchCost } from '../harness/prices.js';

export interface Tracing {
  /** For `Worker.create`, `bundleWorkflowCode` and `new Client`: the SDK's interceptors and the launch spans. */
  plugins: [OpenTelemetryPlugin, SimplePlugin];
  /** Sends the spans still buffered; called as the process ends. */
  shutdown(): Promise<void>;
}

/** The `gen_ai.provider.name` of an executor: the model's provider where the executor fixes it. */
const PROVIDERS: Record<string, string> = {
  claude: 'anthropic',
  anthropic: 'anthropic',
  codex: 'openai',
  openai: 'openai',
  pi: 'pi',
  fake: 'commonplace.fake',
};

/** Starts the process's tracer provider and exporter, registered as the global one (context and W3C propagation). */
export function startTracing(serviceName: string): Tracing {
  const resource = Resource.default()
    .merge(new Resource({ 'service.name': serviceName }))
    .merge(envDetectorSync.detect());
  const spanProcessor = new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register();
  const tracer = trace.getTracer('commonplace');
  const launchSpans = new SimplePlugin({
    name: 'CommonplaceLaunchSpans',
    workerInterceptors: { activity: [() => ({ inbound: new LaunchSpanInterceptor() })] },
  });
  let ended = false;
  const shutdown = async () => {
    if (ended) return;
    ended = true;
    await provider.shutdown().catch(() => undefined);
  };
  // A CLI command ends by emptying its event loop: the buffered spans go out first.
  process.once('beforeExit', () => void shutdown());
  return { plugins: [new OpenTelemetryPlugin({ resource, spanProcessor, tracer }), launchSpans], shutdown };
}

/** Wraps the launch activity in a span named by the GenAI conventions, `invoke_agent <model>` for a CLI, `chat <model>` for a model API. */
class LaunchSpanInterceptor implements ActivityInboundCallsInterceptor {
  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const launch = input.args[0] as LaunchInput | undefined;
    if (launch?.profile === undefined || typeof launch.launchId !== 'string') return next(input);
    const { profile } = launch;
    const api = profile.harness === 'anthropic' || profile.harness === 'openai';
    const operation = api ? 'chat' : 'invoke_agent';
    const attributes: Attributes = {
      'gen_ai.operation.name': operation,
      'gen_ai.provider.name': PROVIDERS[profile.harness] ?? profile.harness,
      ...(profile.model !== undefined && { 'gen_ai.request.model': profile.model }),
      'commonplace.launch.id': launch.launchId,
      'commonplace.profile': profile.name,
      'commonplace.executor': profile.harness,
    };
    return trace
      .getTracer('commonplace')
      .startActiveSpan(`${operation} ${profile.model ?? profile.name}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
        try {
          const result = (await next(input)) as LaunchResult;
          describeResult(span, result);
          return result;
        } catch (error) {
          const outcome = error instanceof ApplicationFailure && error.type ? error.type : 'failed';
          span.setAttribute('commonplace.launch.outcome', outcome === 'launch-exit' ? 'launch-failed' : outcome);
          span.setAttribute('error.type', outcome);
          span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message.split('\n')[0] });
          throw error;
        } finally {
          span.end();
        }
      });
  }
}

/** A launch that ran to an end: its model, tokens, cost and outcome on its span. */
function describeResult(span: Span, result: LaunchResult): void {
  const outcome = result.timedOut ? 'timed-out' : result.missing.length > 0 ? 'incomplete' : 'completed';
  span.setAttribute('commonplace.launch.outcome', outcome);
  span.setAttribute('commonplace.launch.try', result.try);
  if (result.model !== null) span.setAttribute('gen_ai.response.model', result.model);
  if (result.usage !== null) {
    span.setAttribute('gen_ai.usage.input_tokens', result.usage.inputTokens);
    span.setAttribute('gen_ai.usage.output_tokens', result.usage.outputTokens);
    if (result.usage.cacheReadTokens !== undefined) span.setAttribute('gen_ai.usage.cache_read.input_tokens', result.usage.cacheReadTokens);
    if (result.usage.cacheWriteTokens !== undefined) span.setAttribute('gen_ai.usage.cache_creation.input_tokens', result.usage.cacheWriteTokens);
  }
  const { costUsd, source } = launchCost(result);
  if (costUsd !== null) {
    span.setAttribute('commonplace.launch.cost_usd', costUsd);
    span.setAttribute('commonplace.launch.cost_source', source);
  }
  if (outcome !== 'completed') span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
}
