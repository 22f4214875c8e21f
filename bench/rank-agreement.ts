// Whether search ranks alike with the compiled function (brain_bm25) and with FTS5's bm25(): the
// 50 queries of `brain bench`, each searched on two connections to one database, one of each, and
// their top 10 compared (type, id and order). Prints the share that match and, for each query
// that does not, where the lists part, each word's row count and whether the message index ranks
// alike given exact counts, so a difference can be told apart: a tie broken another way, or a
// word past the ranking window, whose weight brain_bm25 is given as an estimate where bm25()
// counts every row. Hits' scores are the fused ones (reciprocal rank), so they are not shown.
//
//   npm run build
//   node dist/bench/rank-agreement.js DB [limit]
//
// The database is only read (build one with `brain bench --messages 100000 --keep --dir D`).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_CORPUS } from '../cli/commands/bench.js';
import { buildFtsQueries, openBrain, type Brain, type SearchHit } from '../src/index.js';
import { documentFrequency, RANK_SQL, RANK_WINDOW } from '../src/search/fts.js';
import { loadCorpus } from './latency/corpus.js';
import { benchQueries } from './latency/queries.js';
import { createTextGenerator } from './latency/text.js';

const [dbArg, limitArg] = process.argv.slice(2);
if (!dbArg || !existsSync(dbArg)) {
  console.error('usage: node dist/bench/rank-agreement.js DB [limit]');
  process.exit(2);
}
const limit = Number(limitArg ?? 10);

const corpus = loadCorpus(undefined, resolve(DEFAULT_CORPUS), () => {});
const queries = benchQueries(createTextGenerator(corpus, 1));
const compiled = openBrain({ dbPath: dbArg, rankFunction: true });
const fts5 = openBrain({ dbPath: dbArg, rankFunction: false });

const key = (h: SearchHit) => `${h.type}:${h.id}`;
const db = compiled.db;
const quote = (t: string) => `"${t.replaceAll('"', '""')}"`;
const countAll = db.prepare(`SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?`).pluck();
// As the word counter of src/search/fts.ts counts: the newest RANK_WINDOW matches and the oldest of them.
const countNewest = db.prepare(`SELECT count(*) AS n, min(rowid) AS oldest FROM
  (SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rowid DESC LIMIT ${RANK_WINDOW})`);
const newest = db.prepare(`SELECT max(id) FROM messages`).pluck().get() as number;

interface Word {
  term: string;
  /** Rows holding it, all counted (what bm25() uses). */
  exact: number;
  /** What brain_bm25 is given: the same below the window, an estimate past it. */
  given: number;
}

function wordsOf(query: string): Word[] {
  return (buildFtsQueries(query)?.terms ?? []).map((term) => {
    const { n, oldest } = countNewest.get(quote(term)) as { n: number; oldest: number | null };
    return {
      term,
      exact: countAll.get(quote(term)) as number,
      given: documentFrequency({ n, oldest, newest }),
    };
  });
}

/**
 * The message index's best 50, among the newest RANK_WINDOW matches, as search ranks them for all
 * the words and for any of them: by bm25(), and by brain_bm25 given the counts search gives it and
 * given every row counted.
 */
function messageRanking(words: Word[]): { exact: boolean; text: string } {
  const ranked = (match: string, scorer: 'bm25' | 'brain_bm25', df: number[]) => {
    const rows = db.prepare(RANK_SQL[scorer].message.bare).all({
      match,
      k: 50,
      df: Buffer.from(Float64Array.from(df).buffer),
    }) as Array<{ rowid: number }>;
    return rows.map((r) => r.rowid).join();
  };
  const says = (same: boolean) => (same ? 'same' : 'differs');
  const verdicts = (words.length > 1 ? ['all', 'any'] : ['all']).map((op) => {
    const match = words.map((w) => quote(w.term)).join(op === 'all' ? ' ' : ' OR ');
    const want = ranked(match, 'bm25', []);
    const given =
      ranked(
        match,
        'brain_bm25',
        words.map((w) => w.given),
      ) === want;
    const exact =
      ranked(
        match,
        'brain_bm25',
        words.map((w) => w.exact),
      ) === want;
    return {
      exact,
      text: `${op} words: ${says(given)} given search's counts, ${says(exact)} given exact counts`,
    };
  });
  return {
    exact: verdicts.every((v) => v.exact),
    text: `message index's top 50 beside bm25()'s: ${verdicts.map((v) => v.text).join('; ')}`,
  };
}

const top = (brain: Brain, query: string) => brain.search({ query, limit }).hits;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

let same = 0;
let sameSet = 0;
let estimated = 0;
let exactAgree = 0;
const lines: string[] = [];
for (const query of queries) {
  const words = wordsOf(query);
  const ranking = messageRanking(words);
  if (words.some((w) => w.exact >= RANK_WINDOW)) estimated += 1;
  if (ranking.exact) exactAgree += 1;
  const a = top(compiled, query).map(key);
  const b = top(fts5, query).map(key);
  if (a.join() === b.join()) {
    same += 1;
    continue;
  }
  const inA = new Set(a);
  if (a.length === b.length && b.every((k) => inA.has(k))) sameSet += 1;
  const at = a.findIndex((k, i) => k !== b[i]);
  const from = at < 0 ? Math.min(a.length, b.length) : at;
  lines.push(`"${query}": the lists part at rank ${from + 1}`);
  for (let i = from; i < Math.max(a.length, b.length); i += 1) {
    const place = String(i + 1).padStart(2);
    lines.push(
      `  ${place}  brain_bm25 ${(a[i] ?? '(none)').padEnd(22)}  bm25() ${b[i] ?? '(none)'}`,
    );
  }
  const shown = words.map((w) =>
    w.exact < RANK_WINDOW
      ? `${w.term} ${fmt(w.exact)}`
      : `${w.term} ${fmt(w.exact)} (given ${fmt(w.given)})`,
  );
  lines.push(`  rows holding each word: ${shown.join(', ')}`);
  lines.push(`  ${ranking.text}`);
}

const pct = (n: number) => `${((100 * n) / queries.length).toFixed(0)}%`;
const rows = db.prepare(`SELECT count(*) FROM messages`).pluck().get() as number;
console.log(
  `${fmt(rows)} messages, ${queries.length} queries, top ${limit}: ${same} the same in the same ` +
    `order (${pct(same)}); ${sameSet} more the same hits in another order`,
);
console.log(
  `${estimated} queries hold a word past the ranking window (${fmt(RANK_WINDOW)} rows), whose ` +
    `weight brain_bm25 is given as an estimate; given exact counts, brain_bm25 ranks the message ` +
    `index as bm25() does for ${exactAgree} of ${queries.length} (top 50, all words and any word)`,
);
for (const line of lines) console.log(line);
compiled.close();
fts5.close();
