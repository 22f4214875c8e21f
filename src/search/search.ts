// Search: by words (the ranking route of rank.ts), by meaning (vector.ts), and both fused by
// reciprocal rank, over messages, STM and atoms. Every search checks its input (input.ts) first.
import { millisOf } from '../clock.js';
import type { BrainContext } from '../context.js';
import type { Embedder } from '../embed/embedder.js';
import { check } from '../input/check.js';
import { searchInput, type SearchInput } from './input.js';

export { MAX_QUERY_CHARS, searchInput, type SearchInput } from './input.js';
import { messageKey, threadIdSql } from '../ids.js';
import { getAtomsByRowIds, type AtomRecord } from '../knowledge/atom-rows.js';
import { noteAccess } from '../knowledge/access-counts.js';
import { getStmByRowIds, type StmRecord } from '../knowledge/stm-rows.js';
import { agentRowId, threadRowId } from '../messaging/row-ids.js';
import {
  MESSAGE_SELECT,
  excerpt,
  toMessageRecord,
  type MessageRecord,
  type MessageRow,
} from '../messaging/message-rows.js';
import { recordsByRowIds } from '../db/rows-by-id.js';
import type { SearchType } from '../vocabulary.js';
import { readSpace } from '../embed/store.js';
import { buildFtsQueries, type FtsQueries } from './fts-query.js';
import { ftsRetrieve, type Candidate, type WordsHeld } from './fts.js';
import type { SearchFilters } from './rank.js';
import {
  NAMED_AGENT_BOOST,
  fuseRankings,
  type Fused,
  type Retriever,
  type RetrieverEvidence,
} from './fusion.js';
import { ftsSnippets } from './snippets.js';
import { attachmentMatches } from './attachment-hits.js';
import { vectorRetrieve } from './vector.js';
import { readTime, type TimeReading } from './time-words.js';
import { fieldShares, type FieldShares } from './explain.js';

/** A search's input once checked: defaults applied, times normalised to ISO 8601 with ms. */
export interface SearchArgs {
  query: string;
  types: SearchType[];
  limit: number;
  since?: string | undefined;
  until?: string | undefined;
  thread?: string | undefined;
  exclude_thread?: string | undefined;
  exclude_archived?: boolean | undefined;
  agent?: string | undefined;
}

export type { Retriever, RetrieverEvidence } from './fusion.js';

export interface SearchHit {
  type: SearchType;
  id: string;
  title: string;
  snippet: string;
  time: string;
  thread_id: string | null;
  agent: string;
  score: number;
  /** Which retrievers found it, with its rank, its raw score and its part of `score` in each. */
  found_by: Partial<Record<Retriever, RetrieverEvidence>>;
  /** The factor its score was multiplied by because the query names its agent; absent when none. */
  boost?: number;
  /** Under `explain`, each field's share of a message's BM25 (explain.ts). */
  fields?: FieldShares;
  /** An STM entry's or atom's event time, when known (`time` is when it was learned). */
  occurred_at?: string;
  /**
   * Under a time filter, which of a knowledge hit's times fell in the window: its event time
   * (`occurred`) or its record time (`recorded`).
   */
  matched_time?: 'occurred' | 'recorded';
  /** A message found by words of a file it carries: that file's name. */
  attachment?: string;
  /** The whole row (its type's record), when the search was asked for records. */
  record?: MessageRecord | StmRecord | AtomRecord;
}

/** What a search's hits carry besides their fields. */
export interface HitOptions {
  /**
   * Each hit's snippet marks the query's words in its text (default); false: the text's start, for
   * callers that show the whole text anyway, which spares a search its costliest step but one.
   */
  snippets?: boolean;
  /** Each hit carries its whole row as `record` (default false). */
  records?: boolean;
  /**
   * Each hit says what its score is made of (default false): its score by words in parts
   * (`found_by.fts.parts`: BM25, context, word coverage) and each field's share of its BM25
   * (`fields`, messages only).
   */
  explain?: boolean;
}

