// The extractor that needs no model: it reads each sentence a speaker says about themselves or
// their work, keeps those whose cue phrases say what kind of knowledge they hold (a decision, a
// commitment, a to-do, a preference, a fact), and rewrites them in the third person with the
// speaker's name and any relative date pinned. A yes or no that answers a question of the turn
// before becomes one entry made of both. Patterns of English only: no names, no topics.
import { pinDates } from './offline-dates.js';
import { pastTense, thirdPerson, toThirdPerson, type Persons } from './offline-person.js';
import { cleanSentence, finish, sentencesOf, shorten, vocativesOf } from './offline-text.js';
import type { ExtractCategory, ExtractedEntry, ExtractTurn, Extractor } from './types.js';

/** Entries one turn yields at most: the strongest, in the order they were said. */
const MAX_ENTRIES_PER_TURN = 3;

/*
 * Importance, 1.0 to 3.0, by what forgetting it would cost:
 *   3.0  an agreed decision, a "remind me", a commitment with a deadline;
 *   2.5  one's own decision, a commitment, a to-do with a deadline;
 *   2.0  a proposal ("let's"), a to-do, a strong preference (favourite, love, hate, allergic),
 *        who someone is (work, home, family, name);
 *   1.5  a milder preference (like, enjoy), something that happened (went, started, bought);
 *   1.0  any other statement a speaker makes about themselves.
 */
interface Cue {
  category: ExtractCategory;
  importance: number;
  pattern: RegExp;
}

