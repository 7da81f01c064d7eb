/** With no OTLP endpoint set, nothing of OpenTelemetry is imported: the worker and client run exactly as without it. */
import type { Tracing } from './tracing.js';

/** On when an OTLP endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT` or its traces-only form) and neither `OTEL_SDK_DISABLED=true` nor `OTEL_TRACES_EXPORTER=none` turns it off. */
export function tracingWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  const endpoint = (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '').trim();
  if (endpoint === '') return false;
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  return !(env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim())
    .includes('none');
}

let started: Promise<Tracing> | undefined;

/** The process's tracing (one tracer provider, exporting over OTLP/HTTP), started on first use; undefined when traces are off. */
export async function processTracing(serviceName: string): Promise<Tracing | undefined> {
  if (!tracingWanted()) return undefined;
  started ??= import('./tracing.js').then(({ startTracing }) => startTracing(serviceName));
  return started;
}