export interface SearchResult {
  hits: SearchHit[];
  /** Things the caller should know, e.g. that the query had no searchable words. */
  notices: string[];
  /** The retrievers that ran: `fts`, and `vector` when the brain has vectors and the query was embedded. */
  retrievers: Retriever[];
  /** How a time expression in the query was read, when it had one. */
  time?: TimeReading;
}

/** What every search needs once its input is checked: filters resolved to row ids. */
interface PreparedSearch {
  args: SearchArgs;
  queries: FtsQueries;
  filters: SearchFilters;
  /** Agents the query names: what they said ranks higher. */
  named: Set<number>;
}

/**
 * A period the query points at ("in July", "last Tuesday"): what falls in it ranks higher and
 * nothing else is left out. People tell of an event days after it happened, and questions name
 * an event's time, not the message's, so a hard filter by the time said loses what was said of it
 * later (bench/RESULTS.md); an explicit since/until still filters.
 */
export interface TimePreference {
  since_ms: number | null;
  until_ms: number | null;
}

/**
 * What the extra lists of a search weigh in the fusion, and how far after a period a message
 * still tells of it. Chosen by leave-one-conversation-out cross-validation on the dev set
 * (bench/rank-cv.ts, bench/RESULTS.md).
 */
export const RANK_PREFERENCES = {
  /** The words' list restricted to the period the query names. */
  time: 1,
  /** Days after the period a message still counts as in it. */
  timeSlackDays: 7,
  /** The words' list restricted to the conversations of the people the query names. */
  people: 1,
  /**
   * The vectors' list restricted to the period the query names, as a share of the vectors' own
   * weight (hybrid search only).
   */
  timeVector: 0.5,
};

function prepare(ctx: BrainContext, args: SearchArgs): PreparedSearch | SearchResult {
  const queries = buildFtsQueries(args.query);
  if (!queries)
    return { hits: [], notices: ['the query has no words to search for'], retrievers: [] };

  const filters: SearchFilters = {
    since: args.since ?? null,
    until: args.until ?? null,
    since_ms: args.since === undefined ? null : millisOf(args.since),
    until_ms: args.until === undefined ? null : millisOf(args.until),
    thread: null,
    exclude_thread: null,
    agent: null,
    within_threads: null,
    exclude_archived: args.exclude_archived === true ? 1 : null,
    now_ms: ctx.clock().getTime(),
  };
  if (args.thread) {
    const thread = threadRowId(ctx, args.thread);
    if (thread === undefined)
      return { hits: [], notices: [`no thread ${args.thread}`], retrievers: [] };
    filters.thread = thread;
  }
  // A thread that does not exist has no messages to leave out.
  if (args.exclude_thread) filters.exclude_thread = threadRowId(ctx, args.exclude_thread) ?? null;
  if (args.agent) {
    const id = agentRowId(ctx, args.agent);
    if (id === undefined) return { hits: [], notices: [`no agent ${args.agent}`], retrievers: [] };
    filters.agent = id;
  }
  return { args, queries, filters, named: namedAgents(ctx, args.query) };
}

/** Row ids of agents whose name the query contains as a word ("what did helios say …"). */
function namedAgents(ctx: BrainContext, query: string): Set<number> {
  const text = query.normalize('NFKC').toLowerCase();
  const named = new Set<number>();
  for (const a of ctx.q
    .get<[], { id: number; name: string }>(`SELECT id, name FROM agents`)
    .all()) {
    const name = a.name.toLowerCase();
    let at = text.indexOf(name);
    while (at >= 0) {
      const before = text[at - 1];
      const after = text[at + name.length];
      if (!isWordChar(before) && !isWordChar(after)) {
        named.add(a.id);
        break;
      }
      at = text.indexOf(name, at + 1);
    }
  }
  return named;
}

function isWordChar(c: string | undefined): boolean {
  return c !== undefined && /[\p{L}\p{N}]/u.test(c);
}

