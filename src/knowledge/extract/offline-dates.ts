// Relative dates pinned to the day the turn was said: an entry read months later must still say
// which Friday "by Friday" meant. Only expressions whose day, week, month or year follows from
// the turn's date alone are pinned; the words stay and the date follows them.

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const DAY = 86_400_000;

function day(t: number): string {
  const d = new Date(t);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]!} ${d.getUTCFullYear()}`;
}

function month(year: number, m: number): string {
  const d = new Date(Date.UTC(year, m, 1));
  return `${MONTHS[d.getUTCMonth()]!} ${d.getUTCFullYear()}`;
}

/** The date each relative expression stands for, said at `now` (ms, UTC). */
function pin(expr: string, now: number): string | undefined {
  const e = expr.toLowerCase().replace(/\s+/g, ' ');
  const d = new Date(now);
  const year = d.getUTCFullYear();
  const m = d.getUTCMonth();
  switch (e) {
    case 'today':
    case 'tonight':
    case 'this morning':
    case 'this afternoon':
    case 'this evening':
      return day(now);
    case 'yesterday':
    case 'last night':
      return day(now - DAY);
    case 'tomorrow':
      return day(now + DAY);
    case 'last week':
      return `the week before ${day(now)}`;
    case 'next week':
      return `the week after ${day(now)}`;
    case 'last month':
      return month(year, m - 1);
    case 'this month':
      return month(year, m);
    case 'next month':
      return month(year, m + 1);
    case 'last year':
      return String(year - 1);
    case 'this year':
      return String(year);
    case 'next year':
      return String(year + 1);
  }
  const wd = /^(by|on|for|this|next|last|until|before) (\w+)$/.exec(e);
  if (wd) {
    const target = WEEKDAYS.indexOf(wd[2]!);
    if (target < 0) return undefined;
    const today = d.getUTCDay();
    if (wd[1] === 'last') {
      const back = (today - target + 7) % 7 || 7;
      return day(now - back * DAY);
    }
    // The coming one ("next Friday" read the same way): said on a Friday, the next week's.
    const ahead = (target - today + 7) % 7 || 7;
    return day(now + ahead * DAY);
  }
  return undefined;
}

const RELATIVE =
  /\b(?:today|tonight|yesterday|tomorrow|last night|this (?:morning|afternoon|evening)|(?:last|this|next) (?:week|month|year)|(?:by|on|for|this|next|last|until|before) (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b/gi;

/** `text` with each relative date followed by the date it means ("by Friday (12 May 2023)"). */
export function pinDates(text: string, saidAt: string): string {
  const now = Date.parse(saidAt);
  if (Number.isNaN(now)) return text;
  return text.replace(RELATIVE, (expr) => {
    const date = pin(expr, now);
    return date ? `${expr} (${date})` : expr;
  });
}

const PINNED_DAY = new RegExp(`\\((\\d{1,2}) (${MONTHS.join('|')}) (\\d{4})\\)`);

/**
 * The first day pinned in a text by pinDates ("launch on Tuesday (1 December 2026)"), as the start
 * of that day (UTC, as pinDates reads days): the entry's event time. Undefined when no single day
 * is pinned (a week, a month or a year is not an event's day).
 */
export function pinnedDay(text: string): string | undefined {
  const m = PINNED_DAY.exec(text);
  if (!m) return undefined;
  return new Date(Date.UTC(Number(m[3]), MONTHS.indexOf(m[2]!), Number(m[1]))).toISOString();
}
