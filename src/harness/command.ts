import type { CommandLine, LaunchFiles } from './executor.js';
import { cliExecutor } from './executors/index.js';
import type { Profile } from './profiles.js';

export type { CommandLine, LaunchFiles } from './executor.js';
export { claudeTools } from './executors/claude.js';
export { codexProviderName } from './executors/codex.js';

/** docs/harnesses.md records the flags checked against each CLI's --help; the profile's own come last so they can add to it. */
export function buildCommandLine(profile: Profile, fakeHarnessPath: string, files: LaunchFiles = {}): CommandLine {
  return cliExecutor(profile.harness).commandLine(profile, fakeHarnessPath, files);
}