/** Which of the given rows the given agents wrote, per type: one statement for a whole list. */
const SAID_BY: Record<SearchType, string> = {
  message: `SELECT id FROM messages WHERE id IN (SELECT value FROM json_each(@ids))
    AND from_agent IN (SELECT value FROM json_each(@agents))`,
  stm: `SELECT id FROM stm WHERE id IN (SELECT value FROM json_each(@ids))
    AND agent_id IN (SELECT value FROM json_each(@agents))`,
  atom: `SELECT id FROM atoms WHERE id IN (SELECT value FROM json_each(@ids))
    AND agent_id IN (SELECT value FROM json_each(@agents))`,
};

/** The candidates of the lists that the agents wrote, as `type:rowid` keys. */
function saidBy(
  ctx: BrainContext,
  lists: Partial<Record<Retriever, Candidate[]>>,
  agents: Set<number>,
): Set<string> {
  const byType = new Map<SearchType, Set<number>>();
  for (const list of Object.values(lists)) {
    for (const c of list) {
      let ids = byType.get(c.type);
      if (!ids) byType.set(c.type, (ids = new Set()));
      ids.add(c.rowid);
    }
  }
  const said = new Set<string>();
  const params = { agents: JSON.stringify([...agents]) };
  for (const [type, ids] of byType) {
    for (const id of ctx.q
      .get<[{ ids: string; agents: string }], number>(SAID_BY[type])
      .pluck()
      .all({ ...params, ids: JSON.stringify([...ids]) })) {
      said.add(`${type}:${id}`);
    }
  }
  return said;
}

/**
 * When the words' list alone is shown, in its order (no agent named to lift a hit), only its first
 * `limit` matter: STM entries and atoms, which nothing re-scores, need not be ranked deeper.
 */
function shownOnly(prepared: PreparedSearch): { shown?: number } {
  return prepared.named.size === 0 ? { shown: prepared.args.limit } : {};
}

/** Fuse ranked lists, then lift what the agents named in the query said. */
function rank(
  ctx: BrainContext,
  lists: Partial<Record<Retriever, Candidate[]>>,
  prepared: PreparedSearch,
  weights?: Partial<Record<Retriever, number>>,
): Fused[] {
  const { named, args } = prepared;
  const said = named.size === 0 ? undefined : saidBy(ctx, lists, named);
  const boost = said
    ? (hit: Fused) => (said.has(`${hit.type}:${hit.rowid}`) ? NAMED_AGENT_BOOST : 1)
    : undefined;
  return fuseRankings(lists, args.limit, { weights, boost });
}

function finish(
  ctx: BrainContext,
  prepared: PreparedSearch,
  fused: Fused[],
  notices: string[],
  retrievers: Retriever[],
  options: HitOptions = {},
  prefer?: TimePreference,
): SearchResult {
  const hits = hydrate(ctx, fused, prepared.queries, options, prefer ?? prepared.filters);
  noteAccess(
    ctx,
    fused.filter((c) => c.type === 'stm').map((c) => c.rowid),
  );
  return { hits, notices, retrievers };
}

/** One search over messages, STM and atoms by words (FTS5), of checked input. */
export function runSearch(ctx: BrainContext, args: SearchArgs): SearchResult {
  const prepared = prepare(ctx, args);
  if (!('queries' in prepared)) return prepared;
  const words = byWords(ctx, prepared, undefined, Math.max(args.limit, FUSION_DEPTH), false);
  const fused = rank(ctx, words.lists, prepared, words.weights);
  return finish(ctx, prepared, fused, [], words.names);
}

/** Ranked lists to fuse, their weights in the fusion, and their names in the order they ran. */
interface Lists {
  lists: Partial<Record<Retriever, Candidate[]>>;
  weights: Partial<Record<Retriever, number>>;
  names: Retriever[];
}

/**
 * The words' lists of a search: the whole ranking, and those of what the query prefers
 * (`preferred`), their words read once for all of them. `fused`: other lists join them, so the
 * whole ranking cannot be cut to the hits shown.
 */
function byWords(
  ctx: BrainContext,
  prepared: PreparedSearch,
  prefer: TimePreference | undefined,
  depth: number,
  fused: boolean,
): Lists {
  const { queries, args, filters } = prepared;
  const held: WordsHeld = new Map();
  const extra = preferred(ctx, prepared, prefer, depth, held);
  const fts = ftsRetrieve(ctx, queries, args.types, filters, depth, {
    ...(fused || extra.names.length > 0 ? {} : shownOnly(prepared)),
    held,
  });
  return {
    lists: { fts, ...extra.lists },
    weights: { ...extra.weights },
    names: ['fts', ...extra.names],
  };
}

