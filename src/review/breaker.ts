/**
 * The systematic-failure breaker: when a batch's first settled units all fail the same check, the sweep stops instead of
 * paying for the rest; held units are asked again after the fix, or become problems if it goes on. Pure: workflow code.
 */
import type { Finding } from '../kb/findings.js';
import type { StopOf } from '../runs/stop.js';

/** How many settled units, all failed the same way, trip the breaker. */
export const BREAKER_UNITS = 10;

/** An example finding is clipped to this many characters in the stop's reason. */
const EXAMPLE_CHARS = 300;

/** `armed`: judging the first units; `off`: the batch goes on unjudged; `tripped`: the first units failed alike, the batch stops. */
export interface BreakerState<T> {
  readonly status: 'armed' | 'off' | 'tripped';
  /** Units that failed the same check while armed (or since the trip), and the launches they spent. */
  readonly units: number;
  readonly launches: number;
  /** The check they failed: the rules of their last findings (`result-line`). */
  readonly rule?: string;
  /** The first failed unit and its first finding, for the stop's reason. */
  readonly example?: string;
  /** The failed units held back from the problems while armed or tripped. */
  readonly held: readonly T[];
}

export type SettledUnit<T> =
  | { readonly outcome: 'accepted' }
  | { readonly outcome: 'failed'; readonly name: string; readonly launches: number; readonly findings: readonly Finding[]; readonly item: T };

export interface BreakerStep<T> {
  readonly state: BreakerState<T>;
  /** Failed units to record as problems now (the held ones when the breaker turns off, or this one once it is off). */
  readonly record: readonly T[];
  /** Set once, on the step that trips the breaker. */
  readonly stop?: StopOf<'systematic-failure'>;
}

/** A breaker that judges the next units afresh (a batch's start, and every resume's new batch). */
export function armedBreaker<T>(): BreakerState<T> {
  return { status: 'armed', units: 0, launches: 0, held: [] };
}

/** The check a failed unit failed: the distinct rules of its findings. */
export function failedCheck(findings: readonly Finding[]): string {
  const rules = [...new Set(findings.map((finding) => finding.rule))].sort();
  return rules.length > 0 ? rules.join(' + ') : 'no accepted output';
}

function exampleOf(name: string, findings: readonly Finding[]): string {
  const message = findings[0]?.message ?? 'no accepted output';
  const text = `${name}: ${message}`.replace(/\s+/g, ' ');
  return text.length > EXAMPLE_CHARS ? `${text.slice(0, EXAMPLE_CHARS - 1)}…` : text;
}

/** The stop a tripped breaker makes: the check, an example, the launches spent, and that a resume after a fix goes on. */
export function systematicFailure(state: Pick<BreakerState<unknown>, 'units' | 'launches' | 'rule' | 'example'>): StopOf<'systematic-failure'> {
  const rule = state.rule ?? 'no accepted output';
  const example = state.example ?? '';
  return {
    kind: 'systematic-failure',
    disposition: 'operator',
    reason:
      `the first ${state.units} units of the batch all failed the ${rule} check (${state.launches} launches spent), e.g. ${example}; ` +
      'the rest was not asked — fix the profile, harness or criterion, then resume: these units are asked again and the breaker judges afresh',
    rule,
    example,
    units: state.units,
    launches: state.launches,
  };
}

/** Settles one unit: an accept or a different failure turns it off; the `window`-th alike failure trips it (later failures are held too). */
export function settleUnit<T>(state: BreakerState<T>, unit: SettledUnit<T>, window = BREAKER_UNITS): BreakerStep<T> {
  if (state.status === 'off') return { state, record: unit.outcome === 'failed' ? [unit.item] : [] };
  if (state.status === 'tripped') return { state: unit.outcome === 'failed' ? { ...state, held: [...state.held, unit.item] } : state, record: [] };
  if (unit.outcome === 'accepted') return { state: { ...state, status: 'off', held: [] }, record: state.held };
  const rule = failedCheck(unit.findings);
  if (state.units > 0 && rule !== state.rule) return { state: { ...state, status: 'off', held: [] }, record: [...state.held, unit.item] };
  const next: BreakerState<T> = {
    status: state.units + 1 >= window ? 'tripped' : 'armed',
    units: state.units + 1,
    launches: state.launches + unit.launches,
    rule,
    example: state.example ?? exampleOf(unit.name, unit.findings),
    held: [...state.held, unit.item],
  };
  return { state: next, record: [], ...(next.status === 'tripped' && { stop: systematicFailure(next) }) };
}

/** At the batch's end: a breaker still judging lets its held units go to the problems (too few units to judge). */
export function releaseHeld<T>(state: BreakerState<T>): BreakerStep<T> {
  if (state.status === 'tripped') return { state, record: [] };
  return { state: { ...state, held: [] }, record: state.held };
}
