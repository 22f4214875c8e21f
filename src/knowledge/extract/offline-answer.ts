// A turn that answers the turn before it: a yes or no to a question, a short answer naming what
// was asked about, an agreement to a proposal; each makes one entry of both turns, citing both.
import { FIRST_PERSON, contentWords, type Found } from './offline-cues.js';
import { pinDates } from './offline-dates.js';
import { pastTense, thirdPerson, toThirdPerson } from './offline-person.js';
import { cleanSentence, finish, sentencesOf, shorten, vocativesOf } from './offline-text.js';
import type { ExtractCategory, ExtractTurn } from './types.js';

const AFFIRMATIVE =
  /^(?:yes|yeah|yep|yup|sure|definitely|absolutely|of course|sounds good|sounds great|works for me|that works|deal|agreed|ok|okay|for sure|totally|perfect|will do|can do|certainly)\b|^[\w ]{0,30}\b(?:works(?: for me)?|is fine|suits me|fine by me)\b|^(?:i|we) (?:do|did|have|am|will|can|sure do|sure did)(?=[\s,.!]*$|[\s]*[,.!])/;
const NEGATIVE =
  /^(?:no|nope|nah|not really|not yet|never|i don't|i do not|i haven't|i didn't|i can't|i won't|i'm not|we can't|we don't)\b/;

/** What one proposes both do: "we should X", "let's X", "I suggest we X", "how about we X". */
const PROPOSAL =
  /\b(?:we should|we could|let's|let us|i (?:suggest|propose)(?: that)? we|how about we|why don't we)\s+(?!(?:keep|hope|see|not)\b)(.+)$/i;
