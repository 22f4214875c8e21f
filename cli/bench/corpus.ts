import { readFileSync } from 'node:fs';
import { BrainError, readLocomo, type LocomoConversation } from '../../src/index.js';
import { createChatText } from './chat-text.js';
import { createTextGenerator, type Corpus, type TextGenerator } from './text.js';

/** Split a turn into sentences ("Wow! That's great." → two). */
export function splitSentences(text: string): string[] {
  return text
    .replace(/\s+/g, ' ')
    .split(/(?<=[.!?])\s+(?=[A-Z"'(])/)
    .map((s) => s.trim())
    .filter((s) => s.length >= 3);
}

/** The sentences, speakers and questions of a LoCoMo file, read as `brain eval locomo` reads it. */
export async function parseLocomo(doc: unknown, source: string): Promise<Corpus> {
  let conversations: LocomoConversation[];
  try {
    conversations = await readLocomo(doc);
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
export async function readCorpus(path: string): Promise<Corpus> {
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
 * The benchmark's text: from a LoCoMo file when one is given (which must exist), else the
 * generated chat, which needs no file and is the same wherever `brain bench` runs.
 */
export async function benchText(corpusFile: string | undefined, seed = 1): Promise<TextGenerator> {
  return corpusFile === undefined
    ? createChatText(seed)
    : createTextGenerator(await readCorpus(corpusFile), seed);
}
