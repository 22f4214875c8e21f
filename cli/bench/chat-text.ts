import {
  ACTIVITIES,
  ADJECTIVES,
  ADVERBS,
  FIRST_NAMES,
  MONTHS,
  NOUNS,
  PLACES,
  REACTIONS,
  SURNAMES,
  TECH,
  VERBS,
  WEEKDAYS,
} from './chat-words.js';
import { createRandom, type Random } from './random.js';
import {
  cap,
  CODENAMES,
  makeCodenames,
  STATUS,
  technicalAside,
  type TextGenerator,
} from './text.js';

/** What the report calls the generated corpus. */
export const GENERATED_SOURCE = 'generated chat (built in)';

/**
 * Draws indexes 0..n-1 with probability ∝ 1 / (i + 1)^s: Zipf's law, as word frequencies follow
 * it. The cumulative weights are computed once; each draw is a binary search.
 */
function zipf(r: Random, n: number, s = 1): () => number {
  const cdf = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) cdf[i] = total += 1 / (i + 1) ** s;
  return () => {
    const x = r.next() * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

const IRREGULAR: Record<string, string> = {
  go: 'went', get: 'got', make: 'made', see: 'saw', know: 'knew', think: 'thought',
  take: 'took', come: 'came', give: 'gave', tell: 'told', find: 'found', feel: 'felt',
  leave: 'left', put: 'put', mean: 'meant', keep: 'kept', let: 'let', begin: 'began',
  hold: 'held', bring: 'brought', write: 'wrote', sit: 'sat', stand: 'stood', lose: 'lost',
  pay: 'paid', meet: 'met', set: 'set', lead: 'led', understand: 'understood', speak: 'spoke',
  read: 'read', spend: 'spent', grow: 'grew', win: 'won', buy: 'bought', send: 'sent',
  build: 'built', fall: 'fell', cut: 'cut', run: 'ran', draw: 'drew', swim: 'swam',
  sing: 'sang', sleep: 'slept', hear: 'heard', say: 'said', ship: 'shipped', stop: 'stopped',
  plan: 'planned', drop: 'dropped',
}; // prettier-ignore

const consonantY = /[^aeiou]y$/;
const plural = (w: string) =>
  consonantY.test(w) ? `${w.slice(0, -1)}ies` : /(s|x|ch|sh)$/.test(w) ? `${w}es` : `${w}s`;
const past = (w: string) =>
  IRREGULAR[w] ??
  (w.endsWith('e') ? `${w}d` : consonantY.test(w) ? `${w.slice(0, -1)}ied` : `${w}ed`);
/** Verbs that double their last letter before -ing. */
const DOUBLE = new Set('run swim stop plan ship get sit cut win begin put set let drop'.split(' '));
const gerund = (w: string) =>
  w.endsWith('ie')
    ? `${w.slice(0, -2)}ying`
    : /[^e]e$/.test(w)
      ? `${w.slice(0, -1)}ing`
      : DOUBLE.has(w)
        ? `${w}${w.at(-1)}ing`
        : `${w}ing`;

/** Sentence shapes; each {slot} is filled from a word list drawn with a Zipf skew. */
const TEMPLATES = [
  'I {ved} the {n} {t}.',
  'Did you {v} the {n} yet?',
  'We should {v} the {a} {n} before {day}.',
  '{name} and I went {act} at the {p} {t}.',
  'The {n} was {adv} {a}.',
  "I'm {adv} {a} about the {n}.",
  'Can you {v} the {n} for {name}?',
  '{name} said the {n} is {a} again.',
  'Just {ved} {num} {ns} in {num} minutes.',
  'How was the {n} with {name}?',
  'I think the {tech} {n} is {a} because of the {n}.',
  'Let me know when the {n} is {a}.',
  'My {n} loves {act}, so we {ved} {t}.',
  'It was so much fun to {v} the {ns} at the {p}.',
  'Thanks for sharing the {n}, it {adv} {ved} my {n}.',
  'What did you do {t}?',
  'The time we {ved} in {p} was {a}.',
  '{name} {ved} a {a} {n} in {month}.',
  "I've been {ving} {adv} since {month}.",
  'Looks like the {n} {ved} after the {tech} {n} change.',
  'Remember the {n} at the {p}? It was {a}.',
  'Not sure about the {n}; maybe {v} it {t}?',
  "I'll {v} the {ns} and {v} the {n} after {n}.",
  'We {ved} {num} {ns} for the {n} {t}.',
  'Honestly the {n} was {a} but the {n} was {a}.',
  '{name} is going to {v} the {n} on {day}.',
  'You know, {ving} with {name} is the best part of my week.',
  'The {a} {n} at the {p} {adv} {ved} us.',
  'I {adv} need to {v} more {ns}.',
  'Any idea why the {n} keeps {ving}?',
  'Is the {n} {a} or should I {v} it?',
  'So proud of you for {ving} the {n}!',
  'That is {a}, {name}! How did the {n} go?',
  'We {ved} the {ns} and the {ns} {t}.',
  'The {tech} {ns} {ved} {num} times {t}.',
  "Don't forget the {n} on {day} at {num}.",
] as const;

const OPENERS = [
  'Hey {name}!',
  'Hi all!',
  'So,',
  'Honestly,',
  'How are you doing?',
  'Oh!',
  'Btw:',
  'Update:',
];
const TIMES = [
  'yesterday', 'last week', 'this morning', 'tonight', 'today', 'last weekend',
  'on {day}', 'in {month}', 'next week', 'a few days ago', '{num} days ago', 'last night',
  'after lunch', 'this afternoon', 'last {month}',
]; // prettier-ignore

/** Words sent with a typo: two letters swapped or one doubled (the long tail real chat has). */
function typo(r: Random, w: string): string {
  if (w.length < 4) return w;
  const i = r.int(1, w.length - 2);
  return r.chance(0.5)
    ? w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2)
    : w.slice(0, i) + w[i] + w.slice(i);
}

