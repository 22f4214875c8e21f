import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { z } from 'zod';
import { BrainError, formatZodError, openBrain } from '../../src/index.js';
import { buildBrain } from '../bench/build.js';
import { parseLocomo } from '../bench/corpus.js';
import { createChatText } from '../bench/chat-text.js';
import { createTextGenerator, type TextGenerator } from '../bench/text.js';

const whole = (min: number, max: number) => {
  const message = `must be a whole number from ${min} to ${max.toLocaleString('en-US')}`;
  return z
    .string()
    .transform((s) => s.trim().replace(/[_,]/g, ''))
    .refine((s) => /^\d+$/.test(s), message)
    .transform(Number)
    .refine((v) => v >= min && v <= max, message);
};
const path = z.string().refine((s) => s.trim().length > 0, 'must not be empty');

const haystackOptions = z.strictObject({
  haystack: whole(100, 10_000_000).optional(),
  haystackCorpus: path.optional(),
  haystackFile: path.optional(),
  wordsOnly: z.boolean().default(false),
});
const NAMES = {
  haystack: '--haystack',
  haystackCorpus: '--haystack-corpus',
  haystackFile: '--haystack-file',
  wordsOnly: '--words-only',
};

export type HaystackOptions = z.output<typeof haystackOptions>;

/** The haystack options of `brain eval locomo`, checked. */
export function parseHaystackOptions(raw: Record<string, unknown>): HaystackOptions {
  const parsed = haystackOptions.safeParse(raw);
  if (!parsed.success) throw new BrainError('INVALID_INPUT', formatZodError(parsed.error, NAMES));
  const o = parsed.data;
  if (o.haystack === undefined && (o.haystackCorpus !== undefined || o.haystackFile)) {
    const given = o.haystackCorpus !== undefined ? '--haystack-corpus' : '--haystack-file';
    throw new BrainError('INVALID_INPUT', `${given}: needs --haystack N`);
  }
  return o;
}

/** A conversation's identity across files: its sample id, else its first turn's text. */
function identity(sample: unknown): string {
  const s = sample as { sample_id?: unknown; conversation?: Record<string, unknown> };
  if (typeof s.sample_id === 'string') return `id:${s.sample_id}`;
  const first = (s.conversation?.session_1 as Array<{ text?: string }> | undefined)?.[0]?.text;
  return `text:${first ?? JSON.stringify(s).slice(0, 200)}`;
}

/**
 * The haystack's text: the bench's generated chat, or the conversations of a LoCoMo-style file
 * other than those under test (same sample id, or same first turn).
 */
export async function haystackText(
  corpusFile: string | undefined,
  underTest: unknown,
): Promise<TextGenerator> {
  if (corpusFile === undefined) return createChatText(1);
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(corpusFile, 'utf8'));
  } catch (err) {
    throw new BrainError(
      'INVALID_INPUT',
      `--haystack-corpus: cannot read ${corpusFile} as JSON: ${(err as Error).message}`,
    );
  }
  if (!Array.isArray(doc)) {
    throw new BrainError('INVALID_INPUT', `--haystack-corpus: ${corpusFile} is not a LoCoMo file`);
  }
  const tested = new Set((Array.isArray(underTest) ? underTest : []).map(identity));
  const others = doc.filter((c) => !tested.has(identity(c)));
  if (others.length === 0) {
    throw new BrainError(
      'INVALID_INPUT',
      `--haystack-corpus: every conversation of ${corpusFile} is under test; give other ones`,
    );
  }
  return createTextGenerator(await parseLocomo(others, corpusFile));
}

/**
 * A brain file holding `n` messages of other text, built once and closed (checkpointed, no WAL
 * left) so each conversation can copy it. Kept at `file` when given, and reused when it is there.
 * It is warmed as a brain in use is: the first long-running process on a brain (`brain mcp`,
 * `brain agent`) keeps every word's row count and the commonest words' score classes in it, so
 * the copies' first searches cost what a user's do, not what the first search of a brain never
 * served does.
 */
export async function prepareHaystack(
  options: { n: number; corpus?: string; file: string; underTest: unknown },
  progress: (line: string) => void,
): Promise<{ path: string; built: boolean }> {
  if (existsSync(options.file)) {
    // Opened once: migrated to this version, its WAL checkpointed away on close.
    await warmHaystack(options.file, progress);
    progress(`haystack: reusing ${options.file}`);
    return { path: options.file, built: false };
  }
  const text = await haystackText(options.corpus, options.underTest);
  const partial = `${options.file}.building`;
  rmSync(partial, { force: true });
  const brain = await openBrain({ dbPath: partial, cacheMiB: 256 });
  try {
    await buildBrain(brain, {
      messages: options.n,
      text,
      onProgress: (done, total) => progress(`haystack: ${done}/${total} messages`),
    });
  } finally {
    brain.close();
  }
  renameSync(partial, options.file);
  await warmHaystack(options.file, progress);
  return { path: options.file, built: true };
}

/** What a brain's first long-running process keeps in it (a no-op once kept, in its epoch). */
async function warmHaystack(file: string, progress: (line: string) => void): Promise<void> {
  const brain = await openBrain({ dbPath: file });
  try {
    progress('haystack: keeping its word counts, as a long-running process does');
    brain.search.warmSearch();
  } finally {
    brain.close();
  }
}
