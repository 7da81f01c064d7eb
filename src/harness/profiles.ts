import { z } from 'zod';
import { parseDuration } from './duration.js';

export const harnessNames = ['claude', 'codex', 'pi', 'fake'] as const;
export type HarnessName = (typeof harnessNames)[number];

const duration = z.union([z.string(), z.number()]).transform((value, ctx) => {
  try {
    return parseDuration(value);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});

const profileSchema = z
  .object({
    harness: z.enum(harnessNames),
    command: z.string().min(1).optional(),
    model: z.string().min(1).optional(),
    provider: z.string().min(1).optional(),
    'permission-mode': z.string().min(1).optional(),
    'allowed-tools': z.array(z.string().min(1)).optional(),
    flags: z.array(z.string()).default([]),
    timeout: duration.default(30 * 60),
    attempts: z.number().int().positive().default(3),
    /** The cap on one output, in bytes (default 1 MiB): a larger output is a rejected candidate. */
    'max-output': z.number().int().positive().optional(),
    env: z.record(z.string(), z.string()).default({}),
  })
  .strict();

const profilesFileSchema = z.object({ profiles: z.record(z.string().regex(/^[a-z0-9][a-z0-9-]*$/), profileSchema) }).strict();

/** A worker profile as the launch activity uses it: everything resolved, nothing left to defaults. */
export interface Profile {
  name: string;
  harness: HarnessName;
  command?: string;
  model?: string;
  provider?: string;
  permissionMode?: string;
  allowedTools?: string[];
  flags: string[];
  timeoutMs: number;
  attempts: number;
  /** The cap on one output, in bytes; absent: the default (1 MiB). */
  maxOutputBytes?: number;
  env: Record<string, string>;
}

export class ProfileError extends Error {
  override name = 'ProfileError';
}

/** Reads the profiles YAML through zod so a typo names its file and key path instead of failing at launch time. */
export function parseProfiles(data: unknown, source: string): Map<string, Profile> {
  const parsed = profilesFileSchema.safeParse(data);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${source}: ${issue.path.join('.') || '(top level)'}: ${issue.message}`);
    throw new ProfileError(`invalid worker profiles in ${source}:\n${lines.join('\n')}`);
  }
  const profiles = new Map<string, Profile>();
  for (const [name, raw] of Object.entries(parsed.data.profiles)) {
    profiles.set(name, {
      name,
      harness: raw.harness,
      ...(raw.command !== undefined && { command: raw.command }),
      ...(raw.model !== undefined && { model: raw.model }),
      ...(raw.provider !== undefined && { provider: raw.provider }),
      ...(raw['permission-mode'] !== undefined && { permissionMode: raw['permission-mode'] }),
      ...(raw['allowed-tools'] !== undefined && { allowedTools: raw['allowed-tools'] }),
      flags: raw.flags,
      timeoutMs: raw.timeout,
      attempts: raw.attempts,
      ...(raw['max-output'] !== undefined && { maxOutputBytes: raw['max-output'] }),
      env: raw.env,
    });
  }
  return profiles;
}

/** Picks one profile by name, listing the known ones when it is absent. */
export function selectProfile(profiles: Map<string, Profile>, name: string, source: string): Profile {
  const profile = profiles.get(name);
  if (!profile) {
    throw new ProfileError(`unknown worker profile "${name}" in ${source} (known: ${[...profiles.keys()].join(', ')})`);
  }
  return profile;
}
