/** A source of time, so tests can fix it. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/** ISO 8601 UTC with milliseconds, the one time format stored and returned. */
export function isoNow(clock: Clock): string {
  return clock().toISOString();
}
