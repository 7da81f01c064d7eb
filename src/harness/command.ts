import type { Profile } from './profiles.js';

/** An executable and its argv; the prompt always goes on standard input. */
export interface CommandLine {
  file: string;
  args: string[];
}

const defaultClaudeTools = ['Read', 'Write', 'Edit', 'Glob', 'Grep'];

/**
 * Builds each harness's unattended command line (docs/harnesses.md records the flags
 * checked against each CLI's --help); the profile's own flags come last so they can add to it.
 */
export function buildCommandLine(profile: Profile, fakeHarnessPath: string): CommandLine {
  const model = profile.model === undefined ? [] : ['--model', profile.model];
  switch (profile.harness) {
    case 'claude':
      return {
        file: profile.command ?? 'claude',
        args: [
          '-p',
          '--output-format',
          'json',
          '--permission-mode',
          profile.permissionMode ?? 'acceptEdits',
          '--allowedTools',
          (profile.allowedTools ?? defaultClaudeTools).join(','),
          ...model,
          ...profile.flags,
        ],
      };
    case 'codex':
      return {
        file: profile.command ?? 'codex',
        args: ['exec', '--json', '--sandbox', 'workspace-write', '--skip-git-repo-check', ...model, ...profile.flags, '-'],
      };
    case 'pi':
      return {
        file: profile.command ?? 'pi',
        args: [
          '-p',
          '--mode',
          'json',
          '--no-session',
          ...(profile.provider === undefined ? [] : ['--provider', profile.provider]),
          ...model,
          ...profile.flags,
        ],
      };
    case 'fake':
      return { file: profile.command ?? fakeHarnessPath, args: [...model, ...profile.flags] };
  }
}
