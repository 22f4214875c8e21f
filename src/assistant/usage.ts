import { z } from 'zod';
import { isoNow, isoOfMillis, millisOf } from '../clock.js';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { messageKey } from '../ids.js';
import { isoTime, messageId, parseInput, text } from '../validation.js';
import { USAGE_GROUPS } from './vocabulary.js';

const tokens = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

const recordInput = z.strictObject({
  /** What made the call: chat, channel, heartbeat, cron, compaction, or another word. */
  source: text(64).min(1, 'must not be empty'),
  session: text(200).optional(),
  model: text(200).min(1, 'must not be empty'),
  /** The pool's name for the endpoint, e.g. `anthropic:claude-sonnet-4-5@0`. */
  endpoint: text(300).min(1, 'must not be empty'),
  input_tokens: tokens,
  output_tokens: tokens,
  cache_read_tokens: tokens.default(0),
  cache_write_tokens: tokens.default(0),
  /** The message the call produced or served, when there is one. */
  message_id: messageId.optional(),
  at: isoTime.optional(),
});
export type RecordUsageInput = z.input<typeof recordInput>;

export interface UsageRecord {
  at: string;
  source: string;
  session: string | null;
  model: string;
  endpoint: string;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  message_id: string | null;
}

/** Record one model call's tokens. */
export function recordUsage(ctx: BrainContext, input: RecordUsageInput): UsageRecord {
  const args = parseInput(recordInput, input);
  const at = args.at ?? isoNow(ctx.clock);
  ctx.db
    .transaction(() => {
      let message: number | null = null;
      if (args.message_id) {
        const row = ctx.q
          .get<[number], { id: number }>(`SELECT id FROM messages WHERE uid = ?`)
          .get(messageKey(args.message_id)!);
        if (!row) throw new BrainError('NOT_FOUND', `message_id: no message ${args.message_id}`);
        message = row.id;
      }
      ctx.q
        .get(
          `INSERT INTO model_usage (at, source, session, model, endpoint, input_tokens, output_tokens,
             cache_read_tokens, cache_write_tokens, message_id)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          millisOf(at),
          args.source,
          args.session ?? null,
          args.model,
          args.endpoint,
          args.input_tokens,
          args.output_tokens,
          args.cache_read_tokens,
          args.cache_write_tokens,
          message,
        );
    })
    .immediate();
  return {
    at,
    source: args.source,
    session: args.session ?? null,
    model: args.model,
    endpoint: args.endpoint,
    input_tokens: args.input_tokens,
    output_tokens: args.output_tokens,
    cache_read_tokens: args.cache_read_tokens,
    cache_write_tokens: args.cache_write_tokens,
    message_id: args.message_id ?? null,
  };
}

export type UsageGroup = (typeof USAGE_GROUPS)[number];

const usageInput = z.strictObject({
  since: isoTime.optional(),
  until: isoTime.optional(),
  by: z.enum(USAGE_GROUPS).default('model'),
  /** Only this session's calls (`/usage` in a conversation). */
  session: z.string().min(1).max(500).optional(),
});
export type UsageInput = z.input<typeof usageInput>;

export interface TokenSums {
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
}

/** One group's sums, and the same split by model and endpoint (what a price applies to). */
export interface UsageRow extends TokenSums {
  /** The model, the day (`YYYY-MM-DD`, UTC) or the source. */
  key: string;
  first_at: string;
  last_at: string;
  models: Array<TokenSums & { model: string; endpoint: string }>;
}

interface SumRow extends TokenSums {
  key: string;
  model: string;
  endpoint: string;
  first_at: number;
  last_at: number;
}

const KEY_SQL: Record<UsageGroup, string> = {
  model: 'model',
  day: `strftime('%Y-%m-%d', at / 1000, 'unixepoch')`,
  source: 'source',
};

/**
 * Token sums of the calls in [since, until), grouped by model, UTC day or source: days in time
 * order, the rest by name. Each group also splits by model and endpoint, so an adapter can price
 * it (prices are the assistant's to know, not the brain's).
 */
export function usageSummary(ctx: BrainContext, input: UsageInput = {}): UsageRow[] {
  const args = parseInput(usageInput, input);
  const rows = ctx.q
    .get<[Record<string, number | string | null>], SumRow>(
      // Three statements in the cache, one per grouping; the time range is a range of the index.
      `SELECT ${KEY_SQL[args.by]} AS key, model, endpoint, count(*) AS calls,
         sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
         sum(cache_read_tokens) AS cache_read_tokens, sum(cache_write_tokens) AS cache_write_tokens,
         min(at) AS first_at, max(at) AS last_at
       FROM model_usage WHERE at >= @since AND at < @until
         AND (@session IS NULL OR session = @session)
       GROUP BY 1, model, endpoint ORDER BY 1, model, endpoint`,
    )
    .all({
      since: args.since ? millisOf(args.since) : Number.MIN_SAFE_INTEGER,
      until: args.until ? millisOf(args.until) : Number.MAX_SAFE_INTEGER,
      session: args.session ?? null,
    });
  const groups = new Map<string, UsageRow>();
  for (const r of rows) {
    let group = groups.get(r.key);
    if (!group) {
      group = {
        key: r.key,
        calls: 0,
        input_tokens: 0,
        output_tokens: 0,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        first_at: isoOfMillis(r.first_at)!,
        last_at: isoOfMillis(r.last_at)!,
        models: [],
      };
      groups.set(r.key, group);
    }
    group.calls += r.calls;
    group.input_tokens += r.input_tokens;
    group.output_tokens += r.output_tokens;
    group.cache_read_tokens += r.cache_read_tokens;
    group.cache_write_tokens += r.cache_write_tokens;
    if (isoOfMillis(r.first_at)! < group.first_at) group.first_at = isoOfMillis(r.first_at)!;
    if (isoOfMillis(r.last_at)! > group.last_at) group.last_at = isoOfMillis(r.last_at)!;
    const { key: _key, first_at: _first, last_at: _last, ...sums } = r;
    group.models.push(sums);
  }
  return [...groups.values()];
}
