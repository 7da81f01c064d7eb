import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { executorFor } from './executors/index.js';
import type { Profile } from './profiles.js';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Where a command resolves: an absolute path as given, otherwise the first match on PATH. */
export function resolveCommand(command: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (isAbsolute(command) || command.includes('/')) return executable(command) ? command : undefined;
  const dirs = (env.PATH ?? '').split(delimiter).filter((dir) => dir !== '');
  return dirs.map((dir) => join(dir, command)).find(executable);
}

/** A profile's CLI is not installed: the CLI and how to install it, before any run starts; undefined when it is there. */
export function missingHarness(profile: Profile, fakeHarnessPath: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const executor = executorFor(profile.harness);
  if (executor.kind !== 'cli') return undefined; // a model API has no CLI to install
  const command = profile.command ?? executor.defaultCommand(fakeHarnessPath);
  // Only PATH matters here; a ${NAME} in it is read from this process's environment (the launch resolves it on the worker).
  const path = profile.env.PATH?.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_whole, name: string) => env[name] ?? '');
  if (resolveCommand(command, { ...env, ...(path !== undefined && { PATH: path }) }) !== undefined) return undefined;
  return `profile ${profile.name} needs the ${profile.harness} CLI "${command}", which is not installed (not found on PATH): ${executor.install}`;
}
