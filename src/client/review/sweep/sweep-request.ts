/**
 * A sweep's options read once, at the command's boundary (`review run gates`, `review schedule
 * create`): commander's strings checked by one zod schema into the sweep's input, the checkout
 * resolved once, and `review run gates`'s own options into one typed request. A bad value is a
 * one-line usage error (exit 1); nothing is asked of the server.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { commandSelections } from '../../../review/criteria.js';
import type { SweepInput } from '../../../review/sweep-types.js';
import { checkoutRootOf } from '../../shared/checkout.js';
import { UserError } from '../../shared/errors.js';
import { flag, maxCostOption, parseOptions, positiveWhole } from '../../shared/options.js';

/** The sweep options as commander hands them (sweep-options.ts registers them). */
export interface SweepCommandOptions {
  notes: string[];
  gates: string[];
  criteria?: string;
  grouping: string;
  profile: string;
  concurrency?: string;
  batchSize?: string;
  autoResume?: boolean;
  batch?: boolean;
  live?: boolean;
  kb?: string;
  profiles?: string;
  scenario?: string;
  maxCost?: string;
  json?: boolean;
}

const grouping = z.string().transform((text, context) => {
  if (text === 'pair' || text === 'bundle') return text;
  context.addIssue({ code: 'custom', message: `--grouping must be pair or bundle, got "${text}"` });
  return z.NEVER;
});

/** The sweep's fields, in the order their checks run (the first bad one is the message). */
const SWEEP_FIELDS = {
  grouping,
  concurrency: positiveWhole('concurrency').optional(),
  batchSize: positiveWhole('batch-size').optional(),
  maxCost: maxCostOption,
  notes: z.array(z.string()),
  gates: z.array(z.string()),
  criteria: z.string().optional(),
  profile: z.string(),
  autoResume: flag,
  batch: flag,
  live: flag,
  kb: z.string().optional(),
  profiles: z.string().optional(),
  scenario: z.string().optional(),
};

/** The fields with the criterion kinds read (`--criteria`, else all kinds, or gates only when `--gates` is given). */
const sweepSchema = (fields: typeof SWEEP_FIELDS) =>
  z.object(fields).transform((options, context) => {
    const criteria = commandSelections(options.criteria, options.gates.length > 0);
    if (options.batch && options.live) {
      context.addIssue({ code: 'custom', message: '--batch and --live exclude each other: give one' });
      return z.NEVER;
    }
    if (criteria.ok) return { ...options, criteria: criteria.kinds };
    context.addIssue({ code: 'custom', message: criteria.message });
    return z.NEVER;
  });

/**
 * The workflow input a sweep command asks for, its options parsed once and its checkout resolved
 * once; `extra` is what the command adds (a schedule's auto-resume). `fields` may order the checks
 * otherwise (`review run gates` reads `--max-cost` first).
 */
export function parseSweepCommand(raw: SweepCommandOptions, extra: Partial<SweepInput> = {}, fields: typeof SWEEP_FIELDS = SWEEP_FIELDS): SweepInput {
  const options = parseOptions(sweepSchema(fields), raw);
  return {
    checkout: checkoutRootOf(options.kb),
    notes: options.notes,
    gates: options.gates,
    criteria: options.criteria,
    grouping: options.grouping,
    profile: options.profile,
    ...(options.concurrency !== undefined && { concurrency: options.concurrency }),
    ...(options.batchSize !== undefined && { batchSize: options.batchSize }),
    autoResume: options.autoResume ?? false,
    ...(options.maxCost !== undefined && { maxCostUsd: options.maxCost }),
    ...(options.profiles && { profilesFile: resolve(options.profiles) }),
    ...(options.scenario && { env: { COMMONPLACE_FAKE_SCENARIO: resolve(options.scenario) } }),
    ...extra,
    // `--batch` / `--live` as given; otherwise what the command defaults to (a schedule: `auto`), else live.
    ...((options.batch || options.live || extra.batch !== undefined) && { batch: options.batch ? 'always' : options.live ? 'never' : extra.batch }),
  };
}

export type RunGatesOptions = SweepCommandOptions & { resume?: string; detach?: boolean; estimate?: boolean };

/** How `review run gates` follows what it starts: to its end, or (`--detach`) not at all; as text or `--json`. */
export interface Following {
  detach: boolean;
  json: boolean;
}

/** What `review run gates` asks: a new sweep (or only its estimate), or the sweep to resume with its new cap. */
export type GatesRequest = Following &
  ({ resume: string; maxCostUsd: number | undefined; kb: string | undefined } | { resume?: undefined; input: SweepInput; estimate: boolean });

/** `review run gates` reads `--max-cost` first; with `--resume`, the cap is all it reads. */
const GATES_FIELDS = Object.assign({ maxCost: maxCostOption }, SWEEP_FIELDS);
const RESUME_FIELDS = z.object({ maxCost: maxCostOption });

/** The options of `review run gates` as one request. */
export function parseGatesCommand(raw: RunGatesOptions): GatesRequest {
  const following = { detach: raw.detach ?? false, json: raw.json ?? false };
  if (raw.resume === undefined) return { ...following, input: parseSweepCommand(raw, {}, GATES_FIELDS), estimate: raw.estimate ?? false };
  if (raw.estimate) throw new UserError('--estimate estimates a sweep before it starts: give it the options of a new sweep, without --resume');
  return { ...following, resume: raw.resume, maxCostUsd: parseOptions(RESUME_FIELDS, raw).maxCost, kb: raw.kb };
}
