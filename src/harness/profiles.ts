import { z } from 'zod';
import { parseDuration } from './duration.js';

export const harnessNames = ['claude', 'codex', 'pi', 'fake', 'anthropic', 'openai'] as const;
export type HarnessName = (typeof harnessNames)[number];

/** The executors that answer with one model-API request instead of a CLI process (docs/harnesses.md, "Model APIs"). */
export const apiHarnessNames = ['anthropic', 'openai'] as const satisfies readonly HarnessName[];
export const isApiHarness = (name: HarnessName): boolean => (apiHarnessNames as readonly string[]).includes(name);

/** Units in flight without `--concurrency`: a model-API unit is a cheap request paced under the provider's limit; a CLI unit is a process. */
export const defaultSweepConcurrency = (name: HarnessName): number => (isApiHarness(name) ? 32 : 4);

/**
 * Units a child workflow without `--batch-size`: batch tails cost a fifth of the time at 100 units (docs/performance.md); 500
 * model-API units (4–5 events each) keep a batch near 2,500 events, 100 CLI units (about 18) near 1,800.
 */
export const defaultSweepBatchSize = (name: HarnessName): number => (isApiHarness(name) ? 500 : 100);

const duration = z.union([z.string(), z.number()]).transform((value, ctx) => {
  try {
    return parseDuration(value);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});

/** A route's name as the profiles file may spell it (src/review/compare/types.ts parses it). */
const ROUTE_NAME = /^[a-z0-9][a-z0-9-]*(:(pair|bundle))?(:batch)?$/;

const profileSchema = z
  .object({
    harness: z.enum(harnessNames),
    command: z.string().min(1).optional(),
    model: z.string().min(1).optional(),
    provider: z.string().min(1).optional(),
    'permission-mode': z.string().min(1).optional(),
    'allowed-tools': z.array(z.string().min(1)).optional(),
    /** The tools the CLI offers the model at all (claude `--tools`, pi `--tools`); absent: derived from allowed-tools (claude) or the CLI's own set. */
    tools: z.array(z.string().min(1)).optional(),
    /** Where the CLI sends model requests, through that CLI's own mechanism (docs/harnesses.md). */
    'base-url': z.string().min(1).optional(),
    /** The account the profile draws its quota from: profiles sharing a login or an API key name the same one (default: the profile's name). */
    account: z
      .string()
      .regex(/^[a-z0-9][a-z0-9._-]*$/, 'lowercase letters, digits, dots, underscores and hyphens')
      .optional(),
    /** How often the CLI itself retries a failed model request (default 0: the relaunch rule decides). */
    'cli-retries': z.number().int().min(0).optional(),
    /** Startup instruction files handed to the CLI explicitly (claude --bare skips their discovery). */
    'startup-files': z.array(z.string().min(1)).optional(),
    /** How long a CLI may report that it cannot reach its endpoint before the launch is ended as failed. */
    'unreachable-timeout': duration.optional(),
    flags: z.array(z.string()).default([]),
    timeout: duration.default(30 * 60),
    attempts: z.number().int().positive().default(3),
    /** The cap on one output, in bytes (default 1 MiB): a larger output is a rejected candidate. */
    'max-output': z.number().int().positive().optional(),
    env: z.record(z.string(), z.string()).default({}),
    /** A model-API executor's key: the name of the worker's environment variable that holds it (never the key itself). */
    'api-key-env': z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
      .optional(),
    /** A model-API executor's cap on one answer's output tokens. */
    'max-output-tokens': z.number().int().positive().optional(),
    /** Per-criterion routing backed by calibration records (docs/review-compare.md): the profile itself is the fallback route. */
    'calibrated-routes': z
      .object({
        reference: z.string().regex(ROUTE_NAME, 'a route (<profile>[:pair|:bundle][:batch]), results or labels'),
        'min-kappa': z.number().min(-1).max(1).default(0.7),
        candidates: z.array(z.string().regex(ROUTE_NAME, 'a route: <profile>[:pair|:bundle][:batch]')).min(1),
      })
      .strict()
      .optional(),
    /** An Anthropic profile's prompt-cache lifetime: `cache_control.ttl` on the shared prefix (5m writes cost 1.25× input, 1h writes 2×). */
    'cache-ttl': z.enum(['5m', '1h']).optional(),
  })
  .strict()
  .superRefine((raw, ctx) => {
    const issue = (key: string, message: string) => ctx.addIssue({ code: 'custom', path: [key], message });
    if (isApiHarness(raw.harness) && raw.model === undefined) issue('model', `an ${raw.harness} profile names its model`);
    for (const key of ['api-key-env', 'max-output-tokens'] as const) {
      if (!isApiHarness(raw.harness) && raw[key] !== undefined) issue(key, `only a model-API profile (anthropic, openai) takes ${key}`);
    }
    if (raw['cache-ttl'] !== undefined && raw.harness !== 'anthropic') {
      issue('cache-ttl', 'only an anthropic profile takes cache-ttl (OpenAI keeps its cache by itself, steered by prompt_cache_key)');
    }
  });

const profilesFileSchema = z.object({ profiles: z.record(z.string().regex(/^[a-z0-9][a-z0-9-]*$/), profileSchema) }).strict();

/** The profile fields whose name is not their key camel-cased: durations and sizes name their unit. */
const FIELDS: Readonly<Record<string, string>> = { timeout: 'timeoutMs', 'unreachable-timeout': 'unreachableTimeoutMs', 'max-output': 'maxOutputBytes' };
const camelKeys = (raw: object): Record<string, unknown> =>
  Object.fromEntries(Object.entries(raw).map(([key, value]) => [FIELDS[key] ?? key.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase()), value]));

