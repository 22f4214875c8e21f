// Turning a speaker's own words into words that stand alone: "I" and "my" become the speaker's
// name, "you" the person spoken to, and the verb after a new subject agrees with it
// ("I love" → "Caroline loves"). Rules of English grammar only, so a sentence they do not know
// keeps its words and only its pronouns change.

/** Who "I", "we" and "you" are in the sentence being rewritten. */
export interface Persons {
  speaker: string;
  /** Whom the turn was said to: "you" becomes their names. */
  listeners: string[];
  /**
   * Whom "we" means. A decision ("we'll go with X") binds those who talk; elsewhere "we" is the
   * speaker and people the turn does not name (a family, a team).
   */
  we: string;
}

/** Forms that already agree with a third-person subject, or never change. */
const KEEPS = new Set(
  (
    'can could will would shall should might must may did was had used got went saw took made ' +
    'came ran found bought brought thought felt left met told said gave began won lost wrote put ' +
    'set cut let hit kept slept sent spent built taught caught heard held knew grew drew flew ' +
    'threw wore chose spoke broke woke drove rode sang swam ate fell forgot became stood ' +
    'understood sold paid laid fed led lit hung shot fought sought meant dealt gotta gonna wanna ' +
    'never also always just really still even finally recently actually totally definitely ' +
    'absolutely often usually sometimes already once too only mostly kinda sorta truly ' +
    "cannot couldn't didn't wasn't wouldn't shouldn't can't hadn't won't mightn't"
  ).split(' '),
);

/** Adverbs that may sit between a subject and its verb ("I really love"). */
const ADVERBS = new Set(
  (
    'really also always just still even finally recently actually totally definitely absolutely ' +
    'often usually sometimes already once truly honestly mostly kinda sorta personally ' +
    'particularly especially seriously genuinely normally generally rarely barely hardly ' +
    'literally basically currently'
  ).split(' '),
);

const IRREGULAR: Record<string, string> = {
  am: 'is',
  are: 'is',
  were: 'was',
  have: 'has',
  do: 'does',
  go: 'goes',
  "don't": "doesn't",
  "haven't": "hasn't",
  "aren't": "isn't",
  "weren't": "wasn't",
  "'m": ' is',
  "'re": ' is',
  "'ve": ' has',
};

