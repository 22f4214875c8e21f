import { z } from 'zod';
import { EXTRACT_CATEGORIES, formatZodError } from '../../src/index.js';

/** At most this many entries are taken from one turn: a runaway answer teaches no more. */
export const MAX_ENTRIES = 20;

const entrySchema = z.object({
  content: z.string().trim().min(1, 'must not be empty').max(1_000),
  category: z.enum(EXTRACT_CATEGORIES),
  importance: z.number().min(1).max(3),
  sources: z.array(z.string()).max(20).default([]),
  // Models write null for "no key" as often as they leave it out.
  key: z.string().trim().toLowerCase().max(200).nullish(),
});

const answerSchema = z.object({ entries: z.array(entrySchema).max(MAX_ENTRIES) });

export type AnswerEntry = z.output<typeof entrySchema>;

export type ParsedAnswer =
  | {
      ok: true;
      entries: AnswerEntry[];
      /** JSON had to be cut out of text around it. */ repaired: boolean;
    }
  | { ok: false; problem: string };

/**
 * The JSON texts an answer may hold, most likely first: the whole answer, what is inside a code
 * fence, and the span from the first brace (or bracket) to the last, for prose around the JSON.
 */
function candidates(text: string): string[] {
  const out = [text.trim()];
  for (const fence of text.matchAll(/```[a-zA-Z]*\s*\n?([\s\S]*?)```/g)) out.push(fence[1]!.trim());
  // The list first: in prose around `{"entries": [...]}` it is the entries themselves.
  for (const [open, close] of [
    ['[', ']'],
    ['{', '}'],
  ] as const) {
    const start = text.indexOf(open);
    const end = text.lastIndexOf(close);
    if (start >= 0 && end > start) out.push(text.slice(start, end + 1));
  }
  return [...new Set(out)].filter((c) => c.length > 0);
}

/**
 * The entries of a model's answer: JSON (alone, in a fence, or in prose), an object with
 * `entries` or a bare list of entries, every entry checked. Otherwise what is wrong with it, in
 * words that quote none of the answer (the problem is stored and logged; the answer is not).
 */
export function parseAnswer(text: string): ParsedAnswer {
  const texts = candidates(text);
  let problem: string | undefined;
  for (const [i, candidate] of texts.entries()) {
    let json: unknown;
    try {
      json = JSON.parse(candidate);
    } catch {
      // Not this span: the next candidate may be the JSON.
      continue;
    }
    const parsed = answerSchema.safeParse(Array.isArray(json) ? { entries: json } : json);
    if (parsed.success) return { ok: true, entries: parsed.data.entries, repaired: i > 0 };
    // The first JSON found is the one the model meant: its problem is the one to tell it.
    problem ??= `the JSON did not fit: ${formatZodError(parsed.error)}`;
  }
  return {
    ok: false,
    problem: problem ?? (texts.length === 0 ? 'the answer was empty' : 'the answer was not JSON'),
  };
}
