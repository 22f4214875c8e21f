import { createRandom, type Random } from './random.js';

/** The raw material of the benchmark's text: real sentences and the names said in them. */
export interface Corpus {
  /** Where the text came from, for the report. */
  source: string;
  sentences: string[];
  /** Names of the people who speak (to vary them). */
  names: string[];
  /** Questions asked about the conversations (some messages are questions). */
  questions: string[];
}

/**
 * Varied text from a corpus: corpus sentences with their names, numbers, months and weekdays
 * replaced, new sentences walked from a word chain over the corpus (so no two messages need
 * share a sentence), and the short technical asides agents write (tickets, commits, code
 * names drawn with a long tail, so the vocabulary keeps growing with the brain like a real one).
 */
export interface TextGenerator {
  /** Where the text comes from, for the report: a file, or the generated chat. */
  readonly source: string;
  body(): string;
  subject(): string;
  sentence(): string;
  /** A person's name (corpus names and many more). */
  name(): string;
  /** The i-th code name (0 is the most frequent); the same list for every run. */
  codename(i: number): string;
}

export const CODENAMES = 20_000;

const MONTHS =
  'January February March April May June July August September October November December'.split(
    ' ',
  );
const WEEKDAYS = 'Monday Tuesday Wednesday Thursday Friday Saturday Sunday'.split(' ');
const FIRST_NAMES =
  `Aaliyah Abel Ada Adrian Aisha Alan Alba Alec Alma Amir Ana Anders Anya Ari Arlo Asha Aurora
  Ayo Bea Ben Bianca Bo Bruno Caleb Camila Carlos Cato Chen Chiara Cleo Dante Daria David Dmitri Dora Eli Elif
  Elsa Emeka Emil Enzo Esme Ezra Farah Felix Fiona Gabe Greta Hana Hugo Ida Ilya Ines Ivan Jada Jamal Jana
  Jonas Joy Kai Kamala Kenji Kofi Lara Leo Lena Liam Lina Luca Luz Maeve Malik Mara Marco Mateo Maya Mei Milo
  Nadia Nia Nico Nina Noor Omar Oskar Paz Pia Priya Quinn Rafael Rani Rosa Ruth Sami Sara Sven Tala Theo Tomas
  Uma Vera Wen Yara Yusuf Zane Zoe`.split(/\s+/);
const PROJECTS = ['OPS', 'RES', 'INC', 'DATA', 'WEB', 'ML', 'SEC', 'INFRA'];
export const STATUS = [
  'blocked',
  'done',
  'in review',
  'waiting on data',
  'reopened',
  'ready to ship',
];
const FILES = ['config.yaml', 'run.log', 'schema.sql', 'notes.md', 'report.csv', 'index.json'];

/** Pronounceable made-up words, the same for every run: "vorunel", "tesk", … */
export function makeCodenames(n: number): string[] {
  const r = createRandom(7);
  const onsets = 'b c d f g h j k l m n p r s t v z br dr fl gr kl pr st tr sk'.split(' ');
  const vowels = 'a e i o u ai ea io ou'.split(' ');
  const codas = ['', '', 'n', 'r', 'l', 'x', 'sk', 'nd', 'th'];
  const seen = new Set<string>();
  const out: string[] = [];
  while (out.length < n) {
    const syllables = r.int(2, 3);
    let w = '';
    for (let i = 0; i < syllables; i++) w += r.pick(onsets) + r.pick(vowels);
    w += r.pick(codas);
    if (!seen.has(w)) {
      seen.add(w);
      out.push(w);
    }
  }
  return out;
}

/** An order-2 word chain: from two words, the words that followed them in the corpus. */
function buildChain(sentences: string[]) {
  const next = new Map<string, string[]>();
  const starts: Array<[string, string]> = [];
  for (const s of sentences) {
    const words = s.split(' ');
    if (words.length < 4) continue;
    starts.push([words[0]!, words[1]!]);
    for (let i = 0; i + 2 < words.length; i++) {
      const key = `${words[i]} ${words[i + 1]}`;
      const list = next.get(key);
      if (list) list.push(words[i + 2]!);
      else next.set(key, [words[i + 2]!]);
    }
  }
  return { next, starts };
}

