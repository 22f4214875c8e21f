// Time expressions in a query ("last Tuesday", "yesterday afternoon", "in March") read as a time
// filter in the owner's time zone. chrono-node does the reading; it is loaded only when a cheap
// look at the query finds a word that can start a time expression, so a search without one never
// loads it.
import type * as Chrono from 'chrono-node';
import type * as ChronoEnglish from 'chrono-node/en';
import { createRequire } from 'node:module';
import { zoneOffsetMs } from '../clock.js';
import { BrainError } from '../errors.js';

/** What a query's time words were read as: the filter, the rest of the query, and how it read. */
export interface TimeReading {
  /** The query without the time expression. */
  query: string;
  /** The expression as typed. */
  text: string;
  since?: string;
  until?: string;
  /** How it read the time, e.g. "Tuesday 2026-11-24, 00:00–24:00 Europe/Paris". */
  reading: string;
  timeZone: string;
}

// Words that can start or carry a time expression chrono reads. A query holding none of them is
// not handed to the parser at all: this decides only whether to load it, never what a time is.
const MAY_BE_TIME = new RegExp(
  String.raw`\b(?:ago|today|tonight|yesterday|morning|afternoon|evening|nights?|weekend|weeks?|months?|years?|last|since|between|` +
    String.raw`mon(?:day)?|tues?(?:day)?|wed(?:nesday)?|thu(?:rs?)?(?:day)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?|` +
    String.raw`jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)s?\b|\d`,
  'i',
);

/** Whether the query may hold a time expression: cheap, so every search can ask it. */
export function mayHaveTime(query: string): boolean {
  return MAY_BE_TIME.test(query);
}

// chrono-node's English alone: its main module loads every locale it has (about 90 ms of a
// process's start, against 40 for English). Required: the subpath is its package's pattern
// export, which Node resolves for both loaders but vitest's resolver does not.
const require = createRequire(import.meta.url);
let chronoModule: typeof ChronoEnglish | undefined;
function loadChrono(): typeof ChronoEnglish {
  chronoModule ??= require('chrono-node/en') as typeof ChronoEnglish;
  return chronoModule;
}

/** The system's time zone: the default when the owner has set none. */
let systemZone: string | undefined;
export function systemTimeZone(): string {
  // Asking Intl costs a formatter each time; the process's zone does not change while it runs.
  systemZone ??= Intl.DateTimeFormat().resolvedOptions().timeZone;
  return systemZone;
}

/** Minutes the zone is ahead of UTC at an instant. */
function offsetMinutes(ms: number, timeZone: string): number {
  return Math.round(zoneOffsetMs(ms, timeZone) / 60_000);
}

/** The instant of a wall-clock time in a zone (hours past 24 roll into the next day). */
function zonedMs(y: number, m: number, d: number, h: number, timeZone: string): number {
  const wall = Date.UTC(y, m - 1, d, h);
  let ms = wall - offsetMinutes(wall, timeZone) * 60_000;
  // Across a daylight-saving change the first guess's offset may be the other one.
  ms = wall - offsetMinutes(ms, timeZone) * 60_000;
  return ms;
}

