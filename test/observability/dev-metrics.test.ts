/** `commonplace dev --metrics`: the embedded default prints its metrics URL with the others and serves the worker's metrics there. */
import { runCli, startDev } from '../helpers/cli.js';
import { scratch, waitFor } from '../helpers/fake.js';
import { freePort } from '../helpers/ports.js';
import { scrape, total } from '../helpers/prometheus.js';
import { METRICS } from '../../src/observability/metrics.js';

test('commonplace dev --metrics prints the metrics URL and serves the launch a probe ran there', async () => {
  const metricsPort = await freePort();
  const { dev, port, output } = await startDev('--metrics', String(metricsPort));
  try {
    const url = `http://127.0.0.1:${metricsPort}/metrics`;
    expect(output()).toContain(`metrics:             ${url} (Prometheus)`);
    const probe = await runCli(['probe', '--profile', 'fake'], { env: { TEMPORAL_ADDRESS: `127.0.0.1:${port}` } });
    expect(probe.exitCode).toBe(0);
    await waitFor(
      "the probe's launch to be counted",
      async () => total(await scrape(url), METRICS.launches.name, { executor: 'fake', outcome: 'completed' }) === 1,
      30_000,
    );
    dev.kill('SIGINT');
    expect((await dev).exitCode).toBe(0);
  } finally {
    if (dev.exitCode === null) dev.kill('SIGKILL');
  }
});

test('commonplace dev --metrics on a port another process holds fails in one line naming it, and starts no server', async () => {
  const { createServer } = await import('node:net');
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const taken = (holder.address() as { port: number }).port;
  try {
    const dev = await runCli([
      'dev',
      '--state',
      await scratch(),
      '--port',
      String(await freePort()),
      '--ui-port',
      String(await freePort()),
      '--metrics',
      String(taken),
    ]);
    expect(dev.exitCode).toBe(1);
    expect(String(dev.stderr).trim().split('\n').at(-1)).toMatch(
      new RegExp(`^commonplace: --metrics 127\\.0\\.0\\.1:${taken}: cannot serve metrics there \\(.*\\); choose a free port$`),
    );
    expect(String(dev.stderr)).not.toContain('Temporal dev server:');
  } finally {
    holder.close();
  }
});
