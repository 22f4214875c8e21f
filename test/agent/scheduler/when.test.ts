import { describe, expect, it } from 'vitest';
import { parseWhen, zonedTime } from '../../../agent/scheduler/when.js';

const now = new Date('2026-05-04T10:00:00Z'); // 12:00 in Berlin
const at = (input: string, zone = 'Europe/Berlin', from = now) => {
  const r = parseWhen(input, from, zone);
  return r.ok ? r.at.toISOString() : `error: ${r.error}`;
};

describe('reading when a reminder is due', () => {
  it('reads relative times', () => {
    expect(at('+2h')).toBe('2026-05-04T12:00:00.000Z');
    expect(at('+1h30m')).toBe('2026-05-04T11:30:00.000Z');
    expect(at('in 20 minutes')).toBe('2026-05-04T10:20:00.000Z');
    expect(at('in 1 day')).toBe('2026-05-05T10:00:00.000Z');
  });

  it('reads local times in the owner’s zone', () => {
    expect(at('tomorrow 9:00')).toBe('2026-05-05T07:00:00.000Z');
    expect(at('today at 5pm')).toBe('2026-05-04T15:00:00.000Z');
    expect(at('17:30')).toBe('2026-05-04T15:30:00.000Z');
    // A bare time already past today is tomorrow's.
    expect(at('9:00')).toBe('2026-05-05T07:00:00.000Z');
    expect(at('tomorrow 9:00', 'America/New_York')).toBe('2026-05-05T13:00:00.000Z');
  });

  it('reads ISO times: with an offset as given, without one in the owner’s zone', () => {
    expect(at('2026-05-06T08:00:00Z')).toBe('2026-05-06T08:00:00.000Z');
    expect(at('2026-05-06T08:00+02:00')).toBe('2026-05-06T06:00:00.000Z');
    expect(at('2026-05-06T08:00')).toBe('2026-05-06T06:00:00.000Z');
    expect(at('2026-05-06')).toBe('2026-05-05T22:00:00.000Z');
  });

  it('refuses what it cannot read, saying what it accepts', () => {
    expect(at('whenever')).toMatch(/^error: must be an ISO time/);
    expect(at('+2 fortnights')).toMatch(/^error: unknown unit "fortnights"/);
    expect(at('25:00')).toMatch(/^error:/);
    expect(at('7')).toMatch(/^error:/);
  });

  it('moves a local time in the spring-forward gap past it, and takes the first of a repeated autumn time', () => {
    // Berlin: 2026-03-29 02:00 → 03:00; 2026-10-25 03:00 → 02:00.
    const p = { year: 2026, month: 3, day: 29, hour: 2, minute: 30 };
    expect(zonedTime(p, 'Europe/Berlin').toISOString()).toBe('2026-03-29T01:30:00.000Z');
    const q = { year: 2026, month: 10, day: 25, hour: 2, minute: 30 };
    expect(zonedTime(q, 'Europe/Berlin').toISOString()).toBe('2026-10-25T00:30:00.000Z');
    const evening = new Date('2026-03-28T20:00:00Z');
    expect(at('tomorrow 9:00', 'Europe/Berlin', evening)).toBe('2026-03-29T07:00:00.000Z');
  });
});
