import { z } from 'zod';

/*
 * Output schemas of the records the brain returns. Every object of every tool's output schema is
 * loose (`z.looseObject`, `additionalProperties: {}`), never `z.object` or strict: clients that
 * list tools validate `structuredContent` against the schema, and a field the library adds later
 * (e.g. a hit's vector rank, search's `retrievers`) must not make every call fail there. Only the
 * key fields are declared (the rest travel as undeclared properties): every client pays for
 * tools/list in its context window.
 */

const nullableString = z.string().nullable();

export const messageRecord = z.looseObject({
  id: z.string(),
  thread_id: z.string(),
  from: z.string(),
  to: nullableString,
  subject: z.string(),
  body: z.string(),
  created_at: z.string(),
});

export const threadRecord = z.looseObject({
  id: z.string(),
  subject: z.string(),
  status: z.string(),
  message_count: z.number(),
});

export const stmRecord = z.looseObject({
  id: z.string(),
  agent: z.string(),
  content: z.string(),
  source_message_id: nullableString,
  created_at: z.string(),
});

export const atomRecord = z.looseObject({
  id: z.string(),
  agent: z.string(),
  subject: z.string(),
  source_message_id: nullableString,
  created_at: z.string(),
});

export const linkRecord = z.looseObject({
  from: z.string(),
  to: z.string(),
  type: z.string(),
  strength: z.number(),
});

export const searchHit = z.looseObject({
  type: z.string(),
  id: z.string(),
  title: z.string(),
  snippet: z.string(),
  time: z.string(),
  thread_id: nullableString,
  agent: z.string(),
  score: z.number(),
});

/** Any record, for places where the type varies (recent items, provenance knowledge). */
export const anyRecord = z.looseObject({ id: z.string() });
