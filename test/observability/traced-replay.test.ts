/**
 * Switching traces on for open runs: every recorded history (test/histories) replays against the
 * workflow code bundled with the SDK's OpenTelemetry workflow interceptors, as a worker with
 * OTEL_EXPORTER_OTLP_ENDPOINT set bundles it, and a replay exports no workflow span.
 */
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { OpenTelemetryPlugin } from '@temporalio/interceptors-opentelemetry';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { Resource } from '@opentelemetry/resources';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { workflowInterceptorModules, workflowsPath } from '../../src/workflow-code.js';

const dir = join(packageRoot(), 'test', 'histories');
const ids = JSON.parse(readFileSync(join(dir, 'workflow-ids.map'), 'utf8')) as Record<string, string>;
const histories = readdirSync(dir)
  .filter((file) => file.endsWith('.json'))
  .sort();

try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  // Installed already in this test process.
}

test('every recorded history replays on the workflow code bundled with the tracing interceptors, exporting no span', async () => {
  const exporter = new InMemorySpanExporter();
  const plugin = new OpenTelemetryPlugin({ resource: new Resource({ 'service.name': 'replay' }), spanProcessor: new SimpleSpanProcessor(exporter) });
  const { code } = await bundleWorkflowCode({ workflowsPath, workflowInterceptorModules, plugins: [plugin], logger: Runtime.instance().logger });
  expect(code).toContain('OpenTelemetryInboundInterceptor');
  // One replay worker for every history (a worker per history loads the bundle each time): each is replayed
  // under its own workflow ID, and its result names the history it came from.
  const files = new Map(histories.map((file) => [ids[file]!, file]));
  const replayed = Worker.runReplayHistories(
    { workflowBundle: { code }, plugins: [plugin] },
    histories.map((file) => ({ workflowId: ids[file]!, history: historyFromJSON(JSON.parse(readFileSync(join(dir, file), 'utf8'))) })),
  );
  const failed: string[] = [];
  let count = 0;
  for await (const result of replayed) {
    count += 1;
    if (result.error)
      failed.push(`${files.get(result.workflowId) ?? result.workflowId}: ${String((result.error as Error).message ?? result.error).split('\n')[0]}`);
  }
  expect(count).toBe(histories.length);
  expect(failed).toEqual([]);
  expect(exporter.getFinishedSpans()).toEqual([]);
});
