/**
 * One quota state per account, shared by every workflow on the namespace: the state a quota gate
 * is in, its transitions, the probe backoff for limits without a reset time, and the account a
 * profile draws from.
 *
 * PURE MODULE: types, data and pure functions; workflows import it.
 */

/** What a profile draws its quota from: enough of it to name the account. */
export interface QuotaProfile {
  name: string;
  harness: string;
  /** The profile's `account` key: profiles that share a login or an API key name the same account. */
  account?: string;
  env?: Record<string, string>;
  /** A model-API profile's key variable and endpoint: the key is the account. */
  apiKeyEnv?: string;
  baseUrl?: string;
}

/** The key variable each model-API executor reads when its profile names none (src/harness/executors/). */
export const DEFAULT_API_KEY_ENV: Readonly<Record<string, string>> = { anthropic: 'ANTHROPIC_API_KEY', openai: 'OPENAI_API_KEY' };

/**
 * The account a profile's launches draw from: `<harness>/<account>`, the profile's `account` key or
 * else its name. A model-API profile without an `account` key draws from its key: the variable that
 * holds it and the endpoint it is sent to (`anthropic/key:ANTHROPIC_API_KEY`, with `@<base-url>` when
 * the profile names one), so every profile on one key shares one gate. A profile played by the fake
 * harness through a scenario is an account of its own per scenario (the scenario is the fake's whole
 * world), so runs of separate scenarios never share a gate.
 */
