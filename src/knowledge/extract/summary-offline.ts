// The summarizer that needs no model: extractive. It names who talked with whom, when and about
// what, then keeps the statements that carry the most of the thread: those the offline extractor
// reads as knowledge (decisions, commitments, facts, already in the third person), ranked by their
// weight and by how many of their content words the rest of the thread shares, without repeating
// one another, in the order they were said. Patterns of English only: no names, no topics.
import { extractOffline } from './offline.js';
import { contentWords, PHATIC, POINTS_BACK } from './offline-cues.js';
import { pinDates } from './offline-dates.js';
import { cleanSentence, finish, sentencesOf, shorten, vocativesOf } from './offline-text.js';
import type { Summarizer } from './summary-types.js';
import type { ExtractTurn } from './types.js';
import { contentStems, overlapF1 } from './words.js';

/** A summary's length, in characters: a short thread gets the first, a long one up to the second. */
export const SUMMARY_MIN_CHARS = 600;
export const SUMMARY_MAX_CHARS = 1200;
/** Words said at which a thread counts as short, and as long (the budget grows in between). */
const SHORT_WORDS = 150;
const LONG_WORDS = 600;
/** Two statements sharing this much of their content words say the same: the second is left. */
const REDUNDANT_F1 = 0.5;
/** How much of a long thread is read: its latest turns, which a newer summary is made for. */
const MAX_TURNS = 2000;

const MONTHS =
  'January February March April May June July August September October November December'.split(
    ' ',
  );

