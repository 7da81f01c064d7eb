import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDuration } from '../../src/harness/duration.js';
import { loadProfiles, profilesSource } from '../../src/harness/load-profiles.js';
import { selectProfile } from '../../src/harness/profiles.js';
import { packageRoot } from '../../src/paths.js';

async function profilesFile(text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'profiles-'));
  await writeFile(join(dir, 'worker-profiles.yaml'), text);
  return join(dir, 'worker-profiles.yaml');
}

describe('worker profiles', () => {
  test('the shipped profiles load: claude, claude-lean, codex, pi, fake and the model-API ones, with their timeouts resolved', () => {
    const profiles = loadProfiles(join(packageRoot(), 'defaults', 'worker-profiles.yaml'));
    expect([...profiles.keys()]).toEqual(['claude', 'claude-lean', 'codex', 'pi', 'fake', 'anthropic-haiku', 'anthropic-sonnet', 'openai-mini']);
    expect(profiles.get('claude')).toMatchObject({ harness: 'claude', permissionMode: 'acceptEdits', timeoutMs: 30 * 60_000, attempts: 3 });
  });

  test('each shipped profile offers only the tools its work needs, and claude-lean runs bare with the startup files handed to it', () => {
    const profiles = loadProfiles(join(packageRoot(), 'defaults', 'worker-profiles.yaml'));
    expect(profiles.get('claude')?.tools).toEqual(['Read', 'Write', 'Edit', 'Glob', 'Grep']);
    expect(profiles.get('pi')?.tools).toEqual(['read', 'write', 'edit', 'grep', 'find', 'ls']);
    expect(profiles.get('claude-lean')).toMatchObject({ flags: ['--bare'], startupFiles: ['AGENTS.md', 'CLAUDE.md'] });
  });

  test('the endpoint, retry and reachability keys are read into the profile', async () => {
    const file = await profilesFile(
      'profiles:\n  x:\n    harness: codex\n    base-url: http://127.0.0.1:8080/v1\n    cli-retries: 1\n    unreachable-timeout: 30s\n    env:\n      OPENAI_API_KEY: ${PROXY_KEY}\n',
    );
    expect(loadProfiles(file).get('x')).toMatchObject({
      baseUrl: 'http://127.0.0.1:8080/v1',
      cliRetries: 1,
      unreachableTimeoutMs: 30_000,
      env: { OPENAI_API_KEY: '${PROXY_KEY}' },
    });
  });

  test('a model-API profile reads its key variable and output cap; it must name its model, and a CLI profile takes neither key', async () => {
    const shipped = loadProfiles(join(packageRoot(), 'defaults', 'worker-profiles.yaml'));
    expect(shipped.get('anthropic-haiku')).toMatchObject({
      harness: 'anthropic',
      model: 'claude-haiku-4-5',
      apiKeyEnv: 'ANTHROPIC_API_KEY',
      maxOutputTokens: 2048,
    });
    expect(shipped.get('openai-mini')).toMatchObject({ harness: 'openai', model: 'gpt-5-mini', apiKeyEnv: 'OPENAI_API_KEY' });
    const noModel = await profilesFile('profiles:\n  x:\n    harness: openai\n');
    expect(() => loadProfiles(noModel)).toThrow(/profiles\.x\.model: an openai profile names its model/);
    const cliWithKey = await profilesFile('profiles:\n  x:\n    harness: claude\n    api-key-env: ANTHROPIC_API_KEY\n');
    expect(() => loadProfiles(cliWithKey)).toThrow(/profiles\.x\.api-key-env: only a model-API profile/);
    const badName = await profilesFile('profiles:\n  x:\n    harness: anthropic\n    model: m\n    api-key-env: sk-ant-123\n');
    expect(() => loadProfiles(badName)).toThrow(/profiles\.x\.api-key-env: an environment variable name/);
  });

  test("an anthropic profile's cache-ttl is read as 5m or 1h; any other value, or the key on another harness, is refused naming it", async () => {
    expect(loadProfiles(await profilesFile('profiles:\n  x:\n    harness: anthropic\n    model: m\n    cache-ttl: 1h\n')).get('x')).toMatchObject({
      cacheTtl: '1h',
    });
    expect(loadProfiles(await profilesFile('profiles:\n  x:\n    harness: anthropic\n    model: m\n')).get('x')!.cacheTtl).toBeUndefined();
    const twoHours = await profilesFile('profiles:\n  x:\n    harness: anthropic\n    model: m\n    cache-ttl: 2h\n');
    expect(() => loadProfiles(twoHours)).toThrow(/profiles\.x\.cache-ttl/);
    const onOpenai = await profilesFile('profiles:\n  x:\n    harness: openai\n    model: m\n    cache-ttl: 1h\n');
    expect(() => loadProfiles(onOpenai)).toThrow(/profiles\.x\.cache-ttl: only an anthropic profile takes cache-ttl/);
  });

  test('the quota account is read into the profile, and a bad account name is refused naming the key', async () => {
    expect(loadProfiles(await profilesFile('profiles:\n  x:\n    harness: claude\n    account: team-max\n')).get('x')).toMatchObject({ account: 'team-max' });
    const bad = await profilesFile('profiles:\n  x:\n    harness: claude\n    account: Team Max\n');
    expect(() => loadProfiles(bad)).toThrow(/profiles\.x\.account/);
  });

  test.each([
    ['an unknown harness', 'profiles:\n  x:\n    harness: gemini\n', /profiles\.x\.harness/],
    ['an unknown key', 'profiles:\n  x:\n    harness: fake\n    tiemout: 5m\n', /profiles\.x: Unrecognized key: "tiemout"/],
    ['a bad duration', 'profiles:\n  x:\n    harness: fake\n    timeout: soon\n', /profiles\.x\.timeout: "soon" is not a duration/],
    ['a zero attempt budget', 'profiles:\n  x:\n    harness: fake\n    attempts: 0\n', /profiles\.x\.attempts/],
    ['broken YAML', 'profiles:\n  x: [\n', /is not valid YAML/],
  ])('%s is refused with the file and key path', async (_title, text, message) => {
    const file = await profilesFile(text);
    expect(() => loadProfiles(file)).toThrow(message);
    expect(() => loadProfiles(file)).toThrow(file);
  });

  test('an unknown profile name lists the known ones', () => {
    const profiles = loadProfiles(join(packageRoot(), 'defaults', 'worker-profiles.yaml'));
    expect(() => selectProfile(profiles, 'gemini', 'defaults')).toThrow(
      'unknown worker profile "gemini" in defaults (known: claude, claude-lean, codex, pi, fake, anthropic-haiku, anthropic-sonnet, openai-mini)',
    );
  });

  test("a KB's own profiles file takes precedence over the shipped one, and an explicit file over both", async () => {
    const kb = await mkdtemp(join(tmpdir(), 'kb-'));
    expect(profilesSource({ checkout: kb })).toBe(join(packageRoot(), 'defaults', 'worker-profiles.yaml'));
    const own = join(kb, 'kb', 'instructions', 'worker-profiles.yaml');
    await mkdir(join(kb, 'kb', 'instructions'), { recursive: true });
    await writeFile(own, 'profiles:\n  fake:\n    harness: fake\n');
    expect(profilesSource({ checkout: kb })).toBe(own);
    expect(profilesSource({ checkout: kb, file: '/explicit.yaml' })).toBe('/explicit.yaml');
  });

  test.each([
    ['90s', 90_000],
    ['30m', 1_800_000],
    ['1h30m', 5_400_000],
    ['250ms', 250],
    [45, 45_000],
    ['12', 12_000],
  ])('the duration %j is %d ms', (text, expected) => {
    expect(parseDuration(text)).toBe(expected);
  });
});
