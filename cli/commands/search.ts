import type { Command } from 'commander';
import type {
  Brain,
  Embedder,
  RetrieverEvidence,
  SearchHit,
  SearchResult,
} from '../../src/index.js';
import {
  bold,
  cyan,
  dim,
  formatMessage,
  note,
  oneLine,
  printJson,
  println,
  shortTime,
} from '../output.js';
import { list, withBrain, type CommandContext, type GlobalOptions } from '../run.js';
import { formatAtomLine, formatStm } from './knowledge.js';
import { createEmbedder, readTimeBound } from '../../src/index.js';

type Globals = () => GlobalOptions;

export function registerSearch(program: Command, globals: Globals): void {
  program
    .command('search')
    .description('search messages and knowledge together')
    .argument('<query>', 'words, as you would say them')
    // A query may start with '-' ("-x"): unknown options are words of the query, not usage errors.
    .allowUnknownOption()
    .option('--types <list>', 'comma-separated: message, stm, atom')
    .option('--limit <n>', 'at most this many hits', '20')
    .option('--since <date>', 'only from this date/time on (ISO 8601, or e.g. "last Tuesday")')
    .option(
      '--until <date>',
      'only up to this date/time (a bare date or "yesterday" includes the day)',
    )
    .option('--thread <id>', 'only in this thread')
    .option('--from <agent>', 'only by this agent')
    .option('--no-archived', 'leave out the messages of archived threads')
    .option('--explain', 'show which retriever found each hit, and its score parts')
    .action(async (query: string, opts: Record<string, string | boolean | undefined>) => {
      const str = (v: string | boolean | undefined) => (typeof v === 'string' ? v : undefined);
      const input = {
        query,
        types: list(str(opts.types)) as ['message'] | undefined,
        limit: str(opts.limit),
        since: str(opts.since),
        until: str(opts.until),
        thread: str(opts.thread),
        agent: str(opts.from),
        exclude_archived: opts.archived === false,
      };
      return withBrain(
        globals(),
        async (ctx) => {
          const when = { now: new Date(), timeZone: ctx.config.timeZone };
          if (input.since) input.since = await readTimeBound('since', input.since, when);
          if (input.until) input.until = await readTimeBound('until', input.until, when);
          return answer(ctx, opts, (options) => ctx.brain.search.searchHybrid(input, options));
        },
        ['search'],
      );
    });

  program
    .command('recent')
    .description('everything of the last N hours, newest first')
    .option('--hours <n>', 'how far back', '24')
    .option('--since <when>', 'from then on instead (ISO 8601, or e.g. "last Tuesday")')
    .option('--until <when>', 'up to then (a bare date or "yesterday" includes the day)')
    .option('--types <list>', 'comma-separated: message, stm, atom')
    .option('--limit <n>', 'at most this many', '50')
    .action(
      (opts: { hours: string; since?: string; until?: string; types?: string; limit: string }) =>
        withBrain(globals(), async ({ brain, json, config }) => {
          const when = { now: new Date(), timeZone: config.timeZone };
          const since = opts.since && (await readTimeBound('since', opts.since, when));
          const until = opts.until && (await readTimeBound('until', opts.until, when));
          const items = brain.search.recent({
            hours: opts.hours,
            types: list(opts.types) as ['message'] | undefined,
            limit: opts.limit,
            ...(since ? { since } : {}),
            ...(until ? { until } : {}),
          });
          if (json)
            return printJson({ items, ...(since ? { since } : {}), ...(until ? { until } : {}) });
          if (since || until) note(`from ${since ?? 'the start'} until ${until ?? 'now'}`);
          if (items.length === 0)
            return println(
              since || until ? 'nothing then' : `nothing in the last ${opts.hours} hours`,
            );
          for (const item of items) {
            if (item.type === 'message') println(formatMessage(item.record));
            else if (item.type === 'stm')
              println(`${dim(shortTime(item.time))} ${bold('memory')} ${formatStm(item.record)}`);
            else
              println(
                `${dim(shortTime(item.time))} ${bold('atom')} ${cyan(item.id)} ${formatAtomLine(item.record)}`,
              );
          }
        }),
    );
}