const CUES: Cue[] = [
  {
    category: 'decision',
    importance: 3,
    pattern:
      /\b(?:we(?:'ve| have)? (?:decided|agreed|settled on|chose|picked|went with)|(?:final|our) decision|it'?s decided|we(?:'ll| will) go (?:with|ahead with)|we(?:'re| are) going (?:with|ahead with))\b/,
  },
  {
    category: 'decision',
    importance: 2.5,
    pattern:
      /\b(?:i(?:'ve| have)? decided|i(?:'m| am) going (?:with|ahead with)|i(?:'ll| will) go (?:with|ahead with)|i (?:chose|picked|opted for|settled on)|(?:i|we) opted|the plan is)\b/,
  },
  {
    category: 'decision',
    importance: 2,
    pattern:
      /\blet'?s (?:go with|use|pick|choose|stick with|meet|switch|move|plan|schedule|book|call|ship|release|merge|drop|start|postpone)\b/,
  },
  {
    category: 'todo',
    importance: 3,
    pattern: /\bremind me (?:to|about)\b|^i asked to be reminded\b/,
  },
  {
    category: 'todo',
    importance: 2,
    pattern:
      /\b(?:i|we) (?:really |still |also )?(?:need to|have to|must|should|gotta|got to|'ve got to|have got to)\b|\b(?:to-?do|don't (?:let me )?forget to)\b/,
  },
  {
    category: 'commitment',
    importance: 2.5,
    pattern:
      /\b(?:i|we)(?:'ll| will| shall) (?!(?:keep|bear) (?:that|it|this) in mind|let you know|see|try|think|miss|never|always|be (?:there|fine|ok))|\b(?:i|we)(?:'m| am|'re| are) (?:going to|gonna|planning (?:to|on)) |\b(?:i|we) (?:plan|promise|intend|aim) to\b/,
  },
  {
    category: 'preference',
    importance: 2,
    pattern:
      /\b(?:i (?:\w+ )?(?:love|hate|adore|can't stand|cannot stand|prefer|despise)|i(?:'m| am) (?:\w+ )?(?:allergic to|obsessed with|passionate about|a big fan of|a huge fan of)|my (?:favou?rite|fave|fav|top pick|go-to)|(?:is|are) my (?:favou?rite|fave|fav|top pick|go-to|thing)|i(?:'d| would) rather)\b/,
  },
  {
    category: 'preference',
    importance: 1.5,
    pattern:
      /\b(?:i (?:\w+ )?(?:like|enjoy|dislike|don't like|fancy)|i(?:'m| am) (?:\w+ )?(?:into|a fan of|fond of|keen on))\b/,
  },
  {
    category: 'fact',
    importance: 2,
    pattern:
      /\b(?:i (?:work|worked|live|lived|grew up|was born|moved|study|studied|graduated|teach|run|own)|i(?:'m| am) (?:a|an) |i(?:'m| am) from|my (?:name|job|work|career|company|team|boss|wife|husband|partner|sister|brother|mom|mum|mother|dad|father|son|daughter|kids|children|family|parents|grandma|grandmother|grandpa|grandfather|aunt|uncle|cousin|friend|best friend|dog|cat|pet|birthday|home|house|hometown))\b/,
  },
  {
    category: 'fact',
    importance: 1.5,
    pattern:
      /\b(?:i|we) (?:\w+ )?(?:went|visited|started|began|joined|finished|got|bought|adopted|lost|won|took|made|met|signed up|launched|opened|moved|attended|volunteered|tried|learned|learnt|read|watched|saw|traveled|travelled|built|created|wrote|painted|ran|received|became|quit|left|gave|hosted|organized|organised|completed|graduated|celebrated|had)\b|\bi(?:'ve| have) (?:\w+ )?(?:been|started|got|gotten|joined|finished|made|taken|had|learned|tried|seen|visited|bought|written)\b|\bi(?:'m| am) (?:\w+ )?(?:working on|learning|starting|training|taking|reading|writing|building|studying|volunteering|planning|hoping|looking|trying)\b/,
  },
];

/** A time something is due by. */
const DEADLINE = /\b(?:by|before|until) (?:\w+day|tomorrow|tonight|the end of|next|eod|noon|\d)/;

/** First-person words that make a sentence about the speaker. */
const FIRST_PERSON = /\b(?:i|i'm|i've|i'd|i'll|my|mine|we|we're|we've|we'll|we'd|our|let's)\b/;

/**
 * Talk about the talk rather than knowledge: reactions to what the other said (about the
 * listener, not the speaker), promises to reply, pointers to pictures, general praise.
 */
const PHATIC = [
  /^(?:i|we)(?:'m| am|'re| are) (?:\w+ ){0,2}(?:glad|happy|sorry|proud|thrilled|stoked|delighted|grateful|thankful|impressed|amazed|inspired|moved|touched|here|with you)(?: (?:for|of|to hear|to see|that|about|with|by) (?:you|your|that|this|it|hearing|seeing|how you|what you)\b| (?:you|your)\b|[.!]*$)/,
  /^i (?:\w+ )?(?:agree|understand|know|see|bet|guess|hope|wish|appreciate|hear you|get|mean|can imagine|can't imagine)(?: (?:that|what|how|it|so|you|your|the feeling|too|with you|where)\b|[.!]*$)/,
  /^i (?:\w+ )?(?:agree|bet|guess|hear you|can't wait|cannot wait|can imagine|can't imagine)\b/,
  /^(?:i|we) (?:\w+ )?(?:love|like|admire|adore|appreciate) (?:that|this|it|your|you|how you|what you|seeing|hearing)\b/,
  /^(?:i|we)(?:'ll| will) (?:\w+ )?(?:try|keep (?:that|it|this) in mind|bear (?:that|it|this) in mind|let you know|talk|catch up|chat|see you|keep you posted|keep that up|keep it up|get through)\b/,
  /^let'?s (?:keep (?:it up|up|going|pushing|in touch|at it|each other)|do (?:it|this)|go\b|hope|see|stay|not)\b/,
  /^(?:here'?s|here is|here are|check (?:out )?(?:this|these|it|my|our)|look at (?:this|these|my)|this is (?:a|my) (?:pic|photo|picture|shot))\b/,
  /^(?:it'?s|it is|that'?s|that is|this is|what a) (?:\w+ ){0,2}(?:nice|great|good|amazing|awesome|cool|important|wonderful|crazy|funny|sad|hard|tough|inspiring|incredible|beautiful|lovely)\b/,
];

/** A subject left out, as in chat ("Gonna volunteer next month", "Just got back from Rome"). */
const DROPPED_SUBJECT: Array<[RegExp, string]> = [
  [
    /^(?:gonna|going to|planning to|planning on|hoping to|trying to|working on|thinking (?:of|about)|heading|off to|looking (?:for|into|forward)|getting ready)\b/i,
    "I'm ",
  ],
  [/^been\b/i, "I've "],
  [/^(?:need|gotta|have to|want|wanna|enjoyed)\b/i, 'I '],
  [
    /^(?:just|finally|recently|never|always|still|also|even) \w+ed\b|^(?:just|finally|recently|never|also|even) (?:had|got|went|saw|took|made|met|bought|found|won|lost|began|came|left|finished)\b/i,
    'I ',
  ],
  [
    /^(?:went|got|took|made|met|bought|found|won|lost|began|came|left|spent|started|finished|joined|visited|signed up|tried|learned|moved|adopted|launched|opened|attended|volunteered|finished)\b(?! (?:to|by|for) (?:you|me)\b)/i,
    'I ',
  ],
];

function restoreSubject(sentence: string): string {
  for (const [pattern, subject] of DROPPED_SUBJECT) {
    if (pattern.test(sentence))
      return subject + sentence.charAt(0).toLowerCase() + sentence.slice(1);
  }
  return sentence;
}

/**
 * Encouragement in the form of a promise ("I'll keep pushing", "we'll make it"): it commits to
 * nothing anyone could check, so it is kept as a plain statement, not as a commitment.
 */
const ENCOURAGEMENT =
  /^(?:i|we|let's)(?:'ll| will|'m| am|'re| are)? (?:\w+ )?(?:going to |gonna )?(?:keep (?:on )?(?:going|pushing|it up|at it|trying|believing|chasing|spreading|supporting|helping|motivating|inspiring|rocking|shining|moving|movin'|dreaming|smiling|fighting|working hard|doing (?:my|our) (?:best|part))|do (?:my|our) (?:best|part)|make (?:it|this|that) (?:happen|work)|make it\b|never (?:give up|quit|stop)|get through (?:this|it)|be (?:there|right) )/;

/** Words too vague to make a sentence worth keeping on their own. */
const VAGUE = new Set(
  (
    'really so very just totally definitely absolutely much great good awesome amazing cool nice ' +
    'wow thanks thank glad happy sure know think feel hope agree love like lot lots things thing ' +
    'stuff always also still even way time today yeah yes okay ok fun super pretty kinda bit ' +
    'wait can get got make made keep going gonna'
  ).split(' '),
);

const STOP = new Set(
  (
    'a an the and or but if of to in on at by for with from as is are was were be been being am ' +
    'i me my we us our you your it its this that these those he she they them their his her do ' +
    'does did have has had will would can could should may might must not no so too very just ' +
    "than then there here what which who how when where why all any some i'm i've i'll i'd " +
    "it's that's let's don't can't"
  ).split(' '),
);

function contentWords(lower: string): number {
  let n = 0;
  for (const w of lower.split(/[^a-z0-9']+/)) {
    if (w.length > 1 && !STOP.has(w) && !VAGUE.has(w)) n++;
  }
  return n;
}

interface Candidate {
  entry: ExtractedEntry;
  order: number;
  weight: number;
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
function fromStatement(
  said: string,
  turn: ExtractTurn,
  fragment: boolean,
): Omit<Candidate, 'order'> | undefined {
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

/** Openings of a sentence that point back at what was said, so it cannot stand alone. */
const POINTS_BACK =
  /^(?:it|it's|its|that|that's|this|these|those|they|they're|there|there's|he|she|he's|she's|what|which|who|how|why|when|where|sounds|looks|seems|must|can|could|would|should|maybe|hope|wish|good|great|nice|glad|wow|so|such|keep|don't|let|take|stay|go|enjoy|congrats|congratulations|thanks|thank|sorry|bye|see|talk|cheers|love|welcome|awesome|amazing|cool|oh|yay|aw|lol|haha)\b/;

/** Judgements of worth: a claim that something is great or important holds no fact. */
const EVALUATIVE =
  /\b(?:is|are|was|were|be|been|feels?|seems?|sounds?|looks?) (?:\w+ )?(?:so |really |very |super |truly |always |such )?(?:a |an )?(?:amazing|awesome|great|good|nice|cool|important|crucial|key|essential|vital|rewarding|inspiring|tough|hard|priceless|wonderful|beautiful|special|incredible|fantastic|fun|lovely|powerful|meaningful|fulfilling|worth|best|the best|huge|tricky|scary|sad|crazy|perfect|awful|terrible)\b|^(?:\w+ing)\b/;

/**
 * A general statement ("The deadline is the 5th", "Marley flooring is grippy"): kept as what the
 * speaker says, when it names its subject and is not about the listener.
 */
function fromClaim(
  sentence: string,
  lower: string,
  turn: ExtractTurn,
): Omit<Candidate, 'order'> | undefined {
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

const AFFIRMATIVE =
  /^(?:yes|yeah|yep|yup|sure|definitely|absolutely|of course|sounds good|sounds great|works for me|that works|deal|agreed|ok|okay|for sure|totally|perfect|will do|can do|certainly)\b|^[\w ]{0,30}\b(?:works(?: for me)?|is fine|suits me|fine by me)\b|^(?:i|we) (?:do|did|have|am|will|can|sure do|sure did)(?=[\s,.!]*$|[\s]*[,.!])/;
const NEGATIVE =
  /^(?:no|nope|nah|not really|not yet|never|i don't|i do not|i haven't|i didn't|i can't|i won't|i'm not|we can't|we don't)\b/;

/**
 * "Can we meet Tuesday?" answered "Yes, Tuesday works": one entry that states what the two turns
 * settle, citing both. Only yes-or-no questions to the one who answers or to both of them.
 */
function fromAnswer(
  turn: ExtractTurn,
  before: readonly ExtractTurn[],
): Omit<Candidate, 'order'> | undefined {
  const prev = before[before.length - 1];
  if (!prev || prev.sender === turn.sender) return undefined;
  const answer = sentencesOf(turn.body)[0];
  if (!answer) return undefined;
  const a = answer
    .toLowerCase()
    .replace(/[’‘]/g, "'")
    .replace(/^(?:oh|well|hmm+|haha+|um+)[\s,!.]+/, '');
  const question = sentencesOf(prev.body).at(-1);
  if (!question?.endsWith('?')) return undefined;
  const q = cleanSentence(question, vocativesOf([turn.sender, prev.sender])).replace(/\?+$/, '');
  const yes = AFFIRMATIVE.test(a);
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

/**
 * "What's your favourite colour?" answered "Blue!": the answer names the thing asked about, so
 * the two make one fact about the one who answers. Only short answers that say nothing else.
 */
function fromNamedAnswer(
  question: string,
  answer: string,
  turn: ExtractTurn,
  prev: ExtractTurn,
): Omit<Candidate, 'order'> | undefined {
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
function fromLabel(sentence: string, turn: ExtractTurn): Omit<Candidate, 'order'> | undefined {
  const label = LABEL.exec(sentence);
  const request = label ? undefined : REQUEST.exec(sentence);
  if (!label && !request) return undefined;
  const decision = label !== null && /^(?:decision|decided|agreed)/i.test(label[1]!);
  const who = persons(turn, decision);
  const rest = toThirdPerson((label ? label[2] : request?.[1]) ?? '', who);
  if (contentWords(rest.toLowerCase()) < 1) return undefined;
  const deadline = DEADLINE.test(rest.toLowerCase());
  let text: string;
  if (decision) text = `${who.we} decided: ${rest}`;
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
    .map((c) => c.entry);
}

export function createOfflineExtractor(): Extractor {
  return {
    name: 'offline',
    version: 1,
    extract: (turn, before) => Promise.resolve(extractOffline(turn, before)),
  };
}
