import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type { HarnessName, Profile } from './profiles.js';

/** How each harness CLI is installed, for the message a missing one gets. */
export const harnessInstall: Record<HarnessName, { cli: string; install: string }> = {
  claude: { cli: 'claude', install: 'npm install -g @anthropic-ai/claude-code, then log in with `claude` once' },
  codex: { cli: 'codex', install: 'npm install -g @openai/codex, then log in with `codex login`' },
  pi: { cli: 'pi', install: 'npm install -g @mariozechner/pi-coding-agent, and set the provider\'s API key' },
  fake: { cli: 'fake-harness.js', install: 'it ships with commonplace (bin/fake-harness.js); reinstall the package' },
};

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
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && executable(join(dir, command))) return join(dir, command);
  }
  return undefined;
}

/**
 * Says, before any run starts, that a profile's CLI is not installed — naming the CLI and how to
 * install it — instead of letting the first launch fail; undefined when it is there.
 */
export function missingHarness(profile: Profile, fakeHarnessPath: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const command = profile.command ?? (profile.harness === 'fake' ? fakeHarnessPath : harnessInstall[profile.harness].cli);
  // Only PATH matters here; a ${NAME} in it is read from this process's environment (the launch resolves it on the worker).
  const path = profile.env.PATH?.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_whole, name: string) => env[name] ?? '');
  if (resolveCommand(command, { ...env, ...(path !== undefined && { PATH: path }) }) !== undefined) return undefined;
  const { install } = harnessInstall[profile.harness];
  return `profile ${profile.name} needs the ${profile.harness} CLI "${command}", which is not installed (not found on PATH): ${install}`;
}