type Explain = Record<string, string | boolean | undefined>;
type RunSearch = (options: {
  embedder: Embedder | undefined;
  queryTimeoutMs: number;
  timeWords: { timeZone: string | undefined };
  explain: boolean;
}) => Promise<SearchResult>;

/** Embed the query if the brain has vectors, search, print. */
async function answer(
  { brain, config, json }: CommandContext<Brain<'search'>>,
  opts: Explain,
  search: RunSearch,
): Promise<void> {
  const embedder = await createEmbedder(config, { brain: brain.search, purpose: 'search' });
  // A one-shot process may first have to load an offline model.
  const result = await search({
    embedder,
    queryTimeoutMs: 10_000,
    timeWords: { timeZone: config.timeZone },
    explain: opts.explain === true,
  });
  if (json) return printJson(result);
  for (const n of result.notices) note(n);
  if (opts.explain) note(`retrievers: ${result.retrievers.join(' + ') || 'none'}`);
  if (result.hits.length === 0) return println('no hits');
  for (const h of result.hits) {
    println(
      `${dim(h.type.padEnd(7))} ${cyan(h.id)}  ${dim(shortTime(h.time))}  ${bold(oneLine(h.title, 60))} ${dim(`by ${h.agent}`)}${eventTime(h)}`,
    );
    const from = h.attachment ? `${dim(`in attachment ${h.attachment}:`)} ` : '';
    println(`        ${from}${oneLine(h.snippet, 160)}`);
    if (opts.explain) println(`        ${dim(explain(h))}`);
  }
}

/** A knowledge hit's event time, and whether the time filter matched it by that time. */
function eventTime(h: SearchHit): string {
  if (h.occurred_at === undefined) return '';
  const matched = h.matched_time === 'occurred' ? ', in the time asked' : '';
  return dim(` (happened ${shortTime(h.occurred_at)}${matched})`);
}

/**
 * "score 0.1276 = fts #1 (words 9.4: bm25 5.2 [body 70%, sender 30%] + context 2.2 + coverage 2)
 * 0.0909 + time #1 (words 9.4) 0.0909, × 2 (the query names nova)": each list's part of the fused
 * score, and what the words' score is made of.
 */
function explain(h: SearchHit): string {
  const parts = Object.entries(h.found_by).map(([name, e]) => {
    const raw =
      name === 'vector' ? `cosine ${e.score}` : `words ${short(e.score)}${wordParts(h, e)}`;
    return `${name} #${e.rank} (${raw})${e.part === undefined ? '' : ` ${e.part}`}`;
  });
  const boost = h.boost === undefined ? '' : `, × ${h.boost} (the query names ${h.agent})`;
  return `score ${h.score} = ${parts.join(' + ')}${boost}`;
}

/** ": bm25 5.2 [body 70%, sender 30%] + context 2.2 + coverage 2", the parts that are not 0. */
function wordParts(h: SearchHit, e: RetrieverEvidence): string {
  if (!e.parts) return '';
  // A message found only through its neighbours has no BM25 of its own to share out.
  const fields = Object.entries(short(e.parts.bm25) > 0 ? (h.fields ?? {}) : {})
    .sort(([, a], [, b]) => b - a)
    .map(([field, share]) => `${field} ${Math.round(share * 100)}%`);
  const bm25 = `bm25 ${short(e.parts.bm25)}${fields.length ? ` [${fields.join(', ')}]` : ''}`;
  const rest = [
    e.parts.context ? `context ${short(e.parts.context)}` : '',
    e.parts.words ? `coverage ${short(e.parts.words)}` : '',
  ].filter(Boolean);
  return `: ${[bm25, ...rest].join(' + ')}`;
}

/** Two decimals at most: the parts are for reading. */
function short(x: number): number {
  return Math.round(x * 100) / 100;
}