const AGREED =
  /^(?:agreed|good idea|great idea|makes sense|let's do (?:it|that)|deal|sounds good|sounds great|sounds like a plan|works for me|yes|yep|sure|ok|okay|perfect|done)\b/;

/**
 * "I think we should cap the workers at 2." answered "Agreed.": a proposal to both that the other
 * accepts is what they decided, citing both turns.
 */
function fromAgreement(answer: string, turn: ExtractTurn, prev: ExtractTurn): Found | undefined {
  if (!AGREED.test(answer)) return undefined;
  const proposal = sentencesOf(prev.body)
    .map((s) => PROPOSAL.exec(s.replace(/[’‘]/g, "'")))
    .findLast((m) => m !== null);
  if (!proposal) return undefined;
  const what = proposal[1]!.replace(/[.!]+$/, '');
  const both = `${prev.sender} and ${turn.sender}`;
  const rest = toThirdPerson(what, { speaker: prev.sender, listeners: [turn.sender], we: both });
  if (contentWords(rest.toLowerCase()) < 1) return undefined;
  return {
    entry: {
      content: finish(pinDates(shorten(`${both} agreed to ${rest}`), turn.created_at), [
        prev.sender,
      ]),
      category: 'decision',
      importance: 3,
      sources: [prev.id, turn.id],
    },
    weight: 4,
  };
}

/**
 * "Can we meet Tuesday?" answered "Yes, Tuesday works": one entry that states what the two turns
 * settle, citing both. Only yes-or-no questions to the one who answers or to both of them.
 */
export function fromAnswer(turn: ExtractTurn, before: readonly ExtractTurn[]): Found | undefined {
  const prev = before[before.length - 1];
  if (!prev || prev.sender === turn.sender) return undefined;
  const answer = sentencesOf(turn.body)[0];
  if (!answer) return undefined;
  const a = answer
    .toLowerCase()
    .replace(/[’‘]/g, "'")
    .replace(/^(?:oh|well|hmm+|haha+|um+)[\s,!.]+/, '');
  const question = sentencesOf(prev.body).at(-1);
  if (!question?.endsWith('?')) return fromAgreement(a, turn, prev);
  let q = cleanSentence(question, vocativesOf([turn.sender, prev.sender])).replace(/\?+$/, '');
  const choice = chosen(q, a);
  if (choice) {
    // "Should we use Postgres or SQLite?" "SQLite." settles the question with the one named.
    q = choice.question;
    if (
      !/^(?:do|does|did|are|is|was|were|have|has|can|could|will|would|shall|should) (?:you|we) /i.test(
        q,
      )
    )
      return fromChoice(choice, turn, prev);
  }
  const yes = !!choice || AFFIRMATIVE.test(a);
  const no = !yes && NEGATIVE.test(a);
  if (!yes && !no) return fromNamedAnswer(q, answer, turn, prev);
  const m =
    /^(do|does|did|are|is|was|were|have|has|can|could|will|would|shall|should) (you|we) (.+)$/i.exec(
      q.replace(/[’‘]/g, "'"),
    );
  if (!m) return fromNamedAnswer(q, answer, turn, prev);
  const aux = m[1]!.toLowerCase();
  const both = m[2]!.toLowerCase() === 'we';
  const subject = both ? `${prev.sender} and ${turn.sender}` : turn.sender;
  // The question's own "I" and "my" are the asker's.
  const rest = toThirdPerson(settle(m[3]!, yes), {
    speaker: prev.sender,
    listeners: [turn.sender],
    we: `${prev.sender} and ${turn.sender}`,
  });
  if (contentWords(rest.toLowerCase()) < 1) return undefined;
  let text: string;
  let category: ExtractCategory = 'fact';
  let importance = 1.5;
  if (/^(?:can|could|will|would|shall|should)$/.test(aux)) {
    text = `${subject} ${yes ? 'agreed' : 'declined'} to ${rest}`;
    if (yes) {
      category = both ? 'decision' : 'commitment';
      importance = both ? 3 : 2.5;
    }
  } else if (/^(?:do|does|did)$/.test(aux)) {
    if (yes) {
      // "Did you join?" "Yes" → "joined"; "Does she like it?" "Yes" → "likes".
      const [first = '', ...others] = rest.split(' ');
      const verb = aux === 'did' ? pastTense(first) : both ? first : thirdPerson(first);
      text = `${subject} ${[verb, ...others].join(' ')}`;
    } else {
      text = `${subject} ${aux === 'did' ? 'did' : both ? 'do' : 'does'} not ${rest}`;
    }
    if (/^(?:like|love|enjoy|prefer|want)\b/.test(m[3]!)) category = 'preference';
  } else {
    const verb =
      aux === 'have' || aux === 'has'
        ? both
          ? 'have'
          : 'has'
        : aux === 'was' || aux === 'were'
          ? both
            ? 'were'
            : 'was'
          : both
            ? 'are'
            : 'is';
    text = `${subject} ${yes ? verb : `${verb} not`} ${rest}`;
  }
  return {
    entry: {
      content: finish(pinDates(shorten(text), turn.created_at), [turn.sender, prev.sender]),
      category,
      importance,
      sources: [prev.id, turn.id],
    },
    weight: importance + 1,
  };
}

interface Choice {
  /** The question with its alternatives replaced by the one chosen. */
  question: string;
  picked: string;
  other: string;
}

/** The alternative of "X or Y" in `question` that the answer names, alone of the two. */
function chosen(question: string, answer: string): Choice | undefined {
  const m = /\b([\w.+#-]+) or ([\w.+#-]+)\b/i.exec(question);
  if (!m) return undefined;
  const named = (word: string) =>
    new RegExp(`(?:^|[^\\w])${word.replace(/[.+#-]/g, '\\$&')}(?:[^\\w]|$)`, 'i').test(answer);
  const [first, second] = [m[1]!, m[2]!];
  if (named(first) === named(second)) return undefined;
  const [picked, other] = named(first) ? [first, second] : [second, first];
  return { question: question.replace(m[0], picked), picked, other };
}

/** "Which database should the hub use, Postgres or SQLite?" "SQLite": what was chosen. */
function fromChoice(choice: Choice, turn: ExtractTurn, prev: ExtractTurn): Found | undefined {
  const about = choice.question.replace(new RegExp(`[,:;]?\\s*${choice.picked}\\s*$`, 'i'), '');
  const text = `${turn.sender} chose ${choice.picked} over ${choice.other} (${prev.sender} asked: ${about})`;
  return {
    entry: {
      content: finish(pinDates(shorten(text), turn.created_at), [turn.sender, prev.sender]),
      category: 'decision',
      importance: 2.5,
      sources: [prev.id, turn.id],
    },
    weight: 3.5,
  };
}

/**
 * "What's your favourite colour?" answered "Blue!": the answer names the thing asked about, so
 * the two make one fact about the one who answers. Only short answers that say nothing else.
 */
function fromNamedAnswer(
  question: string,
  answer: string,
  turn: ExtractTurn,
  prev: ExtractTurn,
): Found | undefined {
  const m = /^what(?:'s| is| are|’s) your (.+)$/i.exec(question);
  if (!m) return undefined;
  const said = cleanSentence(answer, vocativesOf([turn.sender, prev.sender])).replace(/[.!]+$/, '');
  const words = said.split(/\s+/).filter(Boolean);
  if (words.length === 0 || words.length > 5 || FIRST_PERSON.test(said.toLowerCase())) {
    return undefined;
  }
  if (/\b(?:is|are|was|were|do|does|did|have|has|you|it|that|this)\b/i.test(said)) return undefined;
  const preference = /\b(?:favou?rite|fave|fav|top pick)\b/i.test(m[1]!);
  const importance = preference ? 2 : 1.5;
  const verb = / are$/i.test(question.slice(0, question.indexOf(' your'))) ? 'are' : 'is';
  return {
    entry: {
      content: finish(pinDates(`${turn.sender}'s ${m[1]!} ${verb} ${said}`, turn.created_at), [
        turn.sender,
      ]),
      category: preference ? 'preference' : 'fact',
      importance,
      sources: [prev.id, turn.id],
    },
    weight: importance + 1,
  };
}

/**
 * A question's words as a statement's: "any" becomes "some" when the answer is yes, and the
 * words that only a question needs ("ever", "yet", "already") go.
 */
function settle(words: string, yes: boolean): string {
  let s = words.replace(/\b(?:ever|yet|already)\b\s*/gi, '').replace(/\s+$/, '');
  if (yes) {
    s = s.replace(/\bany(one|body|thing|where|)\b/gi, (_m, tail: string) => `some${tail}`);
  }
  return s;
}