/**
 * Conversational text without any file: everyday and working chat between people and agents.
 * Words follow a Zipf law over a vocabulary of a few thousand forms (nouns, verbs with their
 * inflections, adjectives, places, names), with a long tail of names with surnames, numbers,
 * typos and made-up code names; message lengths resemble chat (many one-liners and reactions,
 * some long messages with several paragraphs); a quarter of messages carry a technical aside.
 * Deterministic for a seed.
 */
export function createChatText(seed = 1): TextGenerator {
  const r = createRandom(seed);
  const codenames = makeCodenames(CODENAMES);
  const draw = <T>(list: readonly T[], s = 1) => {
    const next = zipf(r, list.length, s);
    return () => list[next()]!;
  };
  const noun = draw(NOUNS);
  const verb = draw(VERBS);
  const adjective = draw(ADJECTIVES);
  const adverb = draw(ADVERBS);
  const place = draw(PLACES);
  const activity = draw(ACTIVITIES);
  const tech = draw(TECH);
  const firstName = draw(FIRST_NAMES, 0.9);
  const template = draw(TEMPLATES, 0.4);
  const reaction = draw(REACTIONS, 0.8);
  const codenameRank = zipf(r, codenames.length, 1.05);
  const codename = (i: number) => codenames[Math.min(codenames.length - 1, Math.max(0, i))]!;
  const someCodename = () => codename(codenameRank());
  const name = () => (r.chance(0.05) ? `${firstName()} ${r.pick(SURNAMES)}` : firstName());
  const number = () => String(r.chance(0.7) ? r.int(2, 60) : r.int(61, 99_999));
  /** A content word now and then misspelt, or swapped for a tail word. */
  const tail = (w: string) => (r.chance(0.012) ? typo(r, w) : r.chance(0.006) ? someCodename() : w);

  const fill = (shape: string): string =>
    shape.replace(/\{(\w+)\}/g, (_, slot: string) => {
      switch (slot) {
        case 'n':
          return tail(noun());
        case 'ns':
          return tail(plural(noun()));
        case 'v':
          return tail(verb());
        case 'ved':
          return tail(past(verb()));
        case 'ving':
          return tail(gerund(verb()));
        case 'a':
          return tail(adjective());
        case 'adv':
          return adverb();
        case 'p':
          return place();
        case 'act':
          return activity();
        case 'tech':
          return tech();
        case 'name':
          return name();
        case 'num':
          return number();
        case 'day':
          return r.pick(WEEKDAYS);
        case 'month':
          return r.pick(MONTHS);
        case 't':
          return fill(r.pick(TIMES));
        default:
          return slot;
      }
    });

  const sentence = () => fill(template());
  const aside = () => technicalAside(r, someCodename);

  /** How many sentences: from one to three in most messages; a few run long. */
  const sentences = (): number => {
    const x = r.next();
    return x < 0.2 ? 1 : x < 0.4 ? 2 : x < 0.6 ? 3 : x < 0.85 ? r.int(4, 7) : r.int(8, 16);
  };

  return {
    source: GENERATED_SOURCE,
    name,
    codename,
    sentence,
    subject() {
      if (r.chance(0.3)) return `${cap(someCodename())}: ${r.pick(STATUS)}`;
      if (r.chance(0.3))
        return `${cap(adjective())} ${noun()} ${r.chance(0.5) ? 'plan' : 'update'}`;
      const words = sentence()
        .replace(/[.!?]+$/, '')
        .split(' ');
      return words.slice(0, r.int(3, 6)).join(' ');
    },
    body() {
      if (r.chance(0.15)) return reaction();
      const n = sentences();
      const parts: string[] = [];
      if (r.chance(0.12)) parts.push(fill(r.pick(OPENERS)));
      for (let i = 0; i < n; i++) parts.push(sentence());
      if (r.chance(0.25)) parts.splice(r.int(0, parts.length), 0, aside());
      // Long messages come in paragraphs.
      return n >= 8
        ? parts.map((p, i) => (i > 0 && i % 3 === 0 ? `\n\n${p}` : p)).join(' ')
        : parts.join(' ');
    },
  };
}
