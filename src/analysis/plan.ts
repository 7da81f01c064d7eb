/**
 * The plan: role data for one analysis method. A YAML file (keys hyphenated; an underscore is
 * refused) loaded through zod by `load-plan.ts`; what it loads to is this serializable `Plan`,
 * which the workflow receives once, at opening, and keeps for the run.
 *
 * PURE MODULE: the workflow imports its types; the schema uses zod only.
 */
import { z } from 'zod';
import type { Layout } from '../kb/layouts.js';

const NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
const name = z.string().regex(NAME, { error: 'must be lowercase words joined by hyphens (no underscores), e.g. runtime-report' });
const relativePath = z
  .string()
  .min(1)
  .refine((value) => !value.startsWith('/') && !value.includes('\\') && value.split('/').every((part) => part !== '' && part !== '.' && part !== '..'), {
    error: 'must be a plain relative path (no `..`, no leading `/`)',
  });

const roleSchema = z.strictObject({
  description: z.string().optional(),
  instruction: z.string({ error: 'must name the instruction file the worker follows' }).min(1),
  outputs: z.array(relativePath).min(1).optional(),
  reads: z.array(name).default([]),
  attempts: z.number().int().min(1).max(50).default(3),
  criteria: z.array(name).default([]),
  checks: z.array(name).default([]),
  feedback: z.array(name).default([]),
});

/** The plan file's shape; references between its parts and to the layout are checked after it parses. */
export const planFileSchema = z.strictObject({
  plan: name,
  description: z.string().optional(),
  layout: z.string().min(1),
  'frozen-source': name,
  'prompt-section': z.string().min(1),
  parameters: z.record(name, z.string()).default({}),
  criteria: z.record(name, z.array(z.string().min(1)).min(1)).default({}),
  roles: z.record(name, roleSchema),
});

export type PlanFile = z.infer<typeof planFileSchema>;

export interface PlanText {
  /** Repository-relative path. */
  readonly file: string;
  readonly text: string;
  readonly sha256: string;
}

export interface PlanRole {
  readonly name: string;
  readonly description: string | undefined;
  readonly instruction: PlanText;
  /** Files the worker writes in its launch directory; the first is the member. */
  readonly outputs: readonly string[];
  /** Roles whose accepted members the worker is handed, in workflow order (a verifier's subjects included). */
  readonly reads: readonly string[];
  readonly attempts: number;
  readonly criteria: readonly string[];
  /** The files the worker is pointed at: the role's criteria groups, then the types of what it reads. */
  readonly criteriaFiles: readonly string[];
  readonly checks: readonly string[];
  readonly feedback: readonly string[];
  /** From the layout. */
  readonly path: string;
  readonly type: string;
  readonly cites: readonly string[];
  readonly identity: Readonly<Record<string, string>>;
  readonly verifies: readonly string[];
}

export interface Plan {
  readonly file: string;
  readonly sha256: string;
  readonly name: string;
  readonly description: string | undefined;
  readonly layout: Layout & { readonly sha256: string };
  /** The role whose `source` field must name the run's frozen source. */
  readonly frozenSource: string;
  readonly section: PlanText;
  readonly parameters: Readonly<Record<string, string>>;
  readonly criteria: Readonly<Record<string, readonly string[]>>;
  readonly roles: Readonly<Record<string, PlanRole>>;
}

/** The role's entry, or an error naming the roles there are (a workflow bug, never an operator's). */
export function planRole(plan: Plan, role: string): PlanRole {
  const entry = plan.roles[role];
  if (entry === undefined) throw new Error(`plan ${plan.file} has no role ${role} (roles: ${Object.keys(plan.roles).join(', ')})`);
  return entry;
}
