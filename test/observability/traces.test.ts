/**
 * Traces: with OTEL_EXPORTER_OTLP_ENDPOINT set, the CLI and the real worker export spans over OTLP/HTTP
 * (JSON) to a receiver stand-in served by this test; a sweep on the fake harness gives one launch span
 * per launch, with the GenAI attributes, under the SDK's workflow and activity spans of the same trace.
 * Without the variable neither the OpenTelemetry SDK nor the interceptors are loaded.
 */
import { execa } from 'execa';
import { createServer, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { cliPath, runCli } from '../helpers/cli.js';
import { readLedger, waitFor } from '../helpers/fake.js';
import { watchedWorker } from '../helpers/hosts.js';
import { useDevServer } from '../helpers/servers.js';
import { fakeSweep } from '../helpers/sweep.js';

const { address } = useDevServer();

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: { key: string; value: OtlpValue }[];
}
interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  attributes: Record<string, string | number | boolean>;
}

/** The OTLP receiver stand-in: every span POSTed to /v1/traces as JSON, with its resource's service name. */
async function otlpReceiver(): Promise<{ server: Server; url: string; spans: ReceivedSpan[] }> {
  const spans: ReceivedSpan[] = [];
  const value = (v: OtlpValue) => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.doubleValue ?? v.boolValue ?? ''));
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      if (request.url !== '/v1/traces' || !String(request.headers['content-type']).startsWith('application/json')) {
        response.writeHead(415).end();
        return;
      }
      const payload = JSON.parse(body) as {
        resourceSpans?: { resource?: { attributes?: { key: string; value: OtlpValue }[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
      };
      for (const resourceSpans of payload.resourceSpans ?? []) {
        const service = String(value(resourceSpans.resource?.attributes?.find((attribute) => attribute.key === 'service.name')?.value ?? {}));
        for (const span of (resourceSpans.scopeSpans ?? []).flatMap((scope) => scope.spans ?? [])) {
          spans.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId || undefined,
            name: span.name,
            attributes: Object.fromEntries((span.attributes ?? []).map((attribute) => [attribute.key, value(attribute.value)])),
          });
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { server, url: `http://127.0.0.1:${port}`, spans };
}

/** The real worker, its module resolutions recorded (test/helpers/load-trace.mjs), with the environment given. */
function tracedWorker(args: string[], env: Record<string, string>, loadTrace: string) {
  return watchedWorker(
    execa('node', ['--import', join(packageRoot(), 'test', 'helpers', 'load-trace.mjs'), cliPath, 'worker', ...args], {
      env: { TEMPORAL_ADDRESS: address(), COMMONPLACE_LOAD_TRACE: loadTrace, ...env },
      reject: false,
    }),
  );
}

/** What tracing loads: the OpenTelemetry SDK, exporter and the Temporal interceptors (not `@opentelemetry/api`, which a model API's SDK may load for itself). */
const loadsOpenTelemetry = (urls: string[]) =>
  urls.filter((url) => /@opentelemetry\/(?!api\/)|interceptors-opentelemetry|observability\/tracing\.js/.test(url));

async function sweepOnce(otel: Record<string, string>) {
  const { checkout, dir, ledger, command } = await fakeSweep([{ attempts: [{ review: 'pass', tokens: { input: 900, output: 80 }, costUsd: 0.01 }] }], {
    notes: 2,
    gates: ['frontmatter/title-as-claim'],
  });
  const loadTrace = join(dir, 'loaded.txt');
  const worker = tracedWorker(['--kb', checkout, '--state', join(dir, 'state')], otel, loadTrace);
  await worker.said(/worker ready/);
  const sweep = await runCli(command({}, '--json'), { env: { TEMPORAL_ADDRESS: address(), ...otel } });
  expect(sweep.exitCode).toBe(0);
  const workflowId = (JSON.parse(String(sweep.stdout)) as { workflowId: string }).workflowId;
  const launches = (await readLedger(ledger)).filter((entry) => entry.event === 'end').length;
  return { worker, workflowId, launches, loaded: async () => (await readFile(loadTrace, 'utf8')).split('\n').filter(Boolean) };
}

describe('traces over OTLP', () => {
  test("a sweep with OTEL_EXPORTER_OTLP_ENDPOINT set gives one GenAI launch span per launch, under the activity and workflow spans of the CLI's trace", async () => {
    const receiver = await otlpReceiver();
    try {
      const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '200' };
      const { worker, launches, loaded } = await sweepOnce(otel);
      const launchSpans = () => receiver.spans.filter((span) => span.attributes['commonplace.launch.id'] !== undefined);
      // The batch's workflow span ends with the batch, and is exported after it: wait for both.
      await waitFor(
        `${launches} launch spans and the batch's workflow span`,
        async () => launchSpans().length >= launches && receiver.spans.some((span) => span.name === 'RunWorkflow:gateBatch'),
        60_000,
      );
      worker.process.kill('SIGINT');
      await worker.process;

      expect(launchSpans()).toHaveLength(launches);
      for (const span of launchSpans()) {
        expect(span.name).toMatch(/^invoke_agent /);
        expect(span.service).toBe('commonplace-worker');
        expect(span.attributes).toMatchObject({
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.provider.name': 'commonplace.fake',
          'gen_ai.usage.input_tokens': 900,
          'gen_ai.usage.output_tokens': 80,
          'commonplace.launch.cost_usd': 0.01,
          'commonplace.launch.outcome': 'completed',
          'commonplace.profile': 'fake',
        });
        expect(String(span.attributes['commonplace.launch.id'])).toMatch(/^GS-/);
        // Its parent is the SDK's activity span, whose parent is the workflow's schedule of it.
        const activity = receiver.spans.find((candidate) => candidate.spanId === span.parentSpanId);
        expect(activity?.name).toBe('RunActivity:launch');
        const scheduled = receiver.spans.find((candidate) => candidate.spanId === activity?.parentSpanId);
        expect(scheduled?.name).toBe('StartActivity:launch');
      }
      // The CLI's start of the sweep begins the trace every launch span belongs to.
      const start = receiver.spans.find((span) => span.name === 'StartWorkflow:gateSweep');
      expect(start?.service).toBe('commonplace-cli');
      expect(new Set(launchSpans().map((span) => span.traceId))).toEqual(new Set([start?.traceId]));
      expect(receiver.spans.some((span) => span.name === 'RunWorkflow:gateBatch' && span.traceId === start?.traceId)).toBe(true);
      expect(loadsOpenTelemetry(await loaded()).length).toBeGreaterThan(0);
    } finally {
      receiver.server.close();
    }
  });

  test("without an OTLP endpoint the worker loads neither the OpenTelemetry SDK nor the interceptors; a worker whose launches are the fake harness's loads no model API's SDK", async () => {
    const { worker, loaded } = await sweepOnce({});
    worker.process.kill('SIGINT');
    await worker.process;
    const urls = await loaded();
    expect(loadsOpenTelemetry(urls)).toEqual([]);
    // The SDKs load with a model API's first request or batch (src/harness/sdks.ts), not with the worker.
    expect(urls.filter((url) => /\/node_modules\/(@anthropic-ai\/sdk|openai)\//.test(url))).toEqual([]);
    expect(urls.filter((url) => /\/node_modules\/@temporalio\/worker\//.test(url))).not.toEqual([]);
  });
});