export type SearchMode = 'hybrid' | 'fts' | 'vector';

export interface HybridOptions extends HitOptions {
  /** `hybrid` (default) fuses words and vectors; the others run one retriever (for evaluation). */
  mode?: SearchMode;
  /** How long to wait for the query's vector before answering from words alone. */
  queryTimeoutMs?: number;
  /** How many candidates each retriever proposes to the fusion (at least the limit). */
  depth?: number;
  /** A period whose items rank higher, none left out (what a time said in the query names). */
  prefer?: TimePreference;
  /**
   * Read a time expression in the query ("last Tuesday") as a time filter, in this zone (the
   * system's when undefined); false leaves every word a word. Explicit since/until win.
   */
  timeWords?:
    | {
        timeZone?: string | undefined;
        /** The moment "yesterday" is read from; default the brain's clock. */
        now?: Date;
      }
    | false;
}

/**
 * Candidates each retriever hands to the fusion (vectors cost more per candidate). The words'
 * depth also bounds which messages gain from their context: 100 was chosen by every fold of the
 * cross-validation on the dev set, words only (bench/HISTORY.md).
 */
export const FUSION_DEPTH = 100;
export const VECTOR_DEPTH = 50;

/**
 * Search by words and by meaning: FTS5 and vector k-NN with the same filters, fused by reciprocal
 * rank. Answers from words alone, with a notice, when the brain has no vectors yet, when they are of
 * another model, or when the query cannot be embedded in time; never waits on the queue.
 */
export async function runSearchHybrid(
  ctx: BrainContext,
  embedder: Embedder | undefined,
  args: SearchArgs,
  options: HybridOptions = {},
): Promise<SearchResult> {
  const prepared = prepare(ctx, args);
  if (!('queries' in prepared)) return prepared;
  const { filters } = prepared;
  const mode = options.mode ?? 'hybrid';
  const depth = Math.max(args.limit, options.depth ?? FUSION_DEPTH);
  // More candidates than asked for, so the named-agent boost can lift one from below the cut.
  const vectorDepth = Math.max(args.limit, options.depth ?? VECTOR_DEPTH);
  const notices: string[] = [];

  const query =
    mode === 'fts'
      ? ({ none: true } as const)
      : await embedQuery(ctx, embedder, args.query, options.queryTimeoutMs ?? 2_000);
  if ('notice' in query) notices.push(query.notice);
  const vector =
    'vector' in query
      ? vectorRetrieve(ctx, query.vector, args.types, filters, vectorDepth)
      : undefined;

  if (mode === 'vector') {
    const hits = rank(ctx, { vector: vector ?? [] }, prepared);
    return finish(ctx, prepared, hits, notices, vector ? ['vector'] : [], options);
  }
  const { lists, weights, names } = byWords(ctx, prepared, options.prefer, depth, !!vector);
  if (mode !== 'fts' && vector && 'vector' in query) {
    lists.vector = vector;
    weights.vector = embedder?.searchWeight ?? 1;
    names.push('vector');
    // The meaning's list restricted to the period the query names, as the words' has its own.
    if (options.prefer && RANK_PREFERENCES.timeVector > 0) {
      const window = preferredWindow(filters, options.prefer);
      lists.time_vector = vectorRetrieve(ctx, query.vector, args.types, window, vectorDepth);
      weights.time_vector = RANK_PREFERENCES.timeVector * weights.vector;
      names.push('time_vector');
    }
  }
  const fused = rank(ctx, lists, prepared, weights);
  return finish(ctx, prepared, fused, notices, names, options, options.prefer);
}

/**
 * How many messages the conversations of the people a query names may hold for their own list to
 * be ranked. One who talks in most threads gains little from a list of their own, where the
 * named-agent boost still lifts what they said.
 */
export const PEOPLE_MESSAGES = 20_000;

