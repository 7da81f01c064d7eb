/** Layouts (directory types): a `*.layout.yaml` declaring each role's path, member type, required dispositions and relations (docs/layouts.md). */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { KbError } from './errors.js';
import type { Finding } from './findings.js';
import { toPosix } from './kb-path.js';
import { resolveKbPath, type Problem } from './type-registry.js';
import { parseYamlFile } from './yaml-lines.js';

export const DISPOSITIONS = ['published', 'blocked', 'out-of-scope'] as const;
export type Disposition = (typeof DISPOSITIONS)[number];
/** The run values a layout's `destination` may name. */
export const DESTINATION_VALUES = ['system', 'run'] as const;

const NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
const roleName = z.string().regex(NAME, { error: 'must be lowercase words joined by hyphens (no underscores), e.g. runtime-report' });
const disposition = z.enum(DISPOSITIONS, { error: `must be one of ${DISPOSITIONS.join(', ')}` });
/** A relative path that stays below where it starts: no leading `/`, no backslash, no empty, `.` or `..` segment. */
const relativePath = (error: string) =>
  z
    .string()
    .min(1)
    .refine((value) => !value.startsWith('/') && !value.includes('\\') && value.split('/').every((part) => part !== '' && part !== '.' && part !== '..'), {
      error,
    });
const memberPath = relativePath('must be a relative path inside the artifact (no `..`, no leading `/`)').refine((value) => value.endsWith('.md'), {
  error: 'must name a markdown member (`.md`)',
});
const fieldName = z.string().min(1);

const roleSchema = z.strictObject({
  description: z.string().optional(),
  path: memberPath,
  type: z.string().min(1, { error: 'must name the member type (a type spec path)' }),
  required: z.array(disposition).default([]),
  cites: z.array(roleName).default([]),
  identity: z.union([z.array(fieldName), z.record(fieldName, fieldName)]).default([]),
  verifies: z.array(roleName).default([]),
});

/** The layout file's shape; relations between roles are checked after it parses. */
export const layoutFileSchema = z.strictObject({
  layout: roleName,
  description: z.string().optional(),
  records: z.strictObject({ id: z.string().min(1) }).optional(),
  disposition: z.strictObject({ role: roleName, field: fieldName }).optional(),
  destination: relativePath('must be a relative directory in the repository (no `..`, no leading `/`, no trailing `/`)')
    .refine((value) => [...value.matchAll(/\{([^}]*)\}/gu)].every((match) => DESTINATION_VALUES.includes(match[1] as (typeof DESTINATION_VALUES)[number])), {
      error: 'may use only the placeholders {system} and {run}',
    })
    .optional(),
  roles: z.record(roleName, roleSchema).refine((roles) => Object.keys(roles).length > 0, { error: 'must declare at least one role' }),
});

export interface LayoutRole {
  readonly name: string;
  readonly description: string | undefined;
  readonly path: string;
  /** The member type as written in the layout. */
  readonly typeWritten: string;
  /** The member type's repository path. */
  readonly type: string;
  readonly required: readonly Disposition[];
  readonly cites: readonly string[];
  /** Frontmatter field → name of the run value it must equal. */
  readonly identity: Readonly<Record<string, string>>;
  readonly verifies: readonly string[];
}

export interface Layout {
  /** Repository-relative path of the layout file (its identity). */
  readonly file: string;
  readonly name: string;
  readonly description: string | undefined;
  /** Source of the record-ID regular expression, when the layout uses citations. */
  readonly recordId: string | undefined;
  readonly disposition: { readonly role: string; readonly field: string } | undefined;
  /** Where a published artifact goes, repository-relative, with `{system}` and `{run}` placeholders; absent: the layout is never published. */
  readonly destination: string | undefined;
  readonly roles: readonly LayoutRole[];
}

/** The destination directory of a run's published artifact. */
export function destinationFor(template: string, values: { readonly system: string; readonly run: string }): string {
  return template.replace(/\{(system|run)\}/gu, (_match, name: 'system' | 'run') => values[name]);
}

export type LayoutParse = { readonly ok: true; readonly layout: Layout } | { readonly ok: false; readonly problems: Problem[] };

