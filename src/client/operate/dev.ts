import type { Command } from 'commander';
import { join, resolve } from 'node:path';
import { action, UserError } from '../shared/errors.js';
import { examples } from '../shared/help-text.js';
import { kbDirectories } from './worker-options.js';

export interface DevOptions {
  state: string;
  port: string;
  uiPort: string;
  kb: string[];
  kbList?: string;
  metrics?: string;
}

/** A port option as a number, or the one-line error naming the flag. */
export function portOption(value: string, flag: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port < 1 || port > 65535) throw new UserError(`${flag} must be a port number from 1 to 65535, got "${value}"`);
  return port;
}

/** `commonplace dev`: the embedded default — a local Temporal dev server and a worker, until Ctrl-C. */
export function registerDev(program: Command): void {
  program
    .command('dev')
    .description('start a local Temporal dev server (SQLite under the state directory, with the Web UI) and a worker, until Ctrl-C')
    .option('--state <dir>', 'directory for the SQLite file and run state', '.commonplace')
    .option('--port <port>', 'gRPC port of the dev server', '7233')
    .option('--ui-port <port>', 'port of the Web UI', '8233')
    .option(
      '--kb <dir>',
      'a KB checkout the worker holds (repeatable; also COMMONPLACE_KB; default: the checkout of the current directory, if any)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option('--kb-list <file>', 'a file of checkout directories, one per line, held as they are added (COMMONPLACE_KB_LIST)', process.env.COMMONPLACE_KB_LIST)
    .option(
      '--metrics <addr>',
      "serve the worker's Prometheus metrics at PORT (on 127.0.0.1) or HOST:PORT, path /metrics (COMMONPLACE_METRICS)",
      process.env.COMMONPLACE_METRICS,
    )
    .addHelpText('after', examples('commonplace dev', 'commonplace dev --state .commonplace/demo --port 7300 --ui-port 8300', 'commonplace dev --metrics 9464'))
    .action(
      action(async (options: DevOptions) => {
        const port = portOption(options.port, '--port');
        const uiPort = portOption(options.uiPort, '--ui-port');
        if (port === uiPort) throw new UserError(`--port and --ui-port must differ, both are ${port}`);
        const stateDir = resolve(options.state);
        // Said before the Temporal SDK loads, which takes seconds on a busy machine.
        process.stderr.write(`starting the Temporal dev server (state ${join(stateDir, 'temporal.db')})...\n`);
        await (
          await import('./dev-run.js')
        ).runDev({
          stateDir,
          port,
          uiPort,
          kb: kbDirectories(options.kb),
          ...(options.kbList !== undefined && { kbList: options.kbList }),
          ...(options.metrics !== undefined && { metrics: options.metrics }),
        });
      }),
    );
}
