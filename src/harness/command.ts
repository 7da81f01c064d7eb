import type { Profile } from './profiles.js';

/** An executable and its argv; the prompt always goes on standard input. */
export interface CommandLine {
  file: string;
  args: string[];
}

/** What the launch prepared on disk for this try, which some command lines name. */
export interface LaunchFiles {
  /** The profile's startup files joined into one file (claude `--append-system-prompt-file`). */
  startupFile?: string;
}

const defaultClaudeTools = ['Read', 'Write', 'Edit', 'Glob', 'Grep'];

/** The name codex gets for the provider a profile's `base-url` defines (codex refuses to override its built-in `openai`). */
export const codexProviderName = 'commonplace';

/** The tools claude offers at all: the profile's `tools`, else the tool names of its permission rules (`Bash(node *)` is Bash). */
export function claudeTools(profile: Profile): string[] {
  if (profile.tools) return profile.tools;
  const names = (profile.allowedTools ?? defaultClaudeTools).map((rule) => rule.replace(/\(.*$/, '').trim()).filter(Boolean);
  return [...new Set(names)];
}

/** codex `-c` overrides: with a `base-url`, a provider of our own whose own retries can be set (the built-in one's cannot). */
function codexConfig(profile: Profile): string[] {
  if (profile.baseUrl === undefined) return [];
  const retries = profile.cliRetries ?? 0;
  const provider = [
    `name=${JSON.stringify(codexProviderName)}`,
    `base_url=${JSON.stringify(profile.baseUrl)}`,
    'wire_api="responses"',
    'env_key="OPENAI_API_KEY"',
    `request_max_retries=${retries}`,
    `stream_max_retries=${retries}`,
  ];
  return ['-c', `model_provider=${JSON.stringify(codexProviderName)}`, '-c', `model_providers.${codexProviderName}={${provider.join(',')}}`];
}

/**
 * Builds each harness's unattended command line (docs/harnesses.md records the flags checked against
 * each CLI's --help); the profile's own flags come last so they can add to it.
 */
export function buildCommandLine(profile: Profile, fakeHarnessPath: string, files: LaunchFiles = {}): CommandLine {
  const model = profile.model === undefined ? [] : ['--model', profile.model];
  switch (profile.harness) {
    case 'claude':
      return {
        file: profile.command ?? 'claude',
        args: [
          '-p',
          '--output-format',
          'stream-json',
          '--verbose',
          '--permission-mode',
          profile.permissionMode ?? 'acceptEdits',
          '--allowedTools',
          (profile.allowedTools ?? defaultClaudeTools).join(','),
          '--tools',
          claudeTools(profile).join(','),
          ...(files.startupFile === undefined ? [] : ['--append-system-prompt-file', files.startupFile]),
          ...model,
          ...profile.flags,
        ],
      };
    case 'codex':
      return {
        file: profile.command ?? 'codex',
        args: ['exec', '--json', '--sandbox', 'workspace-write', '--skip-git-repo-check', ...codexConfig(profile), ...model, ...profile.flags, '-'],
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
          ...(profile.tools === undefined ? [] : profile.tools.length === 0 ? ['--no-tools'] : ['--tools', profile.tools.join(',')]),
          ...profile.flags,
        ],
      };
    case 'fake':
      return { file: profile.command ?? fakeHarnessPath, args: [...model, ...profile.flags] };
  }
}
