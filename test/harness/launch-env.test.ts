import { lstat, mkdir, mkdtemp, readFile, readlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harnessEnv } from '../../src/harness/executors/index.js';
import { bareClaudeNote, preparePiAgentDir, prepareStartupFile, resolveProfile } from '../../src/harness/launch-env.js';
import type { HarnessName, Profile } from '../../src/harness/profiles.js';
import { harnessProfile } from '../helpers/fake.js';

const base = (harness: HarnessName, extra: Partial<Profile> = {}) => harnessProfile(harness, { name: `my-${harness}`, ...extra });

describe('profile env resolved on the worker', () => {
  test("${NAME} in env values and base-url is replaced by the worker's variable", () => {
    const profile = base('claude', { env: { ANTHROPIC_API_KEY: '${WORKER_KEY}', PLAIN: 'a$b', MIXED: 'x-${A}-${B}' }, baseUrl: 'http://${HOST}/' });
    expect(resolveProfile(profile, { WORKER_KEY: 'sk-1', A: 'a', B: 'b', HOST: 'proxy:8080' })).toMatchObject({
      env: { ANTHROPIC_API_KEY: 'sk-1', PLAIN: 'a$b', MIXED: 'x-a-b' },
      baseUrl: 'http://proxy:8080/',
    });
    // The profile the workflow holds keeps the reference, never the value.
    expect(profile.env.ANTHROPIC_API_KEY).toBe('${WORKER_KEY}');
  });

  test('an unset variable is an error naming the profile and the variable', () => {
    expect(() => resolveProfile(base('codex', { env: { OPENAI_API_KEY: '${PROXY_KEY}' } }), {})).toThrow(
      'profile my-codex: env OPENAI_API_KEY needs ${PROXY_KEY}, which is not set on this worker',
    );
    expect(() => resolveProfile(base('codex', { env: { X: '${not a name}' } }), {})).toThrow(/\$\{not a name\}, which is not a variable name/);
  });

  test("claude: its own retries are 0 and base-url is ANTHROPIC_BASE_URL, unless the profile's env says otherwise", () => {
    expect(harnessEnv(base('claude', { baseUrl: 'http://127.0.0.1:9' }))).toEqual({ CLAUDE_CODE_MAX_RETRIES: '0', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' });
    expect(harnessEnv(base('claude', { cliRetries: 2, env: { ANTHROPIC_BASE_URL: 'http://other' } }))).toEqual({
      CLAUDE_CODE_MAX_RETRIES: '2',
      ANTHROPIC_BASE_URL: 'http://other',
    });
    expect(harnessEnv(base('claude', { env: { CLAUDE_CODE_MAX_RETRIES: '5' } }))).toEqual({ CLAUDE_CODE_MAX_RETRIES: '5' });
    expect(harnessEnv(base('codex', { env: { A: 'b' } }))).toEqual({ A: 'b' });
  });
});

describe("pi's per-launch agent directory", () => {
  async function userAgentDir(files: Record<string, string>): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'pi-agent-'));
    for (const [name, text] of Object.entries(files)) {
      await mkdir(join(dir, name, '..'), { recursive: true });
      await writeFile(join(dir, name), text);
    }
    return dir;
  }

  test("keeps the worker's login and extensions (linked) and lays retries off and the endpoint over its settings and models", async () => {
    const source = await userAgentDir({
      'auth.json': '{"anthropic":{"type":"api_key","key":"sk"}}',
      'extensions/x.ts': 'export {}',
      'settings.json': '{"theme":"dark","retry":{"baseDelayMs":1000}}',
      'models.json': '{"providers":{"ollama":{"baseUrl":"http://localhost:11434/v1"}}}',
    });
    const target = join(await mkdtemp(join(tmpdir(), 'launch-')), '.launch', 'pi-agent');
    await preparePiAgentDir(base('pi', { provider: 'anthropic', baseUrl: 'http://127.0.0.1:8787' }), target, { PI_CODING_AGENT_DIR: source });
    expect((await lstat(join(target, 'auth.json'))).isSymbolicLink()).toBe(true);
    expect(await readlink(join(target, 'extensions'))).toBe(join(source, 'extensions'));
    expect(JSON.parse(await readFile(join(target, 'settings.json'), 'utf8'))).toEqual({
      theme: 'dark',
      retry: { baseDelayMs: 1000, enabled: false, maxRetries: 0, provider: { maxRetries: 0 } },
    });
    expect(JSON.parse(await readFile(join(target, 'models.json'), 'utf8'))).toEqual({
      providers: { ollama: { baseUrl: 'http://localhost:11434/v1' }, anthropic: { baseUrl: 'http://127.0.0.1:8787' } },
    });
    // The worker's own files are untouched.
    expect(JSON.parse(await readFile(join(source, 'settings.json'), 'utf8'))).toEqual({ theme: 'dark', retry: { baseDelayMs: 1000 } });
  });

  test('without a worker agent directory it holds only the settings; the provider of a base-url may come from the model', async () => {
    const target = join(await mkdtemp(join(tmpdir(), 'launch-')), 'pi-agent');
    await preparePiAgentDir(base('pi', { model: 'openai/gpt-5', baseUrl: 'http://proxy/v1', cliRetries: 2 }), target, { HOME: '/nonexistent' });
    expect(JSON.parse(await readFile(join(target, 'settings.json'), 'utf8'))).toEqual({ retry: { enabled: true, maxRetries: 2, provider: { maxRetries: 0 } } });
    expect(JSON.parse(await readFile(join(target, 'models.json'), 'utf8'))).toEqual({ providers: { openai: { baseUrl: 'http://proxy/v1' } } });
    await expect(preparePiAgentDir(base('pi', { model: 'm', baseUrl: 'http://x' }), target, { HOME: '/nonexistent' })).rejects.toThrow(/needs a provider/);
  });
});

test('the startup files that exist are joined into one file, each under its name', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'launch-'));
  await writeFile(join(dir, 'AGENTS.md'), 'Agents say hi.\n');
  const target = join(dir, 'startup.md');
  expect(await prepareStartupFile(base('claude', { startupFiles: ['AGENTS.md', 'CLAUDE.md'] }), dir, target)).toBe(target);
  expect(await readFile(target, 'utf8')).toBe('# AGENTS.md\n\nAgents say hi.\n');
  expect(await prepareStartupFile(base('claude', { startupFiles: ['CLAUDE.md'] }), dir, join(dir, 'none.md'))).toBeUndefined();
  expect(await prepareStartupFile(base('claude'), dir, join(dir, 'none.md'))).toBeUndefined();
});

test('a bare claude is told how to create a file, since --bare offers no Write tool', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'launch-'));
  await writeFile(join(dir, 'CLAUDE.md'), 'Claude says hi.\n');
  const target = join(dir, 'startup.md');
  expect(await prepareStartupFile(base('claude', { flags: ['--bare'] }), dir, target)).toBe(target);
  expect(await readFile(target, 'utf8')).toBe(bareClaudeNote);
  await prepareStartupFile(base('claude', { flags: ['--bare'], startupFiles: ['CLAUDE.md'] }), dir, target);
  expect(await readFile(target, 'utf8')).toBe(`${bareClaudeNote}\n# CLAUDE.md\n\nClaude says hi.\n`);
});
