import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildCommandLine } from '../../src/harness/command.js';
import { loadProfiles } from '../../src/harness/load-profiles.js';
import type { HarnessName, Profile } from '../../src/harness/profiles.js';
import { packageRoot } from '../../src/paths.js';

const root = packageRoot();
const clis = join(root, 'tools', 'harness-clis');
const base = (harness: HarnessName, extra: Partial<Profile> = {}): Profile => ({ name: harness, harness, flags: [], timeoutMs: 60_000, attempts: 3, env: {}, ...extra });

describe('each profile builds the command line its CLI documents', () => {
  test('claude: -p with JSON output, a permission mode that writes unattended, the allowed tools and the model', () => {
    expect(buildCommandLine(base('claude', { model: 'claude-sonnet-5' }), '/fake')).toEqual({
      file: 'claude',
      args: ['-p', '--output-format', 'json', '--permission-mode', 'acceptEdits', '--allowedTools', 'Read,Write,Edit,Glob,Grep', '--model', 'claude-sonnet-5'],
    });
  });

  test('codex: exec with JSON events, the workspace-write sandbox, no Git check, the model, and the prompt from stdin', () => {
    expect(buildCommandLine(base('codex', { model: 'gpt-5.1-codex' }), '/fake')).toEqual({
      file: 'codex',
      args: ['exec', '--json', '--sandbox', 'workspace-write', '--skip-git-repo-check', '--model', 'gpt-5.1-codex', '-'],
    });
  });

  test('pi: print mode with JSON events, no session file, the provider and the model', () => {
    expect(buildCommandLine(base('pi', { provider: 'anthropic', model: 'claude-sonnet-4-5' }), '/fake')).toEqual({
      file: 'pi',
      args: ['-p', '--mode', 'json', '--no-session', '--provider', 'anthropic', '--model', 'claude-sonnet-4-5'],
    });
  });

  test('a profile\'s own command, tools and flags are used, its flags last', () => {
    const line = buildCommandLine(base('claude', { command: '/opt/claude', allowedTools: ['Read', 'Bash(node *)'], permissionMode: 'plan', flags: ['--max-turns', '30'] }), '/fake');
    expect(line.file).toBe('/opt/claude');
    expect(line.args).toEqual(['-p', '--output-format', 'json', '--permission-mode', 'plan', '--allowedTools', 'Read,Bash(node *)', '--max-turns', '30']);
  });

  test('fake: the project\'s executable, unless the profile names another', () => {
    expect(buildCommandLine(base('fake'), '/project/bin/fake-harness.js')).toEqual({ file: '/project/bin/fake-harness.js', args: [] });
  });
});

describe('the flags are the installed CLIs\' own (checked against their --help)', () => {
  const shipped = loadProfiles(join(root, 'defaults', 'worker-profiles.yaml'));
  const versions = JSON.parse(readFileSync(join(clis, 'package.json'), 'utf8')).dependencies as Record<string, string>;

  test.each<[HarnessName, string, string[], string]>([
    ['claude', 'claude', ['--help'], '@anthropic-ai/claude-code'],
    ['codex', 'codex', ['exec', '--help'], '@openai/codex'],
    ['pi', 'pi', ['--help'], '@mariozechner/pi-coding-agent'],
  ])('every flag the shipped %s profile passes appears in `%s %s`', async (harness, bin, helpArgs, packageName) => {
    const cli = join(clis, 'node_modules', '.bin', bin);
    const version = await execa(cli, ['--version'], { reject: false, all: true, env: { HOME: join(root, '.commonplace', 'cli-home') } });
    expect(version.all).toContain(versions[packageName]);
    const help = await execa(cli, helpArgs, { reject: false, all: true, env: { HOME: join(root, '.commonplace', 'cli-home') } });
    expect(help.exitCode).toBe(0);
    const { args } = buildCommandLine(shipped.get(harness)!, '/fake');
    const flags = args.filter((arg) => arg.startsWith('-') && arg !== '-');
    expect(flags.length).toBeGreaterThan(2);
    for (const flag of flags) expect({ flag, documented: new RegExp(`(^|[\\s,])${flag.replace(/[-]/g, '\\-')}\\b`, 'm').test(String(help.all)) }).toEqual({ flag, documented: true });
  });
});
