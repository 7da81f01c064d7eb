/** One quota state per account, shared by every workflow on the namespace: its transitions and the account a profile draws from. PURE MODULE. */

export interface QuotaProfile {
  name: string;
  harness: string;
  /** Profiles that share a login or an API key name the same account. */
  account?: string;
  env?: Record<string, string>;
  apiKeyEnv?: string;
  baseUrl?: string;
}

/** The key variable each model-API executor reads when its profile names none. */
export const DEFAULT_API_KEY_ENV: Readonly<Record<string, string>> = { anthropic: 'ANTHROPIC_API_KEY', openai: 'OPENAI_API_KEY' };

/**
 * `<harness>/<account or name>`. A model-API profile without `account` draws from its key (`anthropic/key:ANTHROPIC_API_KEY@<base-url>`),
 * so every profile on one key shares one gate; a fake scenario is an account of its own, so separate scenarios never share a gate.
 */
export function quotaAccount(profile: QuotaProfile): string {
  const keyEnv = profile.account === undefined ? (profile.apiKeyEnv ?? DEFAULT_API_KEY_ENV[profile.harness]) : undefined;
  if (keyEnv === undefined) return profileAccount(profile);
  const endpoint = profile.baseUrl?.replace(/^[a-z]+:\/\//i, '').replace(/\/+$/, '');
  return `${profile.harness}/key:${keyEnv}${endpoint ? `@${endpoint}` : ''}`;
}

/** Every profile's account before model-API accounts were keys (runs begun then keep it). */
export function profileAccount(profile: QuotaProfile): string {
  const base = `${profile.harness}/${profile.account ?? profile.name}`;
  const scenario = profile.env?.['COMMONPLACE_FAKE_SCENARIO'];
  return scenario ? `${base}~${shortHash(scenario)}` : base;
}

/** `fake/<profile>~<hash>`: its gate ends once its scenario's runs have. */
export function isScenarioAccount(account: string): boolean {
  return account.includes('~');
}

/** FNV-1a, 32 bits: workflow code cannot use node:crypto. */
function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/** By name, so activities reach the gate without importing workflow code. */
export const QUOTA_GATE = {
  workflowType: 'quotaGate',
  subscribe: 'subscribe',
  limit: 'limit',
  open: 'open',
  /** Out, to each subscriber on every transition. */
  changed: 'quotaChanged',
  stateQuery: 'quotaState',
} as const;

/** Past a reset time before anything goes on (the harness's clock, rounding). */
export const RESET_MARGIN_MS = 60_000;

/** For a limit without a reset time: 15 min, 30, then 60 for every later probe. */
export const PROBE_BACKOFF_MS = [15 * 60_000, 30 * 60_000, 60 * 60_000] as const;

/** `step` is 1-based. */
export function probeBackoffMs(step: number): number {
  return PROBE_BACKOFF_MS[Math.min(Math.max(step, 1), PROBE_BACKOFF_MS.length) - 1] as number;
}

interface Closure {
  since: string;
  reason: string;
  launchId: string;
}

/** `version` grows with every transition, so a run's copy never goes back whatever order notices arrive in; `step` counts resetless closures in a row. */
export type QuotaState =
  | { status: 'open'; account: string; version: number; since: string | null; step: number; openedBy?: 'reset' | 'probe' | 'operator' }
  | ({ status: 'closed-until'; account: string; version: number; resetAt: string; step: number } & Closure)
  | ({ status: 'closed-unknown'; account: string; version: number; probeAt: string; step: number } & Closure);

export type QuotaStatus = QuotaState['status'];

export interface QuotaGateView {
  state: QuotaState;
  subscribers: number;
}

export interface LimitReport {
  reason: string;
  launchId: string;
  resetAt: string | null;
}

export function openGate(account: string): QuotaState {
  return { status: 'open', account, version: 0, since: null, step: 0 };
}

/** A resetless limit closes it for a probe after the backoff (the next step when a probe opened it within the cap); a past reset changes nothing. */
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

/** A minute past the reset, or at the probe; undefined while open. */
export function opensAt(state: QuotaState): number | undefined {
  if (state.status === 'closed-until') return Date.parse(state.resetAt) + RESET_MARGIN_MS;
  if (state.status === 'closed-unknown') return Date.parse(state.probeAt);
  return undefined;
}

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

/** `commonplace quota open`, or resuming a run stopped on it. */
export function openedByOperator(state: QuotaState, now: number): QuotaState {
  if (state.status === 'open') return state;
  return { status: 'open', account: state.account, version: state.version + 1, since: new Date(now).toISOString(), step: 0, openedBy: 'operator' };
}

export function newer(a: QuotaState | undefined, b: QuotaState): QuotaState {
  return a !== undefined && a.version >= b.version ? a : b;
}

export function isClosed(state: QuotaState, now: number): boolean {
  const opens = opensAt(state);
  return opens !== undefined && opens > now;
}

export function describeQuota(state: QuotaState): string {
  if (state.status === 'open')
    return `open${state.openedBy ? ` (opened by ${state.openedBy === 'reset' ? 'the reset' : state.openedBy === 'probe' ? 'a probe' : 'the operator'} at ${state.since})` : ''}`;
  if (state.status === 'closed-until') return `closed until ${state.resetAt} (a usage limit seen by ${state.launchId} at ${state.since})`;
  return `closed, reset time unknown: probing at ${state.probeAt} (probe ${state.step}; a usage limit seen by ${state.launchId} at ${state.since})`;
}
