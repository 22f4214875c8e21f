/** A source of time, so tests can fix it. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/** ISO 8601 UTC with milliseconds, the one time format stored and returned. */
export function isoNow(clock: Clock): string {
  return clock().toISOString();
}

/**
 * Milliseconds since 1970 (UTC): how compact columns store a time (`deliveries.read_at`,
 * `messages.created_at`).
 */
export function millisOf(iso: string): number {
  return Date.parse(iso);
}

/** The ISO 8601 form of a time stored as milliseconds, or null for none. */
export function isoOfMillis(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** SQL giving the ISO 8601 form (with milliseconds) of a column of milliseconds; NULL stays NULL. */
export function isoSql(column: string): string {
  return `strftime('%Y-%m-%dT%H:%M:%fZ', ${column} / 1000.0, 'unixepoch')`;
}

/**
 * Wait `ms`, or less when `signal` aborts: a background worker's pause between passes. The timer
 * is unref'd, so a pause never keeps a process up.
 */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(finish, ms);
    timer.unref();
    function finish() {
      clearTimeout(timer);
      signal.removeEventListener('abort', finish);
      resolve();
    }
    signal.addEventListener('abort', finish, { once: true });
  });
}

/** An instant's wall-clock reading in a zone. */
export interface ZonedParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** One formatter per zone: making one costs more than reading a time with it. */
const wallClocks = new Map<string | undefined, Intl.DateTimeFormat>();

/** The wall-clock reading of an instant in a zone (undefined zone: the system's). */
export function zonedParts(at: Date, timeZone: string | undefined): ZonedParts {
  let format = wallClocks.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    wallClocks.set(timeZone, format);
  }
  const parts = format.formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return {
    year: get('year'),
    month: get('month'),
    day: get('day'),
    hour: get('hour'),
    minute: get('minute'),
    second: get('second'),
  };
}

/** How far a zone's wall clock is ahead of UTC at an instant, in milliseconds. */
export function zoneOffsetMs(ms: number, timeZone: string | undefined): number {
  const p = zonedParts(new Date(ms), timeZone);
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return wall - Math.floor(ms / 1000) * 1000;
}
