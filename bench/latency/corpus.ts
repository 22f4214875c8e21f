import { existsSync, readFileSync } from 'node:fs';
import { readLocomo, type LocomoConversation } from '../../src/eval/locomo-format.js';
import { BrainError } from '../../src/index.js';

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

/** Split a turn into sentences ("Wow! That's great." → two). */
export function splitSentences(text: string): string[] {
  return text
    .replace(/\s+/g, ' ')
    .split(/(?<=[.!?])\s+(?=[A-Z"'(])/)
    .map((s) => s.trim())
    .filter((s) => s.length >= 3);
}

/** The sentences, speakers and questions of a LoCoMo file, read as `brain eval locomo` reads it. */
export function parseLocomo(doc: unknown, source: string): Corpus {
  let conversations: LocomoConversation[];
  try {
    conversations = readLocomo(doc);
  } catch (err) {
    if (!(err instanceof BrainError)) throw err;
    const why = err.message.replace(/^LoCoMo file: /, '');
    throw new BrainError('INVALID_INPUT', `--corpus: ${source} is not a LoCoMo file: ${why}`);
  }
  const sentences = conversations.flatMap((c) =>
    c.sessions.flatMap((s) => s.turns.flatMap((t) => splitSentences(t.text))),
  );
  const names = [...new Set(conversations.flatMap((c) => c.speakers))];
  const questions = conversations.flatMap((c) => c.questions.map((q) => q.question));
  if (sentences.length < 20) {
    throw new BrainError(
      'INVALID_INPUT',
      `--corpus: ${source} holds only ${sentences.length} sentences; the benchmark needs at least 20`,
    );
  }
  return { source, sentences, names, questions };
}

/** Read a LoCoMo file; a missing or unreadable file is NOT_FOUND, bad content INVALID_INPUT. */
export function readCorpus(path: string): Corpus {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new BrainError('NOT_FOUND', `--corpus: cannot read ${path}: ${(err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new BrainError(
      'INVALID_INPUT',
      `--corpus: ${path} is not JSON: ${(err as Error).message}`,
    );
  }
  return parseLocomo(doc, path);
}

/**
 * The corpus to build from: the given file (which must exist), else the default file if it is
 * there, else the built-in sentences, with `notice` told why.
 */
export function loadCorpus(
  explicit: string | undefined,
  fallbackPath: string,
  notice: (line: string) => void,
): Corpus {
  if (explicit !== undefined) return readCorpus(explicit);
  if (existsSync(fallbackPath)) return readCorpus(fallbackPath);
  notice(
    `no corpus at ${fallbackPath} (give one with --corpus); building from the small built-in generator, whose text is less varied`,
  );
  return builtInCorpus();
}

/** A small built-in corpus: agents at work and people at leisure. */
export function builtInCorpus(): Corpus {
  return {
    source: 'built-in',
    names: ['Caroline', 'Melanie', 'Jon', 'Gina', 'John', 'Maria'],
    questions: [
      'When did Caroline go to the support group?',
      'What did Melanie paint last summer?',
      'Where did Jon open his dance studio?',
      'How long has Maria been volunteering at the shelter?',
      'Which deploy broke the nightly export?',
      'Who owns the retry queue now?',
    ],
    sentences: BUILT_IN.split('\n')
      .map((s) => s.trim())
      .filter(Boolean),
  };
}

const BUILT_IN = `
The nightly export finished in 14 minutes, down from 40 last week.
I moved the retry queue to the new worker pool and nothing was lost.
Caroline went to the support group yesterday and said it was so powerful.
Melanie painted a sunrise over the lake last summer with her kids.
The backtest shows the spread gate has no predictive power over fills.
Can you check the staging database before Friday's release?
We agreed to freeze deploys during the exchange maintenance window.
Jon lost his job at the bank and decided to open a dance studio.
Gina launched her online clothing store in March and sales are growing.
The time we spent on the migration paid off when the disk filled up.
John is running for the city council and wants to improve the schools.
Maria volunteers at the homeless shelter every Sunday morning.
I think the flaky test comes from a race between the poller and the writer.
The latency dashboard shows p99 creeping up after the index change.
Let's split the report into a summary for people and the raw figures.
I read a great book about pottery and want to take a class.
The camping trip was amazing and the kids loved the campfire stories.
Please review the pull request that adds the partial index on unread rows.
The embedding queue drained overnight with no failures.
We should archive the old threads instead of deleting anything.
My dog keeps barking at the mail carrier every single morning.
The vector search recall dropped after we changed the quantization.
I finally finished the marathon and my knees are still sore.
Remember that the adoption agency interview is next Tuesday.
The config loader now reads every setting through one schema.
I'm so proud of you for going back to school at your age.
The cache hit rate went from 62% to 91% after the warm-up job.
We hired two new people for the research team this month.
Thanks for covering my shift while I was at the hospital.
The invoices from the vendor are off by a few cents each month.
Did you see the sunset at the beach last night?
I spent the weekend fixing the bike and then rode it to the lake.
The model keeps answering in French when the prompt mentions Paris.
Our rollback plan is to restore last night's backup and replay the log.
She told me the violin lessons are the best part of her week.
The build broke because someone pinned an old version of the compiler.
We went hiking in the mountains and saw a family of deer.
Let me know when the new dashboard is ready to share with the team.
The support group helped me feel accepted for who I am.
I baked cookies with my grandmother's recipe for the school fair.
`;
