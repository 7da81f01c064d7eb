import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildCommandLine } from '../../src/harness/command.js';
import { loadProfiles } from '../../src/harness/load-profiles.js';
import { packageRoot } from '../../src/paths.js';
import { harnessProfile } from '../helpers/fake.js';

const root = packageRoot();
const clis = join(root, 'tools', 'harness-clis');
const base = harnessProfile;

describe('each profile builds the command line its CLI documents', () => {
  test('claude: -p with the stream-json event stream, a permission mode that writes unattended, the allowed and offered tools and the model', () => {
    expect(buildCommandLine(base('claude', { model: 'claude-sonnet-5' }), '/fake')).toEqual({
      file: 'claude',
      args: [
        '-p',
        '--output-format',
        'stream-json',
        '--verbose',
        '--permission-mode',
        'acceptEdits',
        '--allowedTools',
        'Read,Write,Edit,Glob,Grep',
        '--tools',
        'Read,Write,Edit,Glob,Grep',
        '--model',
        'claude-sonnet-5',
      ],
    });
  });

  test('claude: the offered tools are the tool names of the permission rules unless the profile names them', () => {
    const rules = buildCommandLine(base('claude', { allowedTools: ['Read', 'Bash(node *)', 'Bash(git *)'] }), '/fake').args;
    expect(rules.slice(rules.indexOf('--tools'), rules.indexOf('--tools') + 2)).toEqual(['--tools', 'Read,Bash']);
    const named = buildCommandLine(base('claude', { tools: ['Read', 'Write'] }), '/fake').args;
    expect(named.slice(named.indexOf('--tools'), named.indexOf('--tools') + 2)).toEqual(['--tools', 'Read,Write']);
  });

  test('claude: a startup file the launch prepared is appended to the system prompt', () => {
    const { args } = buildCommandLine(base('claude', { flags: ['--bare'] }), '/fake', { startupFile: '.launch/startup.md' });
    expect(args.slice(-3)).toEqual(['--append-system-prompt-file', '.launch/startup.md', '--bare']);
  });

  test('codex: exec with JSON events, the workspace-write sandbox, no Git check, the model, and the prompt from stdin', () => {
    expect(buildCommandLine(base('codex', { model: 'gpt-5.1-codex' }), '/fake')).toEqual({
      file: 'codex',
      args: ['exec', '--json', '--sandbox', 'workspace-write', '--skip-git-repo-check', '--model', 'gpt-5.1-codex', '-'],
    });
  });

  test("codex: a base-url defines a provider of its own, whose retries are the profile's (codex refuses to override its built-in one)", () => {
    const { args } = buildCommandLine(base('codex', { model: 'gpt-5.1-codex', baseUrl: 'http://127.0.0.1:8080/v1' }), '/fake');
    expect(args).toEqual([
      'exec',
      '--json',
      '--sandbox',
      'workspace-write',
      '--skip-git-repo-check',
      '-c',
      'model_provider="commonplace"',
      '-c',
      'model_providers.commonplace={name="commonplace",base_url="http://127.0.0.1:8080/v1",wire_api="responses",env_key="OPENAI_API_KEY",request_max_retries=0,stream_max_retries=0}',
      '--model',
      'gpt-5.1-codex',
      '-',
    ]);
    expect(buildCommandLine(base('codex', { baseUrl: 'http://x/v1', cliRetries: 2 }), '/fake').args.join(' ')).toContain(
      'request_max_retries=2,stream_max_retries=2',
    );
  });

  test('pi: print mode with JSON events, no session file, the provider and the model', () => {
    expect(buildCommandLine(base('pi', { provider: 'anthropic', model: 'claude-sonnet-4-5' }), '/fake')).toEqual({
      file: 'pi',
      args: ['-p', '--mode', 'json', '--no-session', '--provider', 'anthropic', '--model', 'claude-sonnet-4-5'],
    });
  });

  test("pi: the profile's tools are its allowlist, and an empty list turns them all off", () => {
    expect(buildCommandLine(base('pi', { tools: ['read', 'write'] }), '/fake').args.slice(-2)).toEqual(['--tools', 'read,write']);
    expect(buildCommandLine(base('pi', { tools: [] }), '/fake').args.at(-1)).toBe('--no-tools');
  });

  test("a profile's own command, tools and flags are used, its flags last", () => {
    const line = buildCommandLine(
      base('claude', { command: '/opt/claude', allowedTools: ['Read', 'Bash(node *)'], permissionMode: 'plan', flags: ['--max-turns', '30'] }),
      '/fake',
    );
    expect(line.file).toBe('/opt/claude');
    expect(line.args).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--permission-mode',
      'plan',
      '--allowedTools',
      'Read,Bash(node *)',
      '--tools',
      'Read,Bash',
      '--max-turns',
      '30',
    ]);
  });

  test("fake: the project's executable, unless the profile names another", () => {
    expect(buildCommandLine(base('fake'), '/project/bin/fake-harness.js')).toEqual({ file: '/project/bin/fake-harness.js', args: [] });
  });
});

describe("the flags are the installed CLIs' own (checked against their --help)", () => {
  const shipped = loadProfiles(join(root, 'defaults', 'worker-profiles.yaml'));
  const versions = JSON.parse(readFileSync(join(clis, 'package.json'), 'utf8')).dependencies as Record<string, string>;

  test.each<[string, string, string[], string]>([
    ['claude', 'claude', ['--help'], '@anthropic-ai/claude-code'],
    ['claude-lean', 'claude', ['--help'], '@anthropic-ai/claude-code'],
    ['codex', 'codex', ['exec', '--help'], '@openai/codex'],
    ['pi', 'pi', ['--help'], '@mariozechner/pi-coding-agent'],
  ])('every flag the shipped %s profile passes appears in `%s %s`', async (name, bin, helpArgs, packageName) => {
    const cli = join(clis, 'node_modules', '.bin', bin);
    const version = await execa(cli, ['--version'], { reject: false, all: true, env: { HOME: join(root, '.commonplace', 'cli-home') } });
    expect(version.all).toContain(versions[packageName]);
    const help = await execa(cli, helpArgs, { reject: false, all: true, env: { HOME: join(root, '.commonplace', 'cli-home') } });
    expect(help.exitCode).toBe(0);
    const { args } = buildCommandLine(shipped.get(name)!, '/fake');
    const flags = args.filter((arg) => arg.startsWith('-') && arg !== '-');
    expect(flags.length).toBeGreaterThan(2);
    for (const flag of flags)
      expect({ flag, documented: new RegExp(`(^|[\\s,])${flag.replace(/[-]/g, '\\-')}\\b`, 'm').test(String(help.all)) }).toEqual({ flag, documented: true });
  });
});
