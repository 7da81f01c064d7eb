/** An analysis method's role data: `load-plan.ts` loads the YAML to this `Plan`, which the workflow receives once, at opening. PURE MODULE. */
import { z } from 'zod';
import type { Layout } from '../kb/layouts.js';
import { LINE_NAME } from './prompt.js';

const name = z.string().regex(LINE_NAME, { error: 'must be lowercase words joined by hyphens (no underscores), e.g. runtime-report' });
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

/** References between its parts and to the layout are checked after it parses. */
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
  readonly file: string;
  readonly text: string;
  readonly sha256: string;
}

export interface PlanRole {
  readonly name: string;
  readonly description: string | undefined;
  readonly instruction: PlanText;
  /** The first is the member. */
  readonly outputs: readonly string[];
  /** In workflow order, a verifier's subjects included. */
  readonly reads: readonly string[];
  readonly attempts: number;
  readonly criteria: readonly string[];
  /** The role's criteria groups, then the types of what it reads. */
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
