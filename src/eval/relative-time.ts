// A generated set of relative-time questions with a fixed clock: a fee message at 10:00 on each
// of 21 days before a Monday, one unrelated message beside each, and questions that name a day
// as people do ("last Tuesday", "yesterday", "three days ago"). Each must find its day's fee
// message first, and no other day's in the top 5: what a time filter is for.
import { openBrain } from '../brain.js';

export interface RelativeTimeResult {
  questions: number;
  /** Questions whose day's message ranked first. */
  first: number;
  /** Questions with another day's fee message in the top 5. */
  leaked: number;
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
    for (let back = 21; back >= 1; back--) {
      // 10:00 UTC, mid-morning in the zones it is run in.
      clockMs = Math.floor((nowMs - back * DAY) / DAY) * DAY + 10 * 3_600_000;
      const id = brain.messages.send({ from: 'a', to: 'b', body: `the escrow fees, note ${back}` });
      brain.messages.send({ from: 'b', to: 'a', body: `lunch plans, note ${back}` });
      byDay.set(back, id.id);
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
    const result: RelativeTimeResult = { questions: 0, first: 0, leaked: 0, failures: [] };
    for (const [query, back] of questions) {
      result.questions++;
      const found = await brain.search.searchHybrid(
        { query, types: ['message'], limit: 5 },
        { timeWords: { timeZone } },
      );
      const ids = found.hits.map((h) => h.id);
      const wanted = byDay.get(back);
      const others = new Set([...byDay.values()].filter((id) => id !== wanted));
      if (ids[0] === wanted) result.first++;
      else result.failures.push(`${query}: ${found.notices.join('; ') || 'no time read'}`);
      if (ids.some((id) => others.has(id))) result.leaked++;
    }
    return result;
  } finally {
    brain.close();
  }
}