export function quotaAccount(profile: QuotaProfile): string {
  const keyEnv = profile.account === undefined ? (profile.apiKeyEnv ?? DEFAULT_API_KEY_ENV[profile.harness]) : undefined;
  if (keyEnv === undefined) return profileAccount(profile);
  const endpoint = profile.baseUrl?.replace(/^[a-z]+:\/\//i, '').replace(/\/+$/, '');
  return `${profile.harness}/key:${keyEnv}${endpoint ? `@${endpoint}` : ''}`;
}

/** The account by the profile's `account` key or name alone: every profile's before model-API accounts were keys (runs begun then keep it). */
export function profileAccount(profile: QuotaProfile): string {
  const base = `${profile.harness}/${profile.account ?? profile.name}`;
  const scenario = profile.env?.['COMMONPLACE_FAKE_SCENARIO'];
  return scenario ? `${base}~${shortHash(scenario)}` : base;
}

/** Whether an account is a fake-harness scenario's own (`fake/<profile>~<hash>`): it lives as long as its scenario's runs, so its gate ends once they have. */
export function isScenarioAccount(account: string): boolean {
  return account.includes('~');
}

/** FNV-1a, 32 bits, as 8 hex digits: a short stable name for a string (workflow code cannot use node:crypto). */
function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/** The gate's workflow type, signals and query by name: activities reach the gate without importing workflow code. */
export const QUOTA_GATE = {
  workflowType: 'quotaGate',
  /** In: a run that launches on the account (its workflow ID). */
  subscribe: 'subscribe',
  /** In: a usage limit one launch came to (`LimitReport`). */
  limit: 'limit',
  /** In: the operator opens the gate by hand (who). */
  open: 'open',
  /** Out, to each subscriber on every transition: the gate's state. */
  changed: 'quotaChanged',
  /** The gate's state and how many runs subscribed. */
  stateQuery: 'quotaState',
} as const;

/** The margin past a reset time before anything goes on (the harness's clock, rounding). */
export const RESET_MARGIN_MS = 60_000;

/** Probe waits for a limit without a reset time: 15 min, 30, then 60 for every later probe. */
export const PROBE_BACKOFF_MS = [15 * 60_000, 30 * 60_000, 60 * 60_000] as const;

/** How long the n-th probe (1-based) waits. */
export function probeBackoffMs(step: number): number {
  return PROBE_BACKOFF_MS[Math.min(Math.max(step, 1), PROBE_BACKOFF_MS.length) - 1] as number;
}

/** Why the gate closed: the limit notice and the launch that saw it. */
interface Closure {
  since: string;
  reason: string;
  launchId: string;
}

/**
 * A gate's state. `version` grows with every transition, so a run's copy never goes back to an older
 * state whatever order notices arrive in. `step` counts the closures without a reset time in a row.
 */
export type QuotaState =
  | { status: 'open'; account: string; version: number; since: string | null; step: number; openedBy?: 'reset' | 'probe' | 'operator' }
  | ({ status: 'closed-until'; account: string; version: number; resetAt: string; step: number } & Closure)
  | ({ status: 'closed-unknown'; account: string; version: number; probeAt: string; step: number } & Closure);

export type QuotaStatus = QuotaState['status'];

/** What the gate's `quotaState` query answers. */
export interface QuotaGateView {
  state: QuotaState;
  subscribers: number;
}

/** A usage limit one launch came to, as reported to its account's gate. */
export interface LimitReport {
  reason: string;
  launchId: string;
  /** When the harness said the limit resets; null when it said nothing. */
  resetAt: string | null;
}

export function openGate(account: string): QuotaState {
  return { status: 'open', account, version: 0, since: null, step: 0 };
}

/**
 * A usage limit seen at `now` closes the gate. A known reset closes it until then (or later, if it was
 * already closed later); a limit without one closes it for a probe after the backoff — the next step
 * when the gate had been opened by a probe within the last backoff cap, else the first. A reset time
 * already past says nothing about now and changes nothing.
 */
export function limitSeen(state: QuotaState, report: LimitReport, now: number): QuotaState {
  const at = new Date(now).toISOString();
  const closure = { since: at, reason: report.reason, launchId: report.launchId };
  const reset = report.resetAt !== null ? Date.parse(report.resetAt) : NaN;
  if (Number.isFinite(reset)) {
    if (reset + RESET_MARGIN_MS <= now) return state;
    if (state.status === 'closed-until' && Date.parse(state.resetAt) >= reset) return state;
    return { status: 'closed-until', account: state.account, version: state.version + 1, resetAt: new Date(reset).toISOString(), step: 0, ...closure };
  }
  if (state.status !== 'open') return state; // already closed: a known reset is better, a probe already planned
  const cap = PROBE_BACKOFF_MS[PROBE_BACKOFF_MS.length - 1] as number;
  const afterProbe = state.openedBy === 'probe' && state.since !== null && now - Date.parse(state.since) < cap;
  const step = afterProbe ? state.step + 1 : 1;
  return {
    status: 'closed-unknown',
    account: state.account,
    version: state.version + 1,
    probeAt: new Date(now + probeBackoffMs(step)).toISOString(),
    step,
    ...closure,
  };
}

/** When the gate opens by itself: a minute past the reset, or at the probe. Undefined while open. */
export function opensAt(state: QuotaState): number | undefined {
  if (state.status === 'closed-until') return Date.parse(state.resetAt) + RESET_MARGIN_MS;
  if (state.status === 'closed-unknown') return Date.parse(state.probeAt);
  return undefined;
}

/** The gate at `now`: a closed gate whose time has come opens (by its reset, or for a probe). */
export function timePassed(state: QuotaState, now: number): QuotaState {
  const opens = opensAt(state);
  if (opens === undefined || opens > now) return state;
  const openedBy = state.status === 'closed-until' ? 'reset' : 'probe';
  return {
    status: 'open',
    account: state.account,
    version: state.version + 1,
    since: new Date(now).toISOString(),
    step: openedBy === 'probe' ? state.step : 0,
    openedBy,
  };
}

/** The operator opens the gate by hand (`commonplace quota open`, or resuming a run stopped on it). */
export function openedByOperator(state: QuotaState, now: number): QuotaState {
  if (state.status === 'open') return state;
  return { status: 'open', account: state.account, version: state.version + 1, since: new Date(now).toISOString(), step: 0, openedBy: 'operator' };
}

/** The newer of two copies of one gate's state. */
export function newer(a: QuotaState | undefined, b: QuotaState): QuotaState {
  return a !== undefined && a.version >= b.version ? a : b;
}

/** Whether a launch at `now` would go against the gate: closed, and its time not yet come. */
export function isClosed(state: QuotaState, now: number): boolean {
  const opens = opensAt(state);
  return opens !== undefined && opens > now;
}

/** One line for the gate's state: what the Web UI, `commonplace quota` and a stop's reason say. */
export function describeQuota(state: QuotaState): string {
  if (state.status === 'open')
    return `open${state.openedBy ? ` (opened by ${state.openedBy === 'reset' ? 'the reset' : state.openedBy === 'probe' ? 'a probe' : 'the operator'} at ${state.since})` : ''}`;
  if (state.status === 'closed-until') return `closed until ${state.resetAt} (a usage limit seen by ${state.launchId} at ${state.since})`;
  return `closed, reset time unknown: probing at ${state.probeAt} (probe ${state.step}; a usage limit seen by ${state.launchId} at ${state.since})`;
}
