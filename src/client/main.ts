import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { registerDev } from './operate/dev.js';
import { registerProbe } from './operate/probe.js';
import { registerWorker } from './operate/worker.js';
import { registerValidate } from './operate/validate.js';
import { registerReview } from './review/review.js';
import { registerAnalysis } from './analysis/analysis.js';
import { registerQuota } from './operate/quota.js';
import { registerUpgrade } from './operate/upgrade.js';
import { packageRoot } from '../paths.js';
import { setConnectionOverrides, type ConnectionOverrides } from './shared/connection-overrides.js';
import { quietOnClosedPipe } from './shared/exit.js';

/** How bin/commonplace.js ends the process once a command has run. */
export { exitOnceWritten } from './shared/exit.js';

const packageVersion = (): string => (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;

/** Builds the operator CLI; each command module registers itself. */
export function buildProgram(): Command {
  const program = new Command('commonplace')
    .description('Upkeep of a Commonplace knowledge base as durable Temporal workflows')
    .version(packageVersion(), '-V, --version', 'print the version of commonplace')
    .option('--debug', 'print stack traces with errors')
    .option('--address <host:port>', "Temporal frontend to connect to (else TEMPORAL_ADDRESS, the profile's address, 127.0.0.1:7233)")
    .option('--namespace <namespace>', "Temporal namespace (else TEMPORAL_NAMESPACE, the profile's namespace, default)")
    .option('--profile-name <name>', 'connection profile in temporal.toml (else TEMPORAL_PROFILE, then "default")')
    .option('--config-file <file>', 'temporal.toml to read profiles from (else TEMPORAL_CONFIG_FILE, then ~/.config/temporalio/temporal.toml)')
    .hook('preAction', (command) => {
      const { address, namespace, profileName, configFile } = command.opts<ConnectionOverrides>();
      setConnectionOverrides({ address, namespace, profileName, configFile });
    })
    .exitOverride((error) => {
      process.exitCode = error.exitCode === 0 ? 0 : 1;
      throw error;
    });
  for (const register of [registerDev, registerWorker, registerProbe, registerValidate, registerReview, registerAnalysis, registerQuota, registerUpgrade])
    register(program);
  hintAfterUsageErrors(program);
  return program;
}

/** A usage error is its one line and one hint (`see commonplace review run gates --help`), not the whole help. */
function hintAfterUsageErrors(command: Command, path = command.name()): void {
  command.showHelpAfterError(`see ${path} --help`);
  for (const sub of command.commands) hintAfterUsageErrors(sub, `${path} ${sub.name()}`);
}

/** Runs the CLI; usage errors exit 1 like every bad input (2 is for stops), as docs/cli.md says. */
export async function main(argv: string[]): Promise<void> {
  quietOnClosedPipe();
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith('commander.')) return;
    throw error;
  }
}