/** Parses a layout file's text into a checked Layout, or every problem with its line, so a bad layout is fixed in one pass. */
export function parseLayout(source: string, file: string, repoRoot: string): LayoutParse {
  const yaml = parseYamlFile(source);
  if (!yaml.ok) return { ok: false, problems: yaml.errors.map((error) => ({ rule: 'layout-yaml', severity: 'fail', ...error })) };
  const problems: Problem[] = [];
  const problem = (segments: readonly PropertyKey[], message: string): void => {
    const line = yaml.lineAt(segments);
    const where = segments.length > 0 ? `${segments.map(String).join('.')}: ` : '';
    problems.push({ rule: 'layout', severity: 'fail', ...(line !== undefined && { line }), message: `${where}${message}` });
  };

  const parsed = layoutFileSchema.safeParse(yaml.data);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problem(issue.path, issueMessage(issue));
    return { ok: false, problems };
  }
  const value = parsed.data;

  const names = Object.keys(value.roles);
  const known = new Set(names);
  const paths = new Map<string, string>();
  const roles: LayoutRole[] = [];
  for (const [name, role] of Object.entries(value.roles)) {
    const at = ['roles', name];
    const clash = paths.get(role.path);
    if (clash !== undefined) problem([...at, 'path'], `${role.path} is already the path of role ${clash}`);
    paths.set(role.path, name);
    for (const relation of ['cites', 'verifies'] as const) {
      role[relation].forEach((target, index) => {
        if (!known.has(target)) problem([...at, relation, index], `names unknown role ${target} (roles: ${names.join(', ')})`);
        if (target === name) problem([...at, relation, index], `a role cannot ${relation === 'cites' ? 'cite' : 'verify'} itself`);
      });
    }
    if (role.cites.length > 0 && value.records === undefined)
      problem([...at, 'cites'], 'cites records, but the layout declares no `records.id` pattern to recognise them');
    const type = resolveKbPath(role.type, file, repoRoot);
    if (!type.ok) problem([...at, 'type'], type.reason);
    const identity = Array.isArray(role.identity) ? Object.fromEntries(role.identity.map((field) => [field, field])) : role.identity;
    roles.push({
      name,
      description: role.description,
      path: role.path,
      typeWritten: role.type,
      type: type.ok ? type.path : role.type,
      required: [...new Set(role.required)],
      cites: role.cites,
      identity,
      verifies: role.verifies,
    });
  }
  if (value.records !== undefined) {
    try {
      new RegExp(value.records.id, 'u');
    } catch (error) {
      problem(['records', 'id'], `is not a valid regular expression: ${(error as Error).message}`);
    }
  }
  if (value.disposition !== undefined && !known.has(value.disposition.role)) {
    problem(['disposition', 'role'], `names unknown role ${value.disposition.role} (roles: ${names.join(', ')})`);
  }
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    layout: {
      file,
      name: value.layout,
      description: value.description,
      recordId: value.records?.id,
      disposition: value.disposition,
      destination: value.destination,
      roles,
    },
  };
}

/** Loads a layout the artifact checks will rely on; a layout that does not load stops them with every problem named. */
export async function loadLayout(layoutPath: string, repoRoot: string): Promise<Layout> {
  const absolute = path.resolve(repoRoot, layoutPath);
  const file = toPosix(path.relative(repoRoot, absolute));
  let source: string;
  try {
    source = await readFile(absolute, 'utf8');
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new KbError('layout-invalid', `layout ${file} cannot be read: ${why}`, { cause: error });
  }
  const parsed = parseLayout(source, file, repoRoot);
  if (!parsed.ok) {
    const detail = parsed.problems.map((p) => `  ${file}${p.line ? `:${p.line}` : ''}: ${p.message}`).join('\n');
    throw new KbError('layout-invalid', `layout ${file} is invalid:\n${detail}`);
  }
  return parsed.layout;
}

/** Checks a layout file on its own (as `commonplace validate` does for `*.layout.yaml`), as findings on that file. */
export function checkLayoutSource(source: string, file: string, repoRoot: string): { layout: Layout | undefined; findings: Finding[] } {
  const parsed = parseLayout(source, file, repoRoot);
  if (parsed.ok) return { layout: parsed.layout, findings: [] };
  return { layout: undefined, findings: parsed.problems.map((problem) => ({ file, ...problem })) };
}

/** The role a layout declares under a name, or an explicit error listing the roles it does declare. */
export function layoutRole(layout: Layout, name: string): LayoutRole {
  const role = layout.roles.find((candidate) => candidate.name === name);
  if (role === undefined) {
    throw new KbError('undeclared-role', `role ${name} is not declared by layout ${layout.file} (its roles: ${layout.roles.map((r) => r.name).join(', ')})`);
  }
  return role;
}

function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}`;
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'is required';
  if (issue.code === 'invalid_key') return 'role names must be lowercase words joined by hyphens (no underscores)';
  return issue.message;
}