export function createTextGenerator(corpus: Corpus, seed = 1): TextGenerator {
  const r: Random = createRandom(seed);
  const codenames = makeCodenames(CODENAMES);
  const names = [...new Set([...corpus.names, ...FIRST_NAMES])];
  const chain = buildChain(corpus.sentences);
  const nameRe =
    corpus.names.length > 0
      ? new RegExp(`\\b(${corpus.names.map(escapeRe).join('|')})\\b`, 'g')
      : undefined;
  const monthRe = new RegExp(`\\b(${MONTHS.join('|')})\\b`, 'g');
  const dayRe = new RegExp(`\\b(${WEEKDAYS.join('|')})\\b`, 'g');

  const name = () => (r.chance(0.3) ? r.pick(corpus.names) : r.pick(names)) ?? r.pick(names);
  const codename = (i: number) => codenames[Math.min(codenames.length - 1, Math.max(0, i))]!;
  const someCodename = () => codename(r.skewed(codenames.length, 3));

  /** A corpus sentence with its particulars changed. */
  const varied = (s: string): string => {
    let out = nameRe ? s.replace(nameRe, () => name()) : s;
    out = out.replace(/\d+/g, (d) =>
      r.chance(0.8) ? String(r.int(10 ** (d.length - 1), 10 ** d.length - 1)) : d,
    );
    out = out.replace(monthRe, () => r.pick(MONTHS)).replace(dayRe, () => r.pick(WEEKDAYS));
    return out;
  };

  /** A new sentence walked from the word chain. */
  const walked = (): string => {
    const [a, b] = r.pick(chain.starts);
    const words = [a, b];
    while (words.length < 40 && !/[.!?]$/.test(words[words.length - 1]!)) {
      const options = chain.next.get(`${words[words.length - 2]} ${words[words.length - 1]}`);
      if (!options) break;
      words.push(r.pick(options));
    }
    const s = words.join(' ');
    return varied(/[.!?]$/.test(s) ? s : `${s}.`);
  };

  const sentence = () =>
    chain.starts.length > 0 && r.chance(0.45) ? walked() : varied(r.pick(corpus.sentences));

  const aside = () => technicalAside(r, someCodename);

  return {
    source: corpus.source,
    name,
    codename,
    sentence,
    subject() {
      if (r.chance(0.3)) return `${cap(someCodename())}: ${r.pick(STATUS)}`;
      const words = sentence()
        .replace(/[.!?]+$/, '')
        .split(' ');
      return words.slice(0, r.int(3, 7)).join(' ');
    },
    body() {
      const x = r.next();
      const n = x < 0.15 ? 1 : x < 0.45 ? 2 : x < 0.7 ? 3 : r.int(4, 8);
      const parts: string[] = [];
      if (corpus.questions.length > 0 && r.chance(0.05))
        parts.push(varied(r.pick(corpus.questions)));
      while (parts.length < n) parts.push(sentence());
      if (r.chance(0.3)) parts.splice(r.int(0, parts.length), 0, aside());
      return parts.join(' ');
    },
  };
}

/** A short technical line as agents write them: tickets, commits, jobs, paths. */
export function technicalAside(r: Random, someCodename: () => string): string {
  const c = someCodename();
  switch (r.int(0, 5)) {
    case 0:
      return `Ticket ${r.pick(PROJECTS)}-${r.int(100, 99_999)} is ${r.pick(STATUS)}.`;
    case 1:
      return `Pushed ${r.int(0, 0xfffffff).toString(16).padStart(7, '0')} to ${c}/main.`;
    case 2:
      return `The ${c} job finished in ${r.int(2, 180)} minutes.`;
    case 3:
      return `Can you check ${c} before ${r.pick(WEEKDAYS)}?`;
    case 4:
      return `Logged under ${c}; see /srv/${c}/${r.pick(FILES)}.`;
    default:
      return `${cap(c)} is at ${r.int(1, 99)}% after the ${someCodename()} rollout.`;
  }
}

export const cap = (w: string) => w[0]!.toUpperCase() + w.slice(1);

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