interface Candidate {
  text: string;
  stems: Set<string>;
  order: number;
  score: number;
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** Turns whose fields have the types they claim, oldest first. */
function normal(turns: readonly ExtractTurn[]): ExtractTurn[] {
  if (!Array.isArray(turns)) return [];
  return turns
    .filter((t): t is ExtractTurn => typeof t === 'object' && t !== null)
    .map((t) => ({
      ...t,
      id: text(t.id),
      sender: text(t.sender).trim() || 'someone',
      recipients: Array.isArray(t.recipients) ? t.recipients.map(text).filter(Boolean) : [],
      subject: text(t.subject) || null,
      body: text(t.body),
      created_at: text(t.created_at),
    }))
    .slice(-MAX_TURNS);
}

function names(people: readonly string[]): string {
  if (people.length <= 1) return people[0] ?? 'someone';
  return `${people.slice(0, -1).join(', ')} and ${people.at(-1)}`;
}

function day(d: Date): string {
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

function clockTime(d: Date): string {
  const h = d.getUTCHours();
  const m = String(d.getUTCMinutes()).padStart(2, '0');
  return `${h % 12 || 12}:${m} ${h < 12 ? 'am' : 'pm'} UTC`;
}

/** "on 8 May 2023 at 1:56 pm UTC", "from 8 May 2023 to 9 June 2023", or nothing. */
function when(turns: readonly ExtractTurn[]): string {
  const times = turns
    .map((t) => Date.parse(t.created_at))
    .filter((ms) => Number.isFinite(ms))
    .sort((a, b) => a - b);
  if (times.length === 0) return '';
  const first = new Date(times[0]!);
  const last = new Date(times.at(-1)!);
  if (day(first) === day(last)) return ` on ${day(first)} at ${clockTime(first)}`;
  return ` from ${day(first)} to ${day(last)}`;
}

/** A subject worth naming: not empty, not a bare greeting or a number. */
function subjectOf(turns: readonly ExtractTurn[]): string | undefined {
  const subject = turns.find((t) => t.subject?.trim())?.subject?.trim();
  if (!subject || contentWords(subject.toLowerCase()) === 0) return undefined;
  return subject.replace(/^(?:re|fwd?):\s*/i, '').slice(0, 120);
}

/** Who talked with whom, when and about what: the summary's first sentence. */
function opening(turns: readonly ExtractTurn[]): string {
  const speakers = [...new Set(turns.map((t) => t.sender))];
  const listeners = [...new Set(turns.flatMap((t) => t.recipients))].filter(
    (r) => !speakers.includes(r),
  );
  const subject = subjectOf(turns);
  const about = subject ? ` about "${subject}"` : '';
  const count = `${turns.length} message${turns.length === 1 ? '' : 's'}`;
  let who: string;
  if (speakers.length === 1)
    who = listeners.length ? `${speakers[0]} wrote to ${names(listeners)}` : `${speakers[0]} wrote`;
  else who = `${names(speakers)} talked`;
  return `${who}${about}${when(turns)} (${count}).`;
}

/**
 * A sentence the extractor does not keep but that may still say what the thread is about: a
 * statement that stands alone, given as what its speaker said.
 */
function plainStatements(turn: ExtractTurn): string[] {
  const vocatives = vocativesOf([turn.sender, ...turn.recipients]);
  const out: string[] = [];
  for (const raw of sentencesOf(turn.body)) {
    if (/\?\s*$/.test(raw)) continue;
    const s = cleanSentence(raw, vocatives);
    const lower = s.toLowerCase();
    if (contentWords(lower) < 3 || POINTS_BACK.test(lower) || PHATIC.some((p) => p.test(lower)))
      continue;
    if (/\b(?:i|i'm|i've|my|me|myself|we|our|us|you|your|yourself)\b/.test(lower)) continue;
    out.push(
      finish(pinDates(shorten(`${turn.sender} said: ${s}`), turn.created_at), [turn.sender]),
    );
  }
  return out;
}

/** The statements a summary may keep, each with its content words, in the order said. */
function candidates(turns: readonly ExtractTurn[]): Candidate[] {
  const out: Candidate[] = [];
  turns.forEach((turn, i) => {
    const entries = extractOffline(turn, turns.slice(Math.max(0, i - 3), i));
    // A turn the extractor learns nothing from may still hold a plain statement of the topic.
    const texts = entries.length
      ? entries.map((e) => e.content.replace(/^([^:]{1,64}) says: /, '$1 said: '))
      : plainStatements(turn);
    const weights = entries.length ? entries.map((e) => e.importance) : texts.map(() => 0.5);
    texts.forEach((t, k) => {
      out.push({ text: t, stems: contentStems(t), order: i + k / 10, score: weights[k]! });
    });
  });
  return out;
}

/**
 * Each statement's weight plus how central it is: the share of its content words (names of the
 * speakers left out, which every statement has) that other turns of the thread say too.
 */
function rank(found: Candidate[], turns: readonly ExtractTurn[]): void {
  const people = new Set(
    turns.flatMap((t) => [t.sender, ...t.recipients]).flatMap((n) => [...contentStems(n)]),
  );
  const turnsWith = new Map<string, number>();
  for (const t of turns)
    for (const s of contentStems(t.body)) turnsWith.set(s, (turnsWith.get(s) ?? 0) + 1);
  for (const c of found) {
    // Names are in every statement: what two statements share beside them is what repeats.
    for (const s of people) c.stems.delete(s);
    const own = [...c.stems];
    if (own.length === 0) {
      c.score = 0;
      continue;
    }
    const shared = own.filter((s) => (turnsWith.get(s) ?? 0) >= 2).length;
    // More words of substance say more, up to a point; the centrality counts as much as the cue.
    c.score += (2 * shared) / own.length + Math.min(own.length, 12) / 12;
    // One that opens by pointing back ("It made…", "They've been…") loses what it points at.
    if (POINTS_BACK.test(c.text.toLowerCase())) c.score -= 1;
    // "X and others" is a "we" nobody named (a family, a team, the two who talk): vaguer than
    // what the speaker says of themselves.
    if (/\band others\b/.test(c.text)) c.score -= 1.5;
  }
}

function budget(turns: readonly ExtractTurn[]): number {
  const words = turns.reduce((n, t) => n + (t.body.match(/\S+/g)?.length ?? 0), 0);
  const share = Math.min(1, Math.max(0, (words - SHORT_WORDS) / (LONG_WORDS - SHORT_WORDS)));
  return Math.round(SUMMARY_MIN_CHARS + share * (SUMMARY_MAX_CHARS - SUMMARY_MIN_CHARS));
}

/** The summary of a thread's turns (oldest first): synchronous, never throws on its input. */
export function summarizeOffline(given: readonly ExtractTurn[]): string {
  const turns = normal(given);
  if (turns.length === 0) return '';
  const limit = budget(turns);
  const head = opening(turns);
  const said = turns.filter((t) => t.body.trim());
  const found = candidates(said);
  rank(found, said);
  const kept: Candidate[] = [];
  let length = head.length;
  for (const c of [...found].sort((a, b) => b.score - a.score || a.order - b.order)) {
    if (c.score <= 0) break;
    if (length + 1 + c.text.length > limit) continue;
    if (kept.some((k) => overlapF1(k.stems, c.stems) >= REDUNDANT_F1)) continue;
    kept.push(c);
    length += 1 + c.text.length;
  }
  const body = kept.sort((a, b) => a.order - b.order).map((c) => c.text);
  const summary = [head, ...body].join(' ');
  return summary.length <= limit ? summary : `${summary.slice(0, limit - 1).trimEnd()}…`;
}

export function createOfflineSummarizer(): Summarizer {
  return {
    name: 'summary',
    version: 1,
    summarize(turns) {
      try {
        return Promise.resolve(summarizeOffline(turns));
      } catch {
        // The rules above are meant to take any text; should one not, a plain line still stands
        // for the thread rather than leaving it without a summary, asked for again and again.
        const n = Array.isArray(turns) ? turns.length : 0;
        return Promise.resolve(`A thread of ${n} message${n === 1 ? '' : 's'}.`);
      }
    },
  };
}
