/** Converts a wall-clock time in an IANA zone to an instant, without a date library. */
function zonedToUtc(parts: { year: number; month: number; day: number; hour: number; minute: number }, timeZone: string): number {
  const guess = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute);
  const first = guess - zoneOffsetMs(guess, timeZone);
  return guess - zoneOffsetMs(first, timeZone);
}

function zoneOffsetMs(instant: number, timeZone: string): number {
  const wall = wallClock(instant, timeZone);
  return Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second) - Math.floor(instant / 1000) * 1000;
}

function wallClock(instant: number, timeZone: string) {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  const get = (type: string) => Number(format.formatToParts(new Date(instant)).find((part) => part.type === type)?.value);
  return { year: get('year'), month: get('month'), day: get('day'), hour: get('hour'), minute: get('minute'), second: get('second') };
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The next instant after `now` at which the zone's clock reads hour:minute. */
function nextWallTime(hour: number, minute: number, now: number, timeZone: string): number {
  const today = wallClock(now, timeZone);
  let candidate = zonedToUtc({ ...today, hour, minute }, timeZone);
  if (candidate <= now) {
    const tomorrow = wallClock(now + 86_400_000, timeZone);
    candidate = zonedToUtc({ ...tomorrow, hour, minute }, timeZone);
  }
  return candidate;
}

function to24h(hour: number, meridiem: string | undefined): number {
  if (!meridiem) return hour;
  const pm = meridiem.toLowerCase() === 'pm';
  return (hour % 12) + (pm ? 12 : 0);
}

const months = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

export interface ResetContext {
  now: Date;
  /** The zone a time without one is read in: the worker's own. */
  timeZone?: string;
}

/** The reset time a usage-limit message names, in the forms the CLIs have been seen to print. */
export function parseResetTime(text: string, context: ResetContext): Date | undefined {
  const now = context.now.getTime();
  const localZone = context.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;

  const epoch = /limit reached\|(\d{10,13})\b/i.exec(text);
  if (epoch) {
    const value = Number(epoch[1]);
    return new Date(epoch[1]!.length >= 13 ? value : value * 1000);
  }

  const resetsOn =
    /resets?\s+(?:on\s+)?([A-Za-z]{3})[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(?:at\s+)?(\d{1,2})(?::(\d{2}))?\s*(am|pm)?(?:\s*\(([^)]+)\))?/i.exec(text);
  if (resetsOn) {
    const month = months.indexOf(resetsOn[1]!.toLowerCase()) + 1;
    if (month > 0) {
      const zone = resetsOn[6] && isTimeZone(resetsOn[6].trim()) ? resetsOn[6].trim() : localZone;
      const today = wallClock(now, zone);
      const wall = { month, day: Number(resetsOn[2]), hour: to24h(Number(resetsOn[3]), resetsOn[5]), minute: Number(resetsOn[4] ?? 0) };
      let instant = zonedToUtc({ year: today.year, ...wall }, zone);
      if (instant < now - 86_400_000) instant = zonedToUtc({ year: today.year + 1, ...wall }, zone); // "Jan 2" read in December
      return new Date(instant);
    }
  }

  const resets = /resets?\s+(?:at\s+)?(\d{1,2})(?::(\d{2}))?\s*(am|pm)?(?:\s*\(([^)]+)\))?/i.exec(text);
  if (resets && (resets[3] || resets[2])) {
    const zone = resets[4] && isTimeZone(resets[4].trim()) ? resets[4].trim() : localZone;
    return new Date(nextWallTime(to24h(Number(resets[1]), resets[3]), Number(resets[2] ?? 0), now, zone));
  }

  const dated = /try again at\s+([A-Za-z]{3})[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\s+(\d{1,2}):(\d{2})\s*(am|pm)?/i.exec(text);
  if (dated) {
    const month = months.indexOf(dated[1]!.toLowerCase()) + 1;
    if (month > 0) {
      const hour = to24h(Number(dated[4]), dated[6]);
      return new Date(zonedToUtc({ year: Number(dated[3]), month, day: Number(dated[2]), hour, minute: Number(dated[5]) }, localZone));
    }
  }

  const at = /try again at\s+(\d{1,2}):(\d{2})\s*(am|pm)?/i.exec(text);
  if (at) return new Date(nextWallTime(to24h(Number(at[1]), at[3]), Number(at[2]), now, localZone));

  const within = /try again in\s+~?(\d+)\s*(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?)\b/i.exec(text);
  if (within) {
    const word = within[2]!.toLowerCase();
    const unit = word.startsWith('s') ? 1000 : word.startsWith('m') ? 60_000 : word.startsWith('h') ? 3_600_000 : 86_400_000;
    return new Date(now + Number(within[1]) * unit);
  }
  return undefined;
}