/** The zone's calendar date of an instant. */
function zonedDate(ms: number, timeZone: string): { y: number; m: number; d: number } {
  const local = new Date(ms + offsetMinutes(ms, timeZone) * 60_000);
  return { y: local.getUTCFullYear(), m: local.getUTCMonth() + 1, d: local.getUTCDate() };
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

function isoDay(y: number, m: number, d: number): string {
  return new Date(Date.UTC(y, m - 1, d)).toISOString().slice(0, 10);
}

/** A span of wall-clock time in the zone: its first day and hour, its end as days and hours on. */
interface Span {
  y: number;
  m: number;
  d: number;
  fromHour: number;
  /** Days the span covers (1 for a day or part of one). */
  days: number;
  toHour: number;
}

// Parts of a day, keyed by the hour chrono implies for them (morning 6, afternoon 15, evening 20,
// night 0 of the day after "last night"): the hours a person means by them.
const PARTS_OF_DAY: Record<number, [number, number]> = {
  6: [6, 12],
  15: [12, 18],
  20: [18, 24],
};

function spanOf(result: Chrono.ParsedResult, component: Chrono.ParsedComponents): Span {
  const y = component.get('year') ?? 0;
  const m = component.get('month') ?? 1;
  const d = component.get('day') ?? 1;
  const text = result.text.toLowerCase();
  // "last year", "4 years ago", "this year", "in 2022": the calendar year, not one day of it.
  const yearOnly =
    component.isCertain('year') &&
    !component.isCertain('month') &&
    !component.isCertain('day') &&
    !component.isCertain('weekday');
  if (/\byears?\b/.test(text) || yearOnly) {
    const days = (Date.UTC(y + 1, 0, 1) - Date.UTC(y, 0, 1)) / 86_400_000;
    return { y, m: 1, d: 1, fromHour: 0, days, toHour: 24 };
  }
  if (
    !component.isCertain('day') &&
    !component.isCertain('weekday') &&
    component.isCertain('month')
  )
    return { y, m, d: 1, fromHour: 0, days: new Date(Date.UTC(y, m, 0)).getUTCDate(), toHour: 24 };
  if (/\bweeks?\b/.test(text)) return { y, m, d, fromHour: 0, days: 7, toHour: 24 };
  if (component.isCertain('hour')) {
    const h = component.get('hour') ?? 0;
    return { y, m, d, fromHour: h, days: 1, toHour: h + 1 };
  }
  const hour = component.get('hour') ?? 12;
  const part = /morning|afternoon|evening/.test(text) ? PARTS_OF_DAY[hour] : undefined;
  if (part) return { y, m, d, fromHour: part[0], days: 1, toHour: part[1] };
  if (/\bnight\b/.test(text)) return { y, m, d, fromHour: 18, days: 2, toHour: 6 };
  return { y, m, d, fromHour: 0, days: 1, toHour: 24 };
}

function hh(h: number): string {
  return `${String(h).padStart(2, '0')}:00`;
}

/** The span's bounds in ms and how it reads ("Tuesday 2026-11-24, 00:00–24:00"). */
function bounds(s: Span, timeZone: string): { from: number; to: number; words: string } {
  const from = zonedMs(s.y, s.m, s.d, s.fromHour, timeZone);
  const to = zonedMs(s.y, s.m, s.d + s.days - 1, s.toHour, timeZone);
  const first = isoDay(s.y, s.m, s.d);
  if (s.days === 1) {
    const weekday = WEEKDAYS[new Date(Date.UTC(s.y, s.m - 1, s.d)).getUTCDay()];
    return { from, to, words: `${weekday} ${first}, ${hh(s.fromHour)}–${hh(s.toHour)}` };
  }
  const lastDay = isoDay(s.y, s.m, s.d + s.days - 1);
  if (s.fromHour === 0 && s.toHour === 24) return { from, to, words: `${first} – ${lastDay}` };
  return { from, to, words: `${first} ${hh(s.fromHour)} – ${lastDay} ${hh(s.toHour)}` };
}

/** Move a date the query gave without a year (or a bare weekday) into the past: queries ask about what happened. */
/** chrono's components as parsed, which it lets a caller imply values on. */
type Components = Chrono.ParsedComponents & { imply(c: Chrono.Component, v: number): unknown };

function intoThePast(parsed: Chrono.ParsedComponents, nowMs: number, timeZone: string): void {
  const component = parsed as Components;
  const y = component.get('year') ?? 0;
  const m = component.get('month') ?? 1;
  const d = component.get('day') ?? 1;
  if (zonedMs(y, m, d, 0, timeZone) <= nowMs) return;
  if (!component.isCertain('year') && component.isCertain('month')) {
    component.imply('year', y - 1);
  } else if (component.isCertain('weekday') && !component.isCertain('day')) {
    const back = new Date(Date.UTC(y, m - 1, d - 7));
    component.imply('year', back.getUTCFullYear());
    component.imply('month', back.getUTCMonth() + 1);
    component.imply('day', back.getUTCDate());
  }
}

/**
 * A year said after a word that makes it a time ("in 2022", "during 2019", "since 2021"): a bare
 * number stays a word ("the 2022 budget").
 */
function yearParser(): Chrono.Parser {
  return {
    // The word is part of the match: chrono drops a match that is a bare number.
    pattern: () => /\b(?:in|during|since|before|until|after|of)\s+((?:19|20)\d{2})\b/i,
    extract: (context, match) => {
      const result = context.createParsingResult(match.index ?? 0, match[0]);
      result.start.assign('year', Number(match[1]));
      result.start.imply('month', 1);
      result.start.imply('day', 1);
      return result;
    },
  };
}

/** The day of month "the 3rd" names: this month's, or last month's when it is still to come. */
function dayOfMonthParser(timeZone: string): Chrono.Parser {
  return {
    pattern: () => /\bthe\s+([0-3]?\d)(?:st|nd|rd|th)\b/i,
    extract: (context, match) => {
      const day = Number(match[1]);
      if (day < 1 || day > 31) return null;
      const today = zonedDate(context.reference.instant.getTime(), timeZone);
      let { y, m } = today;
      if (day > today.d) {
        m -= 1;
        if (m === 0) [y, m] = [y - 1, 12];
      }
      const result = context.createParsingResult(match.index ?? 0, match[0]);
      result.start.assign('day', day);
      result.start.imply('month', m);
      result.start.imply('year', y);
      return result;
    },
  };
}

export interface ReadTimeOptions {
  now: Date;
  timeZone?: string | undefined;
  /**
   * A date said without its year, or a bare weekday, is the last one (default: a query asks about
   * what happened); false reads it as chrono does, so "next Friday" is to come (an event time).
   */
  past?: boolean;
}

/** chrono's casual parser with "the 3rd" and "in 2022" added, one per zone: cloning it costs a parse or two. */
const parsers = new Map<string, Chrono.Chrono>();
function parserFor(chrono: typeof ChronoEnglish, timeZone: string): Chrono.Chrono {
  let parser = parsers.get(timeZone);
  if (!parser) {
    parser = chrono.casual.clone();
    parser.parsers.push(dayOfMonthParser(timeZone), yearParser());
    parsers.set(timeZone, parser);
  }
  return parser;
}

/**
 * Read the first time expression in a query. Undefined when it has none, and then chrono-node is
 * loaded only if a word of the query could start one.
 */
export async function readTime(
  query: string,
  options: ReadTimeOptions,
): Promise<TimeReading | undefined> {
  // The cheap look knows the words of past times; an event time ("tomorrow") is always read.
  if (options.past !== false && !mayHaveTime(query)) return undefined;
  const timeZone = options.timeZone ?? systemTimeZone();
  const chrono = loadChrono();
  const nowMs = options.now.getTime();
  const parser = parserFor(chrono, timeZone);
  const reference = { instant: options.now, timezone: offsetMinutes(nowMs, timeZone) };
  const results = parser.parse(query, reference).filter((r) => isTime(r, query));
  const first = results[0];
  if (!first) return undefined;

  let start = first.index;
  let end = first.index + first.text.length;
  const before = query.slice(0, start);
  const preposition = /\b(since|after|before|until|till|between|from|in|on|during)\s+$/i.exec(
    before,
  );
  if (preposition) start = preposition.index;
  // A year's match holds its word ("since 2021", yearParser).
  const inner = /^(since|after|before|until|till|between|from|in|on|during)\s+/i.exec(first.text);
  const word = (preposition?.[1] ?? inner?.[1])?.toLowerCase();

  const past = options.past !== false;
  if (past) intoThePast(first.start, nowMs, timeZone);
  const span = bounds(spanOf(first, first.start), timeZone);
  let from = span.from;
  let to = span.to;
  let words = span.words;
  // "between May 1 and May 8": chrono reads two dates; the words between them make the range.
  let endResult = first.end;
  const second = results[1];
  if (!endResult && word === 'between' && second) {
    const joined = query.slice(end, second.index);
    if (/^\s*and\s*$/i.test(joined)) {
      endResult = second.start;
      end = second.index + second.text.length;
    }
  }
  if (endResult) {
    if (past) intoThePast(endResult, nowMs, timeZone);
    const startYear = first.start.get('year') ?? 0;
    if ((endResult.get('year') ?? 0) < startYear)
      (endResult as Components).imply('year', startYear);
    const last = bounds(spanOf(first, endResult), timeZone);
    to = last.to;
    words = `${span.words.split(',')[0]} – ${last.words.split(',')[0]}`;
  }

  let since: string | undefined = new Date(from).toISOString();
  let until: string | undefined = new Date(to).toISOString();
  // The first and the last day the words name ("Tuesday 2026-11-03, 00:00–24:00", "A – B").
  const [firstDay = '', lastDay = firstDay] = words.split(' – ').map((w) => w.split(',')[0]!);
  if (word === 'since' || word === 'after') {
    if (word === 'after') from = to;
    since = new Date(from).toISOString();
    until = undefined;
    words = `${word} ${word === 'after' ? lastDay : firstDay}`;
  } else if (word === 'before' || word === 'until' || word === 'till') {
    to = word === 'before' ? span.from : to;
    until = new Date(to).toISOString();
    since = undefined;
    words = word === 'before' ? `before ${firstDay}` : `until the end of ${lastDay}`;
  }
  const rest = (query.slice(0, start) + ' ' + query.slice(end)).replace(/\s+/g, ' ').trim();
  return {
    query: rest,
    text: query.slice(start, end).trim(),
    ...(since === undefined ? {} : { since }),
    ...(until === undefined ? {} : { until }),
    reading: `${words} ${timeZone}`,
    timeZone,
  };
}

/**
 * Whether chrono's match is a time and not a word that looks like one: a month's name alone
 * ("the march of time", "may I") counts only when typed with a capital or after "in".
 */
function isTime(r: Chrono.ParsedResult, query: string): boolean {
  const s = r.start;
  const monthOnly =
    s.isCertain('month') && !s.isCertain('day') && !s.isCertain('year') && !s.isCertain('weekday');
  if (!monthOnly) return true;
  const typed = query.slice(r.index, r.index + r.text.length);
  if (/^[A-Z]/.test(typed)) return true;
  return /\bin\s+$/i.test(query.slice(0, r.index));
}

/**
 * A `since` or `until` as typed: an ISO 8601 date or time passes as it is (the input's check reads
 * it), anything else must be a time expression and nothing else ("last Tuesday", "2 weeks ago"),
 * read as the start (since) or the end (until) of what it names. An event time (`occurred_at`,
 * when what a piece of knowledge says happened) is read as a since: the start of what it names.
 */
export async function readTimeBound(
  field: 'since' | 'until' | 'occurred_at',
  value: string,
  options: ReadTimeOptions,
): Promise<string> {
  if (/^\d{4}-\d{2}-\d{2}/.test(value.trim())) return value.trim();
  const r = await readTime(value, field === 'occurred_at' ? { ...options, past: false } : options);
  const bound = field === 'until' ? (r?.until ?? r?.since) : r?.since;
  if (!r || r.query !== '' || bound === undefined)
    throw new BrainError(
      'INVALID_INPUT',
      `${field}: must be an ISO 8601 date or time, or a time such as "last Tuesday" or "2 weeks ago"`,
    );
  return bound;
}