/** The verb form for a third-person singular subject ("love" → "loves"). */
export function thirdPerson(verb: string): string {
  const lower = verb.toLowerCase();
  const irregular = IRREGULAR[lower];
  if (irregular !== undefined) return irregular;
  if (KEEPS.has(lower) || !/^[a-z]+$/.test(lower) || /[^e]ed$/.test(lower)) return verb;
  if (/(s|sh|ch|x|z|o)$/.test(lower)) return `${verb}es`;
  if (/[^aeiou]y$/.test(lower)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
}

/** "Gina's", "Gina and others'". */
function possessive(name: string): string {
  return name.endsWith('s') ? `${name}'` : `${name}'s`;
}

const PAST: Record<string, string> = {
  be: 'was',
  have: 'had',
  do: 'did',
  go: 'went',
  get: 'got',
  see: 'saw',
  take: 'took',
  make: 'made',
  come: 'came',
  run: 'ran',
  find: 'found',
  buy: 'bought',
  bring: 'brought',
  think: 'thought',
  feel: 'felt',
  leave: 'left',
  meet: 'met',
  tell: 'told',
  say: 'said',
  give: 'gave',
  begin: 'began',
  win: 'won',
  lose: 'lost',
  write: 'wrote',
  read: 'read',
  put: 'put',
  keep: 'kept',
  send: 'sent',
  spend: 'spent',
  build: 'built',
  teach: 'taught',
  catch: 'caught',
  hear: 'heard',
  hold: 'held',
  know: 'knew',
  grow: 'grew',
  draw: 'drew',
  fly: 'flew',
  wear: 'wore',
  choose: 'chose',
  speak: 'spoke',
  break: 'broke',
  drive: 'drove',
  ride: 'rode',
  sing: 'sang',
  swim: 'swam',
  eat: 'ate',
  fall: 'fell',
  forget: 'forgot',
  become: 'became',
  sell: 'sold',
  pay: 'paid',
  learn: 'learned',
};

/** The simple past of a verb ("join" → "joined", "go" → "went"). */
export function pastTense(verb: string): string {
  const lower = verb.toLowerCase();
  const irregular = PAST[lower];
  if (irregular !== undefined) return irregular;
  if (!/^[a-z]+$/.test(lower) || /[^e]ed$/.test(lower)) return verb;
  if (lower.endsWith('e')) return `${verb}d`;
  if (/[^aeiou]y$/.test(lower)) return `${verb.slice(0, -1)}ied`;
  return `${verb}ed`;
}

function names(list: string[]): string {
  if (list.length === 0) return 'the others';
  if (list.length === 1) return list[0]!;
  return `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]!}`;
}

/** Words after which "I'd" is "I had" ("I'd been"), not "I would". */
const HAD_AFTER =
  /^(?:been|had|already|never|just|gone|done|seen|got|gotten|made|taken|left|finished|forgotten|heard|known|met)$/i;

/** Words that are subjects and take a verb after them. */
const SUBJECTS = new Set(['i', 'you']);

/**
 * Rewrites a sentence in the third person. "I" and "me" are always the speaker's name; a "my"
 * after the name is "their", which keeps the sentence short without leaving doubt whose it is.
 */
export function toThirdPerson(sentence: string, who: Persons): string {
  const listener = names(who.listeners);
  const singleListener = who.listeners.length === 1;
  // Words and the gaps between them, so the sentence keeps its punctuation.
  const parts = sentence.replace(/[’‘]/g, "'").split(/([A-Za-z]+(?:'[A-Za-z]+)?)/);
  const out: string[] = [];
  let named = false;
  let agreeNext = false;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (i % 2 === 0) {
      out.push(part);
      continue;
    }
    const lower = part.toLowerCase();
    if (agreeNext) {
      if (ADVERBS.has(lower)) {
        out.push(part);
        continue;
      }
      agreeNext = false;
      out.push(thirdPerson(part));
      continue;
    }
    let word: string | undefined;
    const contraction = /^(i|you|we)('m|'re|'ve|'ll|'d|'s)$/.exec(lower);
    if (contraction) {
      const subject = contraction[1]!;
      const tail = contraction[2]!;
      const who1 =
        subject === 'i' ? who.speaker : subject === 'you' ? listener : who.we || who.speaker;
      const plural = subject === 'we' || (subject === 'you' && !singleListener);
      const verb =
        tail === "'ll"
          ? 'will'
          : tail === "'d"
            ? HAD_AFTER.test(parts[i + 2] ?? '')
              ? 'had'
              : 'would'
            : tail === "'ve"
              ? plural
                ? 'have'
                : 'has'
              : plural
                ? 'are'
                : 'is';
      word = `${who1} ${verb}`;
      if (subject === 'i') named = true;
    } else if (lower === 'i' && part === 'I') {
      word = who.speaker;
      named = true;
      agreeNext = true;
    } else if (lower === 'i' && parts[i + 1]?.startsWith(' ')) {
      word = who.speaker;
      named = true;
      agreeNext = true;
    } else if (lower === 'me') {
      word = who.speaker;
      named = true;
    } else if (lower === 'myself') {
      word = named ? 'themselves' : who.speaker;
      named = true;
    } else if (lower === 'my') {
      word = named ? 'their' : possessive(who.speaker);
      named = true;
    } else if (lower === 'mine') {
      word = possessive(who.speaker);
    } else if (lower === 'we') {
      word = who.we || who.speaker;
      named = true;
    } else if (lower === 'us') {
      word = named ? 'them' : who.we || who.speaker;
    } else if (lower === 'our' || lower === 'ours') {
      word = named ? 'their' : possessive(who.we || who.speaker);
      named = true;
    } else if (lower === "let's") {
      word = `${who.we || who.speaker} will`;
      named = true;
    } else if (lower === 'you' || lower === 'yourself') {
      word = listener;
      agreeNext = singleListener && SUBJECTS.has(lower) && nextIsVerbPosition(parts, i);
    } else if (lower === 'your' || lower === 'yours') {
      word = possessive(listener);
    }
    out.push(word ?? part);
  }
  return out.join('');
}

/** "you" is a subject when it starts the clause or follows a conjunction, not after a verb. */
function nextIsVerbPosition(parts: string[], i: number): boolean {
  const gapBefore = parts[i - 1] ?? '';
  const wordBefore = (parts[i - 2] ?? '').toLowerCase();
  return (
    i === 1 ||
    /[,;:.!]\s*$/.test(gapBefore) ||
    ['and', 'but', 'so', 'if', 'when', 'because', 'that', 'since'].includes(wordBefore)
  );
}
