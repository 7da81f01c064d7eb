// The pinned real CLIs (tools/harness-clis, installed by scripts/test.sh) as profiles pointed at a stand-in:
// each with its own temporary home and dummy credentials, so nothing reaches a real account.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { packageRoot } from '../../../src/paths.js';

export type RealHarness = 'claude' | 'codex' | 'pi';

/** Which API each real harness calls (pi through its `anthropic` provider, as the shipped profile has it). */
export const apiOf = { claude: 'anthropic', codex: 'openai', pi: 'anthropic' } as const satisfies Record<RealHarness, 'anthropic' | 'openai'>;

/** The pinned CLI's executable. */
export function harnessCli(harness: RealHarness): string {
  return join(packageRoot(), 'tools', 'harness-clis', 'node_modules', '.bin', harness);
}

export function harnessInstalled(harness: RealHarness): boolean {
  return existsSync(harnessCli(harness));
}

/** A profile as written in a worker-profiles.yaml (hyphenated keys). */
export type RawProfile = Record<string, unknown> & { harness: string; env?: Record<string, string>; flags?: string[] };

export interface HarnessHome {
  dir: string;
  /** HOME (and CODEX_HOME, PI_CODING_AGENT_DIR) under `dir`, and dummy credentials. */
  env: Record<string, string>;
}

/**
 * A fresh home for one launch of a harness. `subscription` logs claude in as a claude.ai subscriber
 * (a dummy CLAUDE_CODE_OAUTH_TOKEN): only then does it read the unified rate-limit headers and emit
 * `rate_limit_event`s; `api-key` is an ANTHROPIC_API_KEY user.
 */
export async function harnessHome(harness: RealHarness, auth: 'api-key' | 'subscription' = 'api-key'): Promise<HarnessHome> {
  const dir = await mkdtemp(join(tmpdir(), `commonplace-${harness}-home-`));
  const env: Record<string, string> = {
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, '.config'),
    XDG_CACHE_HOME: join(dir, '.cache'),
    XDG_DATA_HOME: join(dir, '.local', 'share'),
  };
  switch (harness) {
    case 'claude':
      if (auth === 'subscription') env.CLAUDE_CODE_OAUTH_TOKEN = 'sk-ant-oat01-stand-in-dummy';
      else env.ANTHROPIC_API_KEY = 'sk-ant-api03-stand-in-dummy';
      break;
    case 'codex':
      env.CODEX_HOME = join(dir, '.codex');
      env.OPENAI_API_KEY = 'sk-stand-in-dummy';
      await mkdir(env.CODEX_HOME, { recursive: true });
      break;
    case 'pi':
      env.PI_CODING_AGENT_DIR = join(dir, '.pi', 'agent');
      env.ANTHROPIC_API_KEY = 'sk-ant-api03-stand-in-dummy';
      await mkdir(env.PI_CODING_AGENT_DIR, { recursive: true });
      break;
  }
  return { dir, env };
}

/**
 * How a profile points its CLI at an endpoint: the profile's `base-url` (the launch maps it to each
 * CLI's mechanism), or `cli`, those mechanisms written into the profile by hand — claude reads
 * ANTHROPIC_BASE_URL; codex needs `-c openai_base_url=…` (it ignores OPENAI_BASE_URL, and its built-in
 * provider first tries a WebSocket); pi needs a models.json in its agent directory (it ignores
 * ANTHROPIC_BASE_URL).
 */
export type Pointing = 'base-url' | 'cli';

/** The profile keys that point a harness at `url` (`http://127.0.0.1:<port>`, no path) — the one place that knows how. */
export async function pointAt(harness: RealHarness, url: string, home: HarnessHome, pointing: Pointing = 'base-url'): Promise<Partial<RawProfile>> {
  switch (harness) {
    case 'claude':
      return pointing === 'base-url' ? { 'base-url': url } : { env: { ANTHROPIC_BASE_URL: url } };
    case 'codex':
      // codex appends `/responses` to its provider's base URL.
      return pointing === 'base-url' ? { 'base-url': `${url}/v1` } : { flags: ['-c', `openai_base_url=${JSON.stringify(`${url}/v1`)}`] };
    case 'pi': {
      if (pointing === 'base-url') return { 'base-url': url };
      const agentDir = home.env.PI_CODING_AGENT_DIR as string;
      await writeFile(join(agentDir, 'models.json'), `${JSON.stringify({ providers: { anthropic: { baseUrl: url } } }, null, 2)}\n`);
      return {};
    }
  }
}

/** The shipped profiles (defaults/worker-profiles.yaml), as written. */
export async function shippedProfiles(): Promise<Record<string, RawProfile>> {
  const text = await readFile(join(packageRoot(), 'defaults', 'worker-profiles.yaml'), 'utf8');
  return (parse(text) as { profiles: Record<string, RawProfile> }).profiles;
}

/**
 * A shipped profile run by the pinned CLI, pointed at `url`, in a fresh home: the shipped keys
 * (model, tools, retries, flags) are kept, `env` and `flags` are added to. (With `base-url`, the
 * home's PI_CODING_AGENT_DIR is the worker's own agent directory the launch builds pi's from.)
 */
export async function contractProfile(
  name: string,
  url: string,
  options: { auth?: 'api-key' | 'subscription'; pointing?: Pointing; overrides?: Partial<RawProfile> } = {},
): Promise<{ profile: RawProfile; home: HarnessHome }> {
  const shipped = (await shippedProfiles())[name];
  if (!shipped) throw new Error(`no shipped profile ${name} in defaults/worker-profiles.yaml`);
  const harness = shipped.harness as RealHarness;
  const home = await harnessHome(harness, options.auth);
  const pointed = await pointAt(harness, url, home, options.pointing);
  const { env: extraEnv, flags: extraFlags, ...overrides } = options.overrides ?? {};
  const profile: RawProfile = {
    ...shipped,
    ...pointed,
    ...overrides,
    command: harnessCli(harness),
    env: { ...shipped.env, ...home.env, ...pointed.env, ...extraEnv },
    flags: [...(shipped.flags ?? []), ...(pointed.flags ?? []), ...(extraFlags ?? [])],
  };
  return { profile, home };
}

/** Writes a worker-profiles.yaml holding these profiles. */
export async function writeProfilesFile(dir: string, profiles: Record<string, RawProfile>): Promise<string> {
  const file = join(dir, 'worker-profiles.yaml');
  await writeFile(file, stringify({ profiles }));
  return file;
}
