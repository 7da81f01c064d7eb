import { execa, type Options } from 'execa';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../../src/paths.js';
import { scratch, waitFor } from './fake.js';
import { freePort } from './ports.js';

export const cliPath = join(packageRoot(), 'bin', 'commonplace.js');

/** Runs the real operator CLI (the compiled package, as an operator would) and returns its result without throwing. */
export async function runCli(args: string[], options: Options & { env?: Record<string, string> } = {}) {
  return execa('node', [cliPath, ...args], { reject: false, timeout: 120_000, ...options });
}

/**
 * Runs the CLI from the compiled modules under dist/src/ rather than the bundle bin/commonplace.js requires (as if
 * started as bin/commonplace.js): what the bundle is held to, and what a test traces module by module. `nodeArgs` are
 * node's own options (`--import`).
 */
export async function runModules(args: string[], options: Options & { env?: Record<string, string> } = {}, nodeArgs: string[] = []) {
  const main = pathToFileURL(join(packageRoot(), 'dist', 'src', 'client', 'main.js')).href;
  const script = [
    `process.argv.splice(1, 0, ${JSON.stringify(cliPath)});`,
    `const cli = await import(${JSON.stringify(main)});`,
    'await cli.main(process.argv);',
    'await cli.exitOnceWritten(process.exitCode ?? 0);',
  ].join(' ');
  return execa('node', [...nodeArgs, '--input-type=module', '-e', script, '--', ...args], { reject: false, timeout: 120_000, ...options });
}

/** Starts a long-running CLI command (a worker, `dev`) in its own process. */
export function startCli(args: string[], options: Options = {}) {
  return execa('node', [cliPath, ...args], { reject: false, ...options });
}

/**
 * `commonplace dev` on free ports with a state directory of its own (and `more` options), once it says it is ready:
 * a dev that exits first, or never gets ready, fails with what it printed. The caller stops it.
 */
export async function startDev(...more: string[]) {
  const [state, port, uiPort] = [await scratch(), await freePort(), await freePort()];
  const dev = startCli(['dev', '--state', state, '--port', String(port), '--ui-port', String(uiPort), ...more], { all: true });
  let output = '';
  dev.all?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const ready = async () => {
    if (dev.exitCode !== null) throw new Error(`commonplace dev exited (${dev.exitCode}) before it was ready`);
    return output.includes('Ctrl-C stops');
  };
  await waitFor('commonplace dev to report it is ready', ready, 90_000).catch((error: Error) => {
    dev.kill('SIGKILL');
    throw new Error(`${error.message}\n${output}`);
  });
  return { dev, state, port, uiPort, output: () => output };
}
