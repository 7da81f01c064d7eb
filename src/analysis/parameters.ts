/** `parameters.json`: what `prepare` fixed; identity relations and role-scoped validation read its keys. PURE MODULE. */
import { z } from 'zod';

export const sourceKinds = ['git', 'directory', 'bundle'] as const;

export const parametersSchema = z.strictObject({
  run: z.string().min(1),
  system: z.string().min(1),
  source: z.strictObject({
    kind: z.enum(sourceKinds),
    /** A URL or an absolute path. */
    location: z.string().min(1),
    /** For git: the revision to resolve at acquisition (default HEAD). */
    revision: z.string().min(1).optional(),
  }),
  profile: z.string().min(1),
  checkout: z.string().min(1),
  worktree: z.string().min(1),
  branch: z.string().min(1),
  preparationCommit: z.string().regex(/^[0-9a-f]{40}$/),
  method: z.strictObject({ package: z.string(), version: z.string(), commit: z.string().nullable() }),
  plan: z.string().min(1),
  planSha256: z.string().regex(/^[0-9a-f]{64}$/),
  layout: z.string().min(1),
  layoutSha256: z.string().regex(/^[0-9a-f]{64}$/),
  preparedAt: z.string(),
});

export type RunParameters = z.infer<typeof parametersSchema>;
export type SourceKind = (typeof sourceKinds)[number];
