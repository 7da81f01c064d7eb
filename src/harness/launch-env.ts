import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { isJsonObject as isObject, type JsonObject as Json } from './json-stream.js';
import type { Profile } from './profiles.js';

export class ProfileEnvError extends Error {
  override name = 'ProfileEnvError';
}

const reference = /\$\{([^}]*)\}/g;
const variableName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Replaces each `${NAME}` with the worker's variable; an unset or malformed one names the profile and the variable. */
export function resolveReferences(text: string, where: string, profile: string, env: NodeJS.ProcessEnv): string {
  return text.replace(reference, (_whole, name: string) => {
    if (!variableName.test(name)) throw new ProfileEnvError(`profile ${profile}: ${where} has \${${name}}, which is not a variable name`);
    const value = env[name];
    if (value === undefined) {
      throw new ProfileEnvError(`profile ${profile}: ${where} needs \${${name}}, which is not set on this worker (set it in the worker's environment)`);
    }
    return value;
  });
}

/** `${NAME}` in env values and base-url is the worker's own variable, so a secret lives only in the worker's environment, never in a workflow input. */
export function resolveProfile(profile: Profile, env: NodeJS.ProcessEnv = process.env): Profile {
  const resolved: Record<string, string> = {};
  for (const [key, value] of Object.entries(profile.env)) resolved[key] = resolveReferences(value, `env ${key}`, profile.name, env);
  return {
    ...profile,
    env: resolved,
    ...(profile.baseUrl !== undefined && { baseUrl: resolveReferences(profile.baseUrl, 'base-url', profile.name, env) }),
  };
}

async function readJson(path: string): Promise<Json> {
  try {
    const value: unknown = JSON.parse(await readFile(path, 'utf8'));
    return isObject(value) ? value : {};
  } catch {
    return {};
  }
}

/** The worker's own pi agent directory: `PI_CODING_AGENT_DIR` if set, else `~/.pi/agent`, as pi itself resolves it. */
export function userPiAgentDir(env: NodeJS.ProcessEnv): string {
  const dir = env.PI_CODING_AGENT_DIR;
  if (dir) return dir === '~' ? homedir() : dir.startsWith('~/') ? join(homedir(), dir.slice(2)) : resolve(dir);
  return join(env.HOME ?? homedir(), '.pi', 'agent');
}

/** The pi provider a profile's base-url is for: its `provider`, else the `provider/` of its model. */
function piProvider(profile: Profile): string {
  const name = profile.provider ?? (profile.model?.includes('/') ? profile.model.split('/')[0] : undefined);
  if (!name) throw new ProfileEnvError(`profile ${profile.name}: a pi profile with base-url needs a provider (pi's default provider is not assumed)`);
  return name;
}

/** pi has no flags for retries or its endpoint, only its agent directory: the worker's own linked in, settings and models laid over. */
export async function preparePiAgentDir(profile: Profile, target: string, env: NodeJS.ProcessEnv): Promise<string> {
  const source = userPiAgentDir(env);
  await rm(target, { recursive: true, force: true });
  await mkdir(target, { recursive: true });
  const own = new Set(['settings.json', 'models.json']);
  const entries = existsSync(source) ? await readdir(source) : [];
  for (const entry of entries) {
    if (own.has(entry) || entry.endsWith('.lock')) continue;
    await symlink(join(source, entry), join(target, entry));
  }
  const retries = profile.cliRetries ?? 0;
  const settings = await readJson(join(source, 'settings.json'));
  const retry = isObject(settings.retry) ? settings.retry : {};
  const provider = isObject(retry.provider) ? retry.provider : {};
  // The session's own retries (with their backoff) and the provider SDK's (which sleeps a whole retry-after) both off by default.
  settings.retry = { ...retry, enabled: retries > 0, maxRetries: retries, provider: { ...provider, maxRetries: 0 } };
  await writeFile(join(target, 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
  const models = await readJson(join(source, 'models.json'));
  if (profile.baseUrl !== undefined) {
    const providers = isObject(models.providers) ? models.providers : {};
    const name = piProvider(profile);
    const current = isObject(providers[name]) ? providers[name] : {};
    models.providers = { ...providers, [name]: { ...current, baseUrl: profile.baseUrl } };
  }
  if (Object.keys(models).length > 0) await writeFile(join(target, 'models.json'), `${JSON.stringify(models, null, 2)}\n`);
  return target;
}

/** claude --bare offers only Bash, Read and Edit (whatever --tools names): a worker is told how Edit creates a file. */
export const bareClaudeNote =
  "This session has no Write tool. To create a new file, use Edit with the file's path, an empty old_string, and the whole content as new_string.\n";

const isBareClaude = (profile: Profile): boolean => profile.harness === 'claude' && profile.flags.includes('--bare');

/** Joins the profile's startup files that exist in the launch directory into one, for a CLI that does not discover them (claude --bare). */
export async function prepareStartupFile(profile: Profile, dir: string, target: string): Promise<string | undefined> {
  if ((!profile.startupFiles || profile.startupFiles.length === 0) && !isBareClaude(profile)) return undefined;
  const parts: string[] = isBareClaude(profile) ? [bareClaudeNote] : [];
  for (const name of profile.startupFiles ?? []) {
    const text = await readFile(join(dir, name), 'utf8').catch(() => undefined);
    if (text !== undefined) parts.push(`# ${name}\n\n${text.trimEnd()}\n`);
  }
  if (parts.length === 0) return undefined;
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, parts.join('\n'));
  return target;
}
