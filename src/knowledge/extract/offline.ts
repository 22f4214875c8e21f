// The extractor that needs no model: it reads each sentence a speaker says about themselves or
// their work, keeps those whose cue phrases say what kind of knowledge they hold (a decision, a
// commitment, a to-do, a preference, a fact), and rewrites them in the third person with the
// speaker's name and any relative date pinned. A yes or no that answers a question of the turn
// before becomes one entry made of both. Patterns of English only: no names, no topics.
import { fromAnswer } from './offline-answer.js';
import {
  CUES,
  DEADLINE,
  ENCOURAGEMENT,
  EVALUATIVE,
  FIRST_PERSON,
  PHATIC,
  POINTS_BACK,
  contentWords,
  restoreSubject,
  type Found,
} from './offline-cues.js';
import { pinDates, pinnedDay } from './offline-dates.js';
import { toThirdPerson, type Persons } from './offline-person.js';
import { cleanSentence, finish, sentencesOf, shorten, vocativesOf } from './offline-text.js';
import type { ExtractedEntry, ExtractTurn, Extractor } from './types.js';

/** Entries one turn yields at most: the strongest, in the order they were said. */
const MAX_ENTRIES_PER_TURN = 3;

interface Candidate extends Found {
  order: number;
}

function persons(turn: ExtractTurn, forDecision: boolean): Persons {
  const speaker = turn.sender || 'someone';
  const listeners = turn.recipients.filter((r) => r && r !== speaker);
  return {
    speaker,
    listeners,
    we:
      forDecision && listeners.length > 0
        ? [speaker, ...listeners].join(' and ')
        : `${speaker} and others`,
  };
}