/**
 * The threads the agents wrote in, as a JSON array of their row ids, when those hold few messages
 * and at most half the brain's (where they are most of it, their list would be the words' list
 * again); undefined otherwise.
 */
function conversationsOf(ctx: BrainContext, agents: Set<number>): string | undefined {
  const named = JSON.stringify([...agents]);
  const { sent, total } = ctx.q
    .get<[string], { sent: number; total: number }>(
      `SELECT coalesce(sum(sent) FILTER (WHERE agent_id IN (SELECT value FROM json_each(?))), 0)
                AS sent,
              coalesce(sum(sent), 0) AS total
       FROM agent_counts`,
    )
    .get(named)!;
  if (sent > PEOPLE_MESSAGES || 2 * sent > total) return undefined;
  const threads = ctx.q
    .get<[string], number>(
      `SELECT DISTINCT thread_id FROM messages
       WHERE from_agent IN (SELECT value FROM json_each(?))`,
    )
    .pluck()
    .all(named);
  // An agent that only ever received has no conversation of its own to prefer.
  if (threads.length === 0) return undefined;
  const within = JSON.stringify(threads);
  const held = ctx.q
    .get<[string], number>(
      `SELECT coalesce(sum(message_count), 0) FROM threads
       WHERE id IN (SELECT value FROM json_each(?))`,
    )
    .pluck()
    .get(within)!;
  return held <= PEOPLE_MESSAGES && 2 * held <= total ? within : undefined;
}

/**
 * The words' lists of what the query prefers, each the exact top k of its own filter (so the fused
 * ranking lifts what they hold without a cut that could lose it): the period the query names, and
 * the conversations of the people it names (the threads they wrote in).
 */
function preferred(
  ctx: BrainContext,
  prepared: PreparedSearch,
  prefer: TimePreference | undefined,
  depth: number,
  held: WordsHeld,
): Lists {
  const { queries, filters, args, named } = prepared;
  const lists: Partial<Record<Retriever, Candidate[]>> = {};
  const weights: Partial<Record<Retriever, number>> = {};
  if (prefer && RANK_PREFERENCES.time > 0) {
    const window = preferredWindow(filters, prefer);
    lists.time = ftsRetrieve(ctx, queries, args.types, window, depth, { held });
    weights.time = RANK_PREFERENCES.time;
  }
  const within =
    named.size > 0 && RANK_PREFERENCES.people > 0 && args.types.includes('message')
      ? conversationsOf(ctx, named)
      : undefined;
  if (within !== undefined) {
    const people = { ...filters, within_threads: within };
    lists.people = ftsRetrieve(ctx, queries, ['message'], people, depth, { held });
    weights.people = RANK_PREFERENCES.people;
  }
  return { lists, weights, names: Object.keys(lists) as Retriever[] };
}

/** The filters of a search narrowed to the period it prefers, and the days after it. */
function preferredWindow(filters: SearchFilters, prefer: TimePreference): SearchFilters {
  const slack = RANK_PREFERENCES.timeSlackDays * 86_400_000;
  const window: SearchFilters = {
    ...filters,
    since_ms: prefer.since_ms,
    until_ms: prefer.until_ms === null ? null : prefer.until_ms + slack,
  };
  window.since = window.since_ms === null ? null : new Date(window.since_ms).toISOString();
  window.until = window.until_ms === null ? null : new Date(window.until_ms).toISOString();
  return window;
}

type QueryVector = { vector: Float32Array } | { notice: string } | { none: true };

