/** `kb/instructions/validation.yaml`, each key checked on its own so a bad one is one finding and keeps its default (docs/validation.md). */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { Finding, Severity } from './findings.js';
import { parseYamlFile } from './yaml-lines.js';

/** Where a KB keeps the settings, repository-relative. */
export const VALIDATION_CONFIG_FILE = 'kb/instructions/validation.yaml';

/** A base check's severity, or `off` to skip it. */
export type CheckSetting = Severity | 'off';

export interface ValidationConfig {
  /** Local links that do not resolve to a file. */
  readonly links: CheckSetting;
  /** A title (first `# ` heading) longer than `titleMax` characters. */
  readonly title: CheckSetting;
  readonly titleMax: number;
  /** A file name (without `.md`) longer than `slugMax` characters. */
  readonly slug: CheckSetting;
  readonly slugMax: number;
  /** Type spec paths (repository-relative) whose notes derive their file names from data: no slug check. */
  readonly slugExemptTypes: readonly string[];
  /** A type spec whose `schema:` cannot load or compile; never `off`, since its notes go unchecked. */
  readonly typeSpec: Severity;
}

export const DEFAULT_VALIDATION_CONFIG: ValidationConfig = {
  links: 'warn',
  title: 'fail',
  titleMax: 100,
  slug: 'fail',
  slugMax: 70,
  slugExemptTypes: [],
  typeSpec: 'fail',
};

const SETTING_WORDS = ['fail', 'warn', 'off', 'failure', 'warning'] as const;
const toSetting = (value: (typeof SETTING_WORDS)[number]): CheckSetting => (value === 'failure' ? 'fail' : value === 'warning' ? 'warn' : value);
const setting = z.enum(SETTING_WORDS, { error: 'must be one of fail, warn, off (failure and warning are accepted too)' }).transform(toSetting);
const severity = z
  .enum(['fail', 'warn', 'failure', 'warning'], { error: 'must be fail or warn (a type that cannot validate its notes is never silent)' })
  .transform((value) => toSetting(value) as Severity);
const limit = z.int({ error: 'must be a whole number of characters' }).min(1, { error: 'must be at least 1' });
const typePaths = z.array(
  z
    .string({ error: 'must be a type spec path' })
    .min(1, { error: 'must be a type spec path' })
    .refine((value) => !value.startsWith('/') && !value.startsWith('./') && !value.startsWith('../') && !/^[a-z][a-z0-9+.-]*:/i.test(value), {
      error: 'must be a repository-relative type spec path, e.g. kb/types/generated-index.md',
    }),
  { error: 'must be a list of type spec paths' },
);

/** Each key with its schema and the config field it sets; keys are checked one by one so one bad value spoils nothing else. */
const KEYS = {
  links: { schema: setting, field: 'links' },
  title: { schema: setting, field: 'title' },
  'title-max': { schema: limit, field: 'titleMax' },
  slug: { schema: setting, field: 'slug' },
  'slug-max': { schema: limit, field: 'slugMax' },
  'slug-exempt-types': { schema: typePaths, field: 'slugExemptTypes' },
  'type-spec': { schema: severity, field: 'typeSpec' },
} as const satisfies Record<string, { schema: z.ZodType; field: keyof ValidationConfig }>;

export interface LoadedValidationConfig {
  readonly config: ValidationConfig;
  /** Problems of the settings file, on that file; bad keys fall back to their defaults. */
  readonly findings: Finding[];
}

/** Reads the KB's validation settings; no file means the defaults. */
export async function loadValidationConfig(repoRoot: string): Promise<LoadedValidationConfig> {
  let source: string;
  try {
    source = await readFile(path.join(repoRoot, ...VALIDATION_CONFIG_FILE.split('/')), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const findings =
      code === 'ENOENT' || code === 'ENOTDIR' ? [] : [configProblem(VALIDATION_CONFIG_FILE, `cannot be read: ${(error as Error).message}; the defaults apply`)];
    return { config: DEFAULT_VALIDATION_CONFIG, findings };
  }
  return parseValidationConfig(source);
}

const configProblem = (file: string, message: string, line?: number): Finding => ({
  file,
  ...(line !== undefined && { line }),
  rule: 'validation-config',
  severity: 'fail',
  message,
});

/** Parses the settings text into a config, with one finding per bad key (its line, its key, what is allowed). */
export function parseValidationConfig(source: string, file: string = VALIDATION_CONFIG_FILE): LoadedValidationConfig {
  const findings: Finding[] = [];
  const problem = (message: string, line?: number) => findings.push(configProblem(file, message, line));
  const yaml = parseYamlFile(source);
  if (!yaml.ok) for (const { message, line } of yaml.errors) problem(`${message}; the defaults apply`, line);
  if (!yaml.ok || yaml.data === null || yaml.data === undefined) return { config: DEFAULT_VALIDATION_CONFIG, findings };
  const { data, lineAt } = yaml;
  if (typeof data !== 'object' || Array.isArray(data)) {
    problem(`must be a mapping of settings (${Object.keys(KEYS).join(', ')}); the defaults apply`, 1);
    return { config: DEFAULT_VALIDATION_CONFIG, findings };
  }
  const config: Record<string, unknown> = { ...DEFAULT_VALIDATION_CONFIG };
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    const known = (KEYS as Record<string, { schema: z.ZodType; field: keyof ValidationConfig }>)[key];
    if (known === undefined) {
      const hint = key.includes('_') ? ' (keys are hyphenated, not underscored)' : '';
      problem(`${key}: unknown setting${hint}; the settings are ${Object.keys(KEYS).join(', ')}`, lineAt([key]));
      continue;
    }
    const parsed = known.schema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const at = [key, ...(issue?.path ?? [])];
      const fallback = `the default ${JSON.stringify(DEFAULT_VALIDATION_CONFIG[known.field])} applies`;
      problem(`${at.map(String).join('.')}: ${issue?.message ?? 'is invalid'}, found ${JSON.stringify(value)}; ${fallback}`, lineAt(at));
      continue;
    }
    config[known.field] = parsed.data;
  }
  return { config: config as unknown as ValidationConfig, findings };
}