/** The entry a statement of the speaker's makes, or nothing when it holds no knowledge. */
function fromStatement(said: string, turn: ExtractTurn, fragment: boolean): Found | undefined {
  // A short answer's own words ("I do, especially Italian") and a request to be reminded read as
  // statements.
  const sentence = said
    .replace(/^(?:i|we) (?:do|did|have|am|will|can)(?:n't| not)?[,.!;]+\s*/i, '')
    .replace(/^(?:please )?remind me (to|about)\b/i, 'I asked to be reminded $1');
  const lower = sentence.toLowerCase().replace(/[’‘]/g, "'");
  const aboutSpeaker =
    FIRST_PERSON.test(lower) ||
    (/\b(?:me|myself)\b/.test(lower) && !/\byou(?:r|rs|'re|'ve)?\b/.test(lower));
  if (PHATIC.some((p) => p.test(lower))) return undefined;
  if (!aboutSpeaker) return fragment ? undefined : fromClaim(sentence, lower, turn);
  const words = contentWords(lower);
  const cue = ENCOURAGEMENT.test(lower) ? undefined : CUES.find((c) => c.pattern.test(lower));
  // A cue says what the sentence is, so one word of substance ("I love tea") is enough.
  if (words < (cue ? 1 : 2)) return undefined;
  const category = cue?.category ?? 'fact';
  const importance = cue?.importance ?? 1;
  const deadline = DEADLINE.test(lower);
  const content = finish(
    pinDates(
      shorten(toThirdPerson(sentence, persons(turn, category === 'decision'))),
      turn.created_at,
    ),
    [turn.sender, ...turn.recipients],
  );
  return {
    entry: {
      content,
      category,
      importance: Math.min(
        3,
        importance + (deadline && (category === 'commitment' || category === 'todo') ? 0.5 : 0),
      ),
      sources: [turn.id],
    },
    weight: importance + Math.min(words, 12) * 0.05,
  };
}

/**
 * A general statement ("The deadline is the 5th", "Marley flooring is grippy"): kept as what the
 * speaker says, when it names its subject and is not about the listener.
 */
function fromClaim(sentence: string, lower: string, turn: ExtractTurn): Found | undefined {
  if (/\byou(?:r|rs|'re|'ve|'ll|'d)?\b|\bus\b/.test(lower) || POINTS_BACK.test(lower))
    return undefined;
  if (
    !/\b(?:is|are|was|were|has|have|had|will|helps?|makes?|gives?|brings?|means?|matters?)\b/.test(
      lower,
    )
  )
    return undefined;
  if (EVALUATIVE.test(lower)) return undefined;
  const words = contentWords(lower);
  if (words < 3) return undefined;
  const claim = sentence.charAt(0).toUpperCase() + sentence.slice(1);
  return {
    entry: {
      content: finish(pinDates(shorten(`${turn.sender} says: ${claim}`), turn.created_at), [
        turn.sender,
      ]),
      category: 'fact',
      importance: 1,
      sources: [turn.id],
    },
    weight: 0.5 + Math.min(words, 12) * 0.05,
  };
}

/** A turn whose fields have the types they claim, whatever it was handed. */
function normal(turn: ExtractTurn): ExtractTurn {
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  return {
    ...turn,
    id: text(turn.id),
    sender: text(turn.sender),
    recipients: Array.isArray(turn.recipients) ? turn.recipients.filter((r) => !!text(r)) : [],
    body: text(turn.body),
    created_at: text(turn.created_at),
  };
}

const LABEL =
  /^(decisions?|decided|agreed|to-?dos?|to do|action items?|next steps?)\s*[:–-]\s*(.+)$/i;
const REQUEST = /^(?:please|pls|kindly)\s+(.+)$/i;

/**
 * What a turn marks as such ("Decision: X", "TODO: Y"), and a request to the listener
 * ("Please review the PR by Friday").
 */
function fromLabel(sentence: string, turn: ExtractTurn): Found | undefined {
  const label = LABEL.exec(sentence);
  const request = label ? undefined : REQUEST.exec(sentence);
  if (!label && !request) return undefined;
  const decision = label !== null && /^(?:decision|decided|agreed)/i.test(label[1]!);
  const who = persons(turn, decision);
  const rest = toThirdPerson((label ? label[2] : request?.[1]) ?? '', who);
  if (contentWords(rest.toLowerCase()) < 1) return undefined;
  const deadline = DEADLINE.test(rest.toLowerCase());
  let text: string;
  const weDo = decision ? /^we (?:will |'ll |shall )?(?=[a-z])/i.exec(label?.[2] ?? '') : null;
  if (weDo) text = `${who.we} decided to ${toThirdPerson(label![2]!.slice(weDo[0].length), who)}`;
  else if (decision) text = `${who.we} decided: ${rest}`;
  else if (label) text = `${who.speaker} noted a to-do: ${rest}`;
  else {
    const listeners = who.listeners.length ? who.listeners.join(' and ') : 'the others';
    text = `${who.speaker} asked ${listeners} to ${rest.charAt(0).toLowerCase()}${rest.slice(1)}`;
  }
  const importance = decision ? 3 : 2 + (deadline ? 0.5 : 0);
  return {
    entry: {
      content: finish(pinDates(shorten(text), turn.created_at), [turn.sender, ...turn.recipients]),
      category: decision ? 'decision' : 'todo',
      importance,
      sources: [turn.id],
    },
    weight: importance + 1,
  };
}

/** What the offline extractor learns from one turn: synchronous, never throws on a body. */
export function extractOffline(
  given: ExtractTurn,
  givenBefore: readonly ExtractTurn[] = [],
): ExtractedEntry[] {
  const turn = normal(given);
  const before = Array.isArray(givenBefore)
    ? givenBefore.filter((t) => typeof t === 'object' && t !== null).map(normal)
    : [];
  const body = turn.body;
  if (!body.trim()) return [];
  const vocatives = vocativesOf([turn.sender, ...turn.recipients]);
  const found: Candidate[] = [];
  const answer = fromAnswer(turn, before);
  if (answer) found.push({ ...answer, order: -1 });
  sentencesOf(body).forEach((raw, order) => {
    if (/\?\s*$/.test(raw)) return;
    const sentence = restoreSubject(cleanSentence(raw, vocatives));
    if (!sentence) return;
    // A piece that starts in lower case is the tail of a sentence cut at a dash.
    const c = fromLabel(sentence, turn) ?? fromStatement(sentence, turn, /^[a-z]/.test(raw));
    if (c) found.push({ ...c, order });
  });
  const seen = new Set<string>();
  return found
    .filter((c) => {
      const key = c.entry.content.toLowerCase();
      if (!c.entry.content || seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => b.weight - a.weight || a.order - b.order)
    .slice(0, MAX_ENTRIES_PER_TURN)
    .sort((a, b) => a.order - b.order)
    .map((c) => {
      const day = pinnedDay(c.entry.content);
      return day === undefined ? c.entry : { ...c.entry, occurred_at: day };
    });
}

export function createOfflineExtractor(): Extractor {
  return {
    name: 'offline',
    version: 1,
    extract: (turn, before) => Promise.resolve(extractOffline(turn, before)),
  };
}