/** The query's vector in the brain's space, or why there is none. */
async function embedQuery(
  ctx: BrainContext,
  embedder: Embedder | undefined,
  text: string,
  timeoutMs: number,
): Promise<QueryVector> {
  if (!embedder) return { none: true };
  const space = readSpace(ctx);
  if (!space) return { none: true }; // nothing embedded yet: words only, nothing to say
  if (space.model !== embedder.model) {
    return {
      notice: `vectors in this brain are from ${space.model}, not ${embedder.model}: searched by words only (run brain embed to re-embed)`,
    };
  }
  try {
    // The signal stops an HTTP call; the race also bounds embedders that cannot be interrupted
    // (an in-process model loading or computing).
    const signal = AbortSignal.timeout(timeoutMs);
    const [vector] = await Promise.race([
      embedder.embed([text], 'query', { signal }),
      new Promise<never>((_resolve, reject) =>
        signal.addEventListener('abort', () =>
          reject(new Error(`the query was not embedded within ${timeoutMs / 1000} s`)),
        ),
      ),
    ]);
    if (!vector || vector.length !== space.dimension) {
      return {
        notice: `the query vector has dimension ${vector?.length ?? 0}, not ${space.dimension}: searched by words only`,
      };
    }
    return { vector };
  } catch (err) {
    return { notice: `searched by words only: ${(err as Error).message}` };
  }
}

function hydrate(
  ctx: BrainContext,
  candidates: Fused[],
  queries: FtsQueries,
  options: HitOptions,
  window: TimePreference,
): SearchHit[] {
  const byType = (t: SearchType) => candidates.filter((c) => c.type === t).map((c) => c.rowid);
  const stm = getStmByRowIds(ctx, byType('stm'));
  const atoms = getAtomsByRowIds(ctx, byType('atom'));
  const marked = (t: SearchType) =>
    options.snippets === false
      ? new Map<number, string>()
      : ftsSnippets(ctx, t, queries, byType(t));
  const snippets = { message: marked('message'), stm: marked('stm'), atom: marked('atom') };
  const fromFiles = attachmentMatches(ctx, queries, byType('message'));
  const withRecord = <T>(record: T) => (options.records ? { record } : {});
  const messages = recordsByRowIds<MessageRow, MessageRecord>(
    ctx,
    MESSAGE_SELECT,
    'm',
    byType('message'),
    toMessageRecord,
  );
  // The thread of each knowledge hit's source message, in one statement.
  const sourceUids = [...stm.values(), ...atoms.values()].flatMap((k) =>
    k.source_message_id ? [messageKey(k.source_message_id)!] : [],
  );
  const threadBySource = new Map(
    sourceUids.length === 0
      ? []
      : ctx.q
          .get<[string], { source: number; uid: string }>(
            `SELECT m.uid AS source, ${threadIdSql('t.uid')} AS uid
             FROM messages m JOIN threads t ON t.id = m.thread_id
             WHERE m.uid IN (SELECT value FROM json_each(?))`,
          )
          .all(JSON.stringify(sourceUids))
          .map((r) => [r.source, r.uid]),
  );
  const threadOfSource = (id: string | null): string | null =>
    id ? (threadBySource.get(messageKey(id)!) ?? null) : null;
  const when = eventTime(window);
  const fields = options.explain
    ? fieldShares(ctx, byType('message'), queries.terms)
    : new Map<number, FieldShares>();
  const hits: SearchHit[] = [];
  for (const c of candidates) {
    const found_by = options.explain ? c.found_by : withoutParts(c.found_by);
    const shares = fields.get(c.rowid);
    const snippet = snippets[c.type].get(c.rowid);
    if (c.type === 'message') {
      const m = messages.get(c.rowid);
      if (!m) continue;
      const file = fromFiles.get(c.rowid);
      hits.push({
        type: 'message',
        id: m.id,
        title: m.subject,
        snippet: file?.snippet ?? snippet ?? excerpt(m.body, 160),
        time: m.created_at,
        thread_id: m.thread_id,
        agent: m.from,
        score: c.score,
        found_by,
        ...(c.boost === undefined ? {} : { boost: c.boost }),
        ...(shares ? { fields: shares } : {}),
        ...(file ? { attachment: file.name } : {}),
        ...withRecord(m),
      });
    } else if (c.type === 'stm') {
      const s = stm.get(c.rowid);
      if (!s) continue;
      hits.push({
        type: 'stm',
        id: s.id,
        title: excerpt(s.content),
        snippet: snippet ?? excerpt(s.content, 160),
        time: s.created_at,
        thread_id: threadOfSource(s.source_message_id),
        agent: s.agent,
        score: c.score,
        found_by,
        ...(c.boost === undefined ? {} : { boost: c.boost }),
        ...when(s.occurred_at, s.created_at),
        ...withRecord(s),
      });
    } else {
      const a = atoms.get(c.rowid);
      if (!a) continue;
      hits.push({
        type: 'atom',
        id: a.id,
        title: a.subject,
        snippet: snippet ?? `${a.action} → ${a.outcome}`,
        time: a.created_at,
        thread_id: threadOfSource(a.source_message_id),
        agent: a.agent,
        score: c.score,
        found_by,
        ...(c.boost === undefined ? {} : { boost: c.boost }),
        ...when(a.occurred_at, a.created_at),
        ...withRecord(a),
      });
    }
  }
  return hits;
}

