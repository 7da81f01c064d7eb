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
import { workflowInterceptorModules, workflowsPath } from '../../src/worker.js';

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
  const failed: string[] = [];
  for (const file of histories) {
    const history = historyFromJSON(JSON.parse(readFileSync(join(dir, file), 'utf8')));
    await Worker.runReplayHistory({ workflowBundle: { code }, plugins: [plugin] }, history, ids[file]).catch((error: Error) =>
      failed.push(`${file}: ${error.message.split('\n')[0]}`),
    );
  }
  expect(failed).toEqual([]);
  expect(exporter.getFinishedSpans()).toEqual([]);
});
