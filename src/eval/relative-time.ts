// A generated set of relative-time questions with a fixed clock: a fee message at 10:00 on each
// of 21 days before a Monday, one unrelated message beside each, and questions that name a day
// as people do ("last Tuesday", "yesterday", "three days ago"). Each must find its day's fee
// message first, and rank no fee message from outside the time it names (the day and the week
// after it, when people tell of it) above one from inside: a time said is preferred, not required.
import { openBrain } from '../brain.js';
import { RANK_PREFERENCES } from '../search/search.js';

export interface RelativeTimeResult {
  questions: number;
  /** Questions whose day's message ranked first. */
  first: number;
  /** Questions with a fee message from outside the time named above one from inside, in the top 5. */
  outOfOrder: number;
  failures: string[];
}

const DAY = 86_400_000;
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Run the set in a brain of its own, in memory, in `timeZone`, with "now" at `now`. */
export async function runRelativeTimeEval(
  options: { now?: string; timeZone?: string } = {},
): Promise<RelativeTimeResult> {
  const timeZone = options.timeZone ?? 'UTC';
  const nowMs = Date.parse(options.now ?? '2026-11-30T15:00:00Z');
  let clockMs = nowMs - 21 * DAY;
  const brain = await openBrain({ dbPath: ':memory:', clock: () => new Date(clockMs) });
  try {
    const byDay = new Map<number, string>();
    const dayOf = new Map<string, number>();
    for (let back = 21; back >= 1; back--) {
      // 10:00 UTC, mid-morning in the zones it is run in.
      clockMs = Math.floor((nowMs - back * DAY) / DAY) * DAY + 10 * 3_600_000;
      const id = brain.messages.send({ from: 'a', to: 'b', body: `the escrow fees, note ${back}` });
      brain.messages.send({ from: 'b', to: 'a', body: `lunch plans, note ${back}` });
      byDay.set(back, id.id);
      dayOf.set(id.id, back);
    }
    clockMs = nowMs;
    const today = new Date(nowMs).getUTCDay();
    const questions: [string, number][] = [
      ['what were the escrow fees yesterday', 1],
      ['escrow fees three days ago', 3],
    ];
    for (let back = 1; back <= 7; back++) {
      const weekday = WEEKDAYS[(today - back + 7) % 7]!;
      if (back < 7) questions.push([`what did we discuss last ${weekday} about fees`, back]);
    }
    const result: RelativeTimeResult = { questions: 0, first: 0, outOfOrder: 0, failures: [] };
    for (const [query, back] of questions) {
      result.questions++;
      const found = await brain.search.searchHybrid(
        { query, types: ['message'], limit: 5 },
        { timeWords: { timeZone } },
      );
      const ids = found.hits.map((h) => h.id);
      const wanted = byDay.get(back);
      if (ids[0] === wanted) result.first++;
      else result.failures.push(`${query}: ${found.notices.join('; ') || 'no time read'}`);
      const inside = (day: number) => day <= back && day >= back - RANK_PREFERENCES.timeSlackDays;
      const days = ids.flatMap((id) => (dayOf.has(id) ? [dayOf.get(id)!] : []));
      const firstOutside = days.findIndex((d) => !inside(d));
      if (firstOutside >= 0 && days.slice(firstOutside).some(inside)) result.outOfOrder++;
    }
    return result;
  } finally {
    brain.close();
  }
}