/** The evidence without its score's parts, which only an explanation shows. */
function withoutParts(found: Fused['found_by']): Fused['found_by'] {
  const out: Fused['found_by'] = {};
  for (const [name, e] of Object.entries(found) as Array<[Retriever, RetrieverEvidence]>) {
    if (e.parts === undefined) out[name] = e;
    else {
      const { parts: _parts, ...rest } = e;
      out[name] = rest;
    }
  }
  return out;
}

/**
 * A knowledge hit's event time and, under a time filter or preference, which of its times fell in
 * the window: its event time (`occurred`) or its record time (`recorded`); under a preference,
 * neither says nothing.
 */
function eventTime(
  window: TimePreference,
): (occurred: string | null, recorded: string) => Pick<SearchHit, 'occurred_at' | 'matched_time'> {
  const windowed = window.since_ms !== null || window.until_ms !== null;
  const inside = (ms: number) =>
    (window.since_ms === null || ms >= window.since_ms) &&
    (window.until_ms === null || ms < window.until_ms);
  return (occurred, recorded) => {
    const at = occurred === null ? {} : { occurred_at: occurred };
    if (!windowed) return at;
    if (occurred !== null && inside(millisOf(occurred))) return { ...at, matched_time: 'occurred' };
    return inside(millisOf(recorded)) ? { ...at, matched_time: 'recorded' } : at;
  };
}

/** One search over messages, STM and atoms by words (FTS5). Never fails on the text of the query. */
export function search(ctx: BrainContext, input: SearchInput): SearchResult {
  return runSearch(ctx, check(searchInput, input));
}

/**
 * Search by words and by meaning: FTS5 and vector k-NN with the same filters, fused by reciprocal
 * rank (see runSearchHybrid).
 */
export async function searchHybrid(
  ctx: BrainContext,
  embedder: Embedder | undefined,
  input: SearchInput,
  options: HybridOptions = {},
): Promise<SearchResult> {
  const args = check(searchInput, input);
  const time = await readQueryTime(ctx, args, options);
  if (!time) return runSearchHybrid(ctx, embedder, args, options);
  const result = await runSearchHybrid(ctx, embedder, time.args, {
    ...options,
    prefer: time.prefer,
  });
  return { ...result, time: time.reading, notices: [time.notice, ...result.notices] };
}

/**
 * The query with its time expression read as the period it prefers, when it has one and no
 * since/until is given.
 */
async function readQueryTime(
  ctx: BrainContext,
  args: SearchArgs,
  options: HybridOptions,
): Promise<
  { args: SearchArgs; prefer: TimePreference; reading: TimeReading; notice: string } | undefined
> {
  if (options.timeWords === false || args.since !== undefined || args.until !== undefined) return;
  const reading = await readTime(args.query, {
    now: options.timeWords?.now ?? ctx.clock(),
    timeZone: options.timeWords?.timeZone,
  });
  // A query that is a time and nothing else keeps its words: there is nothing else to search by.
  if (!reading || buildFtsQueries(reading.query) === undefined) return;
  const prefer: TimePreference = {
    since_ms: reading.since === undefined ? null : millisOf(reading.since),
    until_ms: reading.until === undefined ? null : millisOf(reading.until),
  };
  return {
    args: { ...args, query: reading.query },
    prefer,
    reading,
    notice: `read "${reading.text}" as ${reading.reading}: what was said then or in the ${RANK_PREFERENCES.timeSlackDays} days after ranks first`,
  };
}