/** A worker profile as the launch activity uses it: everything resolved, nothing left to defaults. */
export interface Profile {
  name: string;
  harness: HarnessName;
  command?: string;
  model?: string;
  provider?: string;
  permissionMode?: string;
  allowedTools?: string[];
  tools?: string[];
  baseUrl?: string;
  /** The quota account (docs/quota.md); absent: the profile's name. */
  account?: string;
  cliRetries?: number;
  startupFiles?: string[];
  unreachableTimeoutMs?: number;
  flags: string[];
  timeoutMs: number;
  attempts: number;
  /** The cap on one output, in bytes; absent: the default (1 MiB). */
  maxOutputBytes?: number;
  /** Values may name worker environment variables as `${NAME}`; they are resolved on the worker, at launch. */
  env: Record<string, string>;
  /** A model-API executor's key variable (default ANTHROPIC_API_KEY / OPENAI_API_KEY), read on the worker. */
  apiKeyEnv?: string;
  maxOutputTokens?: number;
  /** The routes a sweep may use instead of this profile, per criterion, where a calibration record backs them. */
  calibratedRoutes?: CalibratedRoutes;
  /** An Anthropic profile's `cache_control.ttl`; absent: the API's default (5 minutes). */
  cacheTtl?: '5m' | '1h';
}

export interface CalibratedRoutes {
  /** The route (or `labels`) a candidate's κ is measured against in the record. */
  reference: string;
  minKappa: number;
  candidates: string[];
}

export class ProfileError extends Error {
  override name = 'ProfileError';
}

/** Reads the profiles YAML through zod so a typo names its file and key path instead of failing at launch time. */
export function parseProfiles(data: unknown, source: string): Map<string, Profile> {
  const invalid = (lines: string[]) => new ProfileError(`invalid worker profiles in ${source}:\n${lines.join('\n')}`);
  const parsed = profilesFileSchema.safeParse(data);
  if (!parsed.success) throw invalid(parsed.error.issues.map((issue) => `  ${source}: ${issue.path.join('.') || '(top level)'}: ${issue.message}`));
  const profiles = new Map<string, Profile>();
  for (const [name, raw] of Object.entries(parsed.data.profiles)) {
    const routes = raw['calibrated-routes'];
    profiles.set(name, { name, ...camelKeys(raw), ...(routes && { calibratedRoutes: camelKeys(routes) }) } as Profile);
  }
  const unknown = [...profiles.values()].flatMap((profile) =>
    (profile.calibratedRoutes?.candidates ?? [])
      .filter((route) => !profiles.has(route.split(':')[0] ?? ''))
      .map((route) => `  ${source}: profiles.${profile.name}.calibrated-routes.candidates: ${route} names no profile of this file`),
  );
  if (unknown.length > 0) throw invalid(unknown);
  return profiles;
}

/** Picks one profile by name, listing the known ones when it is absent. */
export function selectProfile(profiles: Map<string, Profile>, name: string, source: string): Profile {
  const profile = profiles.get(name);
  if (!profile) throw new ProfileError(`unknown worker profile "${name}" in ${source} (known: ${[...profiles.keys()].join(', ')})`);
  return profile;
}
