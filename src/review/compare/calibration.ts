/** Calibration records: made from a compare report, checked as a file, judged stale against the definitions now (docs/review-compare.md). PURE MODULE. */
import { z } from 'zod';
import { LABELS_ROUTE, parseRoute, RESULTS_ROUTE, type CompareReport, type KeptCalibrationRecord } from './types.js';

/** `frontmatter/title-as-claim` → `frontmatter_title-as-claim.json`. */
export function calibrationFileName(criterion: string): string {
  return `${criterion.replace(/[^A-Za-z0-9._-]+/g, '_')}.json`;
}

/** Every route's and the reference's profile, not `results` or `labels`. */
export function recordProfiles(routes: readonly string[], reference: string): string[] {
  const names = new Set<string>();
  for (const name of [reference, ...routes]) {
    if (name === LABELS_ROUTE || name === RESULTS_ROUTE) continue;
    const route = parseRoute(name);
    if (typeof route !== 'string') names.add(route.profile);
  }
  return [...names].sort();
}

export interface KeepInput {
  report: CompareReport;
  criterion: string;
  /** A route of the run, or `labels`. */
  reference: string;
  /** The one the run's verdicts were given against. */
  criterionHash: string;
  profileHashes: Record<string, string>;
  at: string;
}

/** A message when the report cannot back a record. */
export function recordFromReport(input: KeepInput): KeptCalibrationRecord | string {
  const entry = input.report.criteria.find((c) => c.criterion === input.criterion);
  if (!entry) return `criterion ${input.criterion} is not in compare run ${input.report.runId}`;
  const agreements = entry.agreements.filter((a) => a.reference === input.reference && a.n > 0);
  if (agreements.length === 0) return `criterion ${input.criterion}: no route was scored against ${input.reference} on any pair`;
  const cost = new Map(input.report.costs.map((c) => [c.route, c.costUsdPerPair]));
  const routes = agreements.map((a) => ({
    route: a.route,
    n: a.n,
    raw: a.raw,
    kappa: a.kappa,
    kappaInterval: a.kappaInterval,
    costUsdPerPair: cost.get(a.route) ?? null,
  }));
  const wanted = recordProfiles(
    routes.map((r) => r.route),
    input.reference,
  );
  const profileHashes = Object.fromEntries(
    wanted.filter((name) => input.profileHashes[name] !== undefined).map((name) => [name, input.profileHashes[name] as string]),
  );
  return {
    version: 1,
    criterion: input.criterion,
    criterionHash: input.criterionHash,
    runId: input.report.runId,
    at: input.at,
    reference: input.reference,
    routes,
    profileHashes,
  };
}

const sha = z.string().regex(/^[0-9a-f]{64}$/, 'a lowercase hex SHA-256');
const recordSchema = z
  .object({
    version: z.literal(1),
    criterion: z.string().min(1),
    criterionHash: sha,
    runId: z.string().min(1),
    at: z.string().datetime({ offset: true }),
    reference: z.string().min(1),
    routes: z
      .array(
        z
          .object({
            route: z.string().min(1),
            n: z.number().int().min(0),
            raw: z.number().min(0).max(1),
            kappa: z.number().min(-1).max(1).nullable(),
            kappaInterval: z.tuple([z.number(), z.number()]).nullable(),
            costUsdPerPair: z.number().min(0).nullable(),
          })
          .strict(),
      )
      .min(1),
    profileHashes: z.record(z.string(), sha),
  })
  .strict();

/** Every problem, with its key path. */
export function parseCalibrationRecord(value: unknown, file: string): { ok: true; record: KeptCalibrationRecord } | { ok: false; problems: string[] } {
  const parsed = recordSchema.safeParse(value);
  if (!parsed.success) return { ok: false, problems: parsed.error.issues.map((issue) => `${issue.path.join('.') || '(top level)'}: ${issue.message}`) };
  const record = parsed.data as KeptCalibrationRecord;
  const expected = calibrationFileName(record.criterion);
  const name = file.split('/').pop() ?? file;
  if (name !== expected) return { ok: false, problems: [`criterion ${record.criterion} is kept in ${expected}, not ${name}`] };
  return { ok: true, record };
}

export interface CurrentDefinitions {
  /** Undefined when the criterion is gone. */
  criterionHash: string | undefined;
  profileHashes: Record<string, string>;
}

/** Empty: fresh. */
export function staleness(record: KeptCalibrationRecord, now: CurrentDefinitions): string[] {
  const reasons: string[] = [];
  if (now.criterionHash === undefined) reasons.push(`criterion ${record.criterion} is gone`);
  else if (now.criterionHash !== record.criterionHash)
    reasons.push(
      `criterion ${record.criterion} changed since compare run ${record.runId} (hash ${record.criterionHash.slice(0, 12)} then, ${now.criterionHash.slice(0, 12)} now)`,
    );
  for (const [profile, hash] of Object.entries(record.profileHashes)) {
    const current = now.profileHashes[profile];
    if (current === undefined) reasons.push(`profile ${profile} is no longer defined`);
    else if (current !== hash) reasons.push(`profile ${profile} is defined differently since compare run ${record.runId}`);
  }
  return reasons;
}
