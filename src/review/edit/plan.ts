/** The revision plan file (docs/review-editing.md): findings are `plan-yaml`, or `plan/<zod issue code>` with a JSON Pointer, as validation names them. */
import YAML, { YAMLError } from 'yaml';
import { z } from 'zod';
import type { Finding } from '../../kb/findings.js';
import { PASSES, type Plan } from './plan-types.js';

const passName = z.enum(PASSES, { error: (issue) => `unknown pass ${JSON.stringify(issue.input)}; the passes are ${PASSES.join(', ')}` });
// A bare name is shorthand for `{ pass: name }`, so both forms report the same findings.
const passEntry = z.preprocess(
  (value) => (typeof value === 'string' ? { pass: value } : value),
  z.strictObject({ pass: passName, focus: z.string().min(1).optional(), reason: z.string().min(1).optional() }),
);
const planSchema = z.strictObject({
  passes: z
    .array(passEntry)
    .min(1, 'a plan names at least one pass')
    .max(PASSES.length)
    .superRefine((passes, ctx) => {
      const seen = new Set<string>();
      for (const entry of passes) {
        if (seen.has(entry.pass)) ctx.addIssue({ code: 'custom', message: `pass ${entry.pass} appears twice` });
        seen.add(entry.pass);
      }
    }),
});

export type PlanParse = { ok: true; plan: Plan } | { ok: false; findings: Finding[] };

/** `/passes/0/pass`. */
const pointer = (issuePath: readonly PropertyKey[]) => issuePath.map((key) => `/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

/** From `--plan FILE` or an assessment's `plan.yaml`. */
export function parsePlan(text: string, file = 'plan'): PlanParse {
  let data: unknown;
  try {
    data = YAML.parse(text);
  } catch (error) {
    const line = error instanceof YAMLError ? error.linePos?.[0].line : undefined;
    return {
      ok: false,
      findings: [
        {
          file,
          ...(line !== undefined && { line }),
          rule: 'plan-yaml',
          severity: 'fail',
          message: `not valid YAML: ${(error as Error).message.split('\n')[0]}`,
        },
      ],
    };
  }
  const parsed = planSchema.safeParse(data);
  if (!parsed.success) {
    return {
      ok: false,
      findings: parsed.error.issues.map((issue) => ({
        file,
        path: pointer(issue.path),
        rule: `plan/${issue.code}`,
        severity: 'fail' as const,
        message: issue.message,
      })),
    };
  }
  const plan: Plan = {
    passes: parsed.data.passes.map((entry) => ({
      pass: entry.pass,
      ...(entry.focus !== undefined && { focus: entry.focus }),
      ...(entry.reason !== undefined && { reason: entry.reason }),
    })),
  };
  return { ok: true, plan };
}

/** `plan.yaml` in the run directory, for inspection. */
export function formatPlan(plan: Plan): string {
  return YAML.stringify({ passes: plan.passes.map((entry) => (entry.focus === undefined && entry.reason === undefined ? entry.pass : entry)) });
}
