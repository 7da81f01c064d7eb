import { isJsonObject, num, str } from './json-stream.js';

export interface RateLimitInfo {
  status: string;
  /** The window: five_hour, seven_day, seven_day_opus, overage, … */
  type: string | null;
  /** ISO time the window resets. */
  resetsAt: string | null;
  utilization?: number;
}

/** Reads claude's `rate_limit_info` (resetsAt in epoch seconds) into ISO times. */
export function rateLimitInfo(value: unknown): RateLimitInfo | undefined {
  if (!isJsonObject(value) || typeof value.status !== 'string') return undefined;
  const resetsAt = num(value.resetsAt);
  const utilization = num(value.utilization);
  return {
    status: value.status,
    type: str(value.rateLimitType) ?? null,
    resetsAt: resetsAt === undefined ? null : new Date(resetsAt < 1e12 ? resetsAt * 1000 : resetsAt).toISOString(),
    ...(utilization !== undefined && { utilization }),
  };
}
