/**
 * Times as the owner says them: an ISO time, a relative one ("+2h", "in 20 minutes") or a local
 * one ("tomorrow 9:00", "17:30") read in the owner's time zone.
 */

import { zoneOffsetMs as offsetAt, zonedParts, type ZonedParts } from '../../src/index.js';

/**
 * The instant a wall-clock time names in a zone. A time skipped by a spring-forward change is
 * moved forward by the change (02:30 → 03:30); a repeated autumn time is its first occurrence.
 */
export function zonedTime(p: Omit<ZonedParts, 'second'>, timeZone: string | undefined): Date {
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute);
  const before = offsetAt(wall - 86_400_000 / 2, timeZone);
  const after = offsetAt(wall + 86_400_000 / 2, timeZone);
  // The earlier offset first: in a repeated hour it names the first occurrence.
  for (const offset of [before, after]) {
    const candidate = wall - offset;
    if (offsetAt(candidate, timeZone) === offset) return new Date(candidate);
  }
  // In a gap neither offset reads back: use the one from before the change (lands after it).
  return new Date(wall - before);
}

const UNITS: Record<string, number> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
};

function unitMs(word: string): number | undefined {
  const w = word.toLowerCase();
  if (/^(s|secs?|seconds?)$/.test(w)) return UNITS.s;
  if (/^(m|mins?|minutes?)$/.test(w)) return UNITS.m;
  if (/^(h|hrs?|hours?)$/.test(w)) return UNITS.h;
  if (/^(d|days?)$/.test(w)) return UNITS.d;
  if (/^(w|weeks?)$/.test(w)) return UNITS.w;
  return undefined;
}

export type WhenResult = { ok: true; at: Date } | { ok: false; error: string };

const HELP =
  'must be an ISO time (2026-05-01T09:00, read in your time zone without an offset), a relative one ("+2h", "in 20 minutes") or a local one ("tomorrow 9:00", "17:30")';

/** Read `when` against `now` in `timeZone`. */
export function parseWhen(input: string, now: Date, timeZone: string | undefined): WhenResult {
  const text = input.trim().toLowerCase();

  // Relative: "+2h", "+1h30m", "in 20 minutes", "in 1 hour 30 minutes".
  const rel = /^(?:\+|in\s+)((?:\s*\d+\s*[a-z]+)+)$/.exec(text);
  if (rel) {
    let total = 0;
    for (const m of rel[1]!.matchAll(/(\d+)\s*([a-z]+)/g)) {
      const unit = unitMs(m[2]!);
      if (unit === undefined) return { ok: false, error: `unknown unit "${m[2]}"; ${HELP}` };
      total += Number(m[1]) * unit;
    }
    if (total <= 0) return { ok: false, error: 'must be in the future' };
    return { ok: true, at: new Date(now.getTime() + total) };
  }

  // ISO with a date: with an offset it is that instant; without, a wall-clock time in the zone.
  const iso =
    /^(\d{4})-(\d{2})-(\d{2})(?:[t ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(z|[+-]\d{2}:?\d{2})?)?$/.exec(
      text,
    );
  if (iso) {
    if (iso[7]) {
      const d = new Date(input.trim().replace(' ', 'T'));
      return Number.isNaN(d.getTime()) ? { ok: false, error: HELP } : { ok: true, at: d };
    }
    const [year, month, day, hour, minute] = [1, 2, 3, 4, 5].map((i) => Number(iso[i] ?? 0)) as [
      number,
      number,
      number,
      number,
      number,
    ];
    if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59)
      return { ok: false, error: HELP };
    return { ok: true, at: zonedTime({ year, month, day, hour, minute }, timeZone) };
  }

  // Local: "[today|tomorrow] [at] 9[:00] [am|pm]".
  const local = /^(?:(today|tomorrow)\s+)?(?:at\s+)?(\d{1,2})(?::(\d{2}))?\s*(am|pm)?$/.exec(text);
  if (local) {
    let hour = Number(local[2]);
    const minute = Number(local[3] ?? 0);
    if (local[4]) {
      if (hour < 1 || hour > 12) return { ok: false, error: HELP };
      hour = (hour % 12) + (local[4] === 'pm' ? 12 : 0);
    }
    if (hour > 23 || minute > 59) return { ok: false, error: HELP };
    if (!local[1] && !local[3] && !local[4]) return { ok: false, error: HELP }; // a bare number
    const today = zonedParts(now, timeZone);
    const dayAfter = (days: number) => {
      const d = new Date(Date.UTC(today.year, today.month - 1, today.day + days));
      return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
    };
    const onDay = (days: number) => zonedTime({ ...dayAfter(days), hour, minute }, timeZone);
    if (local[1] === 'tomorrow') return { ok: true, at: onDay(1) };
    const at = onDay(0);
    if (local[1] === 'today' || at.getTime() > now.getTime()) return { ok: true, at };
    return { ok: true, at: onDay(1) }; // a bare time already past today: the next one
  }
  return { ok: false, error: HELP };
}

/** Whether a wall-clock time ("HH:MM") in a zone falls in [start, end); end before start spans midnight. */
export function withinHours(
  at: Date,
  hours: { start: string; end: string },
  timeZone: string | undefined,
): boolean {
  const p = zonedParts(at, timeZone);
  const minutes = p.hour * 60 + p.minute;
  const toMin = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
  const start = toMin(hours.start);
  const end = toMin(hours.end);
  if (start === end) return true;
  return start < end ? minutes >= start && minutes < end : minutes >= start || minutes < end;
}
