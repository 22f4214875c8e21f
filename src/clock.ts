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
