// Leave-one-conversation-out cross-validation of the hybrid ranking constants, over the lists
// bench/hybrid-collect.ts gathered (no search, no embedding here): the context weights and the
// words retriever's depth, the vector retriever's depth, RRF's k and the vector weight, and
// weighted score fusion (each list's scores scaled to [0, 1], then summed with weights) beside
// reciprocal rank fusion. Fusion is the library's own fuseRankings with the named-agent boost as
// search applies it. Recall@5 per question; src/eval/folds.ts picks, per fold, the setting best
// on the other two conversations and scores it on the one held out.
//
// Prints, per arm (words only, vectors only, hybrid): the current constants' dev figure per
// conversation, the folds, the cross-validated figure, and whether every fold chose the same.
//
//   nice npx tsx bench/hybrid-cv.ts /tmp/retrieval-cv/lists-use.json [--bm25]
import { readFileSync } from 'node:fs';
import { readLocomo } from '../src/eval/locomo-format.js';
import { crossValidate, type Tally } from '../src/eval/folds.js';
import { CONTEXT_WEIGHTS } from '../src/search/fts.js';
import { FUSION_DEPTH, VECTOR_DEPTH } from '../src/search/search.js';
import { RRF_K, fuseRankings, type Fused, type Retriever } from '../src/search/fusion.js';
import type { Candidate } from '../src/search/fts.js';
import {
  CONTEXT_GRID,
  FTS_DEPTHS,
  contextKey,
  type Collected,
  type CollectedQuestion,
  type List,
} from './hybrid-lists.js';

const file = process.argv[2];
if (!file) {
  console.error('usage: npx tsx bench/hybrid-cv.ts LISTS.json [--bm25]');
  process.exit(2);
}
const data = JSON.parse(readFileSync(file, 'utf8')) as Collected;
const K = 5;

export interface Setting {
  fusion: 'rrf' | 'score';
  context: string;
  ftsDepth: number;
  vectorDepth: number;
  /** RRF's k (rrf only). */
  k: number;
  vectorWeight: number;
  /** A message's vector score gains this share of its neighbours' in its thread (0: none). */
  vectorContext?: number;
}
const keyOf = (s: Setting) =>
  `${s.fusion} ctx ${s.context} fts@${s.ftsDepth} vec@${s.vectorDepth}` +
  (s.fusion === 'rrf' ? ` k ${s.k}` : '') +
  ` wv ${s.vectorWeight}` +
  (s.vectorContext ? ` vc ${s.vectorContext}` : '');

const candidates = (list: List, depth: number): Candidate[] =>
  list.slice(0, depth).map(([rowid, score], i) => ({ type: 'message', rowid, score, rank: i + 1 }));

/** Each list's scores scaled to [0, 1] by its best and worst, weighted, summed; then boosted. */
function scoreFusion(
  lists: Partial<Record<Retriever, Candidate[]>>,
  weights: Partial<Record<Retriever, number>>,
  boost: (rowid: number) => number,
  limit: number,
): number[] {
  const total = new Map<number, number>();
  for (const [name, list] of Object.entries(lists) as Array<[Retriever, Candidate[]]>) {
    if (list.length === 0) continue;
    const hi = Math.max(...list.map((c) => c.score));
    const lo = Math.min(...list.map((c) => c.score));
    for (const c of list) {
      const x = hi === lo ? 1 : (c.score - lo) / (hi - lo);
      total.set(c.rowid, (total.get(c.rowid) ?? 0) + (weights[name] ?? 1) * x);
    }
  }
  return [...total.entries()]
    .map(([rowid, s]) => [rowid, s * boost(rowid)] as const)
    .sort((a, b) => b[1] - a[1] || 0)
    .slice(0, limit)
    .map(([rowid]) => rowid);
}

/** Each message's session, by candidate index, per conversation (from --locomo FILE). */
const sessions = new Map<string, number[]>();
const locomoAt = process.argv.indexOf('--locomo');
if (locomoAt > 0) {
  for (const conv of readLocomo(JSON.parse(readFileSync(process.argv[locomoAt + 1]!, 'utf8')))) {
    sessions.set(
      conv.id,
      conv.sessions.flatMap((session, i) => session.turns.map(() => i)),
    );
  }
}

/**
 * The vector list re-scored with context: each message of the list, and each neighbour of one,
 * scores its cosine plus `share` of each neighbour's in its session (a cosine not in the list
 * counts as the list's lowest).
 */
function withVectorContext(list: List, session: number[], share: number): List {
  const cos = new Map(list);
  const floor = list.length > 0 ? list[list.length - 1]![1] : 0;
  const at = (i: number) => cos.get(i) ?? floor;
  const near = (i: number) =>
    [i - 1, i + 1].filter((j) => session[j] !== undefined && session[j] === session[i]);
  const pool = new Set(list.flatMap(([i]) => [i, ...near(i)]));
  return [...pool]
    .map((i): [number, number] => [i, at(i) + share * near(i).reduce((a, j) => a + at(j), 0)])
    .sort((a, b) => b[1] - a[1] || a[0] - b[0]);
}

function topOf(
  q: CollectedQuestion,
  s: Setting,
  arms: Retriever[],
  session: number[] = [],
): number[] {
  const boost = (rowid: number) => q.boost[rowid] ?? 1;
  const lists: Partial<Record<Retriever, Candidate[]>> = {};
  if (arms.includes('fts'))
    lists.fts = candidates(q.fts[`${s.context}|${s.ftsDepth}`]!, s.ftsDepth);
  if (arms.includes('vector')) {
    const list = s.vectorContext
      ? withVectorContext(q.vector ?? [], session, s.vectorContext)
      : (q.vector ?? []);
    lists.vector = candidates(list, s.vectorDepth);
  }
  const weights = { fts: 1, vector: s.vectorWeight };
  if (s.fusion === 'score') return scoreFusion(lists, weights, boost, K);
  return fuseRankings(lists, K, {
    k: s.k,
    weights,
    boost: (hit: Fused) => boost(hit.rowid),
  }).map((h) => h.rowid);
}

function recall(q: CollectedQuestion, top: number[], k = K): number {
  const set = new Set(top.slice(0, k));
  return q.wanted.filter((w) => set.has(w)).length / q.wanted.length;
}

function measure(settings: Record<string, Setting>, arms: Retriever[]) {
  const results: Record<string, Record<string, Tally>> = {};
  for (const conv of data.conversations) {
    const row: Record<string, Tally> = {};
    for (const [key, s] of Object.entries(settings)) {
      let sum = 0;
      for (const q of conv.questions) sum += recall(q, topOf(q, s, arms, sessions.get(conv.id)));
      row[key] = { sum, n: conv.questions.length };
    }
    results[conv.id] = row;
  }
  return results;
}

/** The parts of a setting that matter to the arms that run. */
function label(s: Setting, arms: Retriever[]): string {
  const parts: string[] = [];
  if (arms.length > 1) parts.push(s.fusion === 'rrf' ? `RRF k ${s.k}` : 'score fusion');
  if (arms.includes('fts')) parts.push(`words ${s.context} @${s.ftsDepth}`);
  if (arms.includes('vector')) parts.push(`vectors @${s.vectorDepth}`);
  if (arms.length > 1) parts.push(`vector weight ${s.vectorWeight}`);
  if (s.vectorContext) parts.push(`vector context ${s.vectorContext}`);
  return parts.join(', ');
}

const f = (x: number) => x.toFixed(3);
/** `--only WORD`: run only the reports whose title holds WORD. */
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt > 0 ? process.argv[onlyAt + 1] : undefined;

function report(
  title: string,
  settings: Record<string, Setting>,
  current: Setting,
  arms: Retriever[],
) {
  if (only !== undefined && !title.includes(only)) return;
  const started = Date.now();
  const results = measure(settings, arms);
  const cv = crossValidate(results, settings, keyOf(current));
  console.log(`\n## ${title} (${Object.keys(settings).length} settings)`);
  const name = (s: Setting) => label(s, arms);
  console.log(`current: ${name(current)}`);
  const units = Object.keys(results);
  const all = (key: string) => {
    const ts = units.map((u) => results[u]![key]!);
    return ts.reduce((a, t) => a + t.sum, 0) / ts.reduce((a, t) => a + t.n, 0);
  };
  const shown = Object.keys(settings).length <= 16 ? Object.keys(settings) : [keyOf(current)];
  console.log(`  recall@5 per conversation (${units.join(' / ')}) and on all:`);
  for (const key of shown) {
    const per = units.map((u) => f(results[u]![key]!.sum / results[u]![key]!.n)).join(' / ');
    console.log(`  ${name(settings[key]!)}: ${per}; all ${f(all(key))}`);
  }
  for (const fold of cv.folds) {
    console.log(
      `  held out ${fold.held_out}: chose ${name(fold.chosen)} (${f(fold.train)} on the others); ` +
        `held-out ${f(fold.held_out_score)}, current ${f(fold.default_score)}`,
    );
  }
  console.log(
    `  cross-validated ${f(cv.cross_validated)}; current constants on all (dev) ${f(cv.default_cross_validated)}; ` +
      `best on all (dev) ${name(cv.dev_choice)} at ${f(cv.dev)}`,
  );
  console.log(cv.adopt ? `  every fold chose ${name(cv.adopt)}` : '  the folds disagree');
  console.error(`${title}: ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

/**
 * One constant at a time, per fold: from the current setting, each constant in turn takes the
 * value best on the fold's other conversations (ties keep the value it has), the others as the
 * fold has them so far. Each fold ends with its own setting, scored on the conversation it held
 * out; a setting is adopted only when every fold ends at it.
 */
function coordinateReport(
  title: string,
  start: Setting,
  axes: Array<[keyof Setting, Array<Setting[keyof Setting]>]>,
  arms: Retriever[],
) {
  if (only !== undefined && !title.includes(only)) return;
  const memo = new Map<string, Record<string, Tally>>();
  const tallies = (s: Setting) => {
    let row = memo.get(keyOf(s));
    if (!row) {
      row = Object.fromEntries(
        Object.entries(measure({ [keyOf(s)]: s }, arms)).map(([u, r]) => [u, r[keyOf(s)]!]),
      );
      memo.set(keyOf(s), row);
    }
    return row;
  };
  const meanOver = (s: Setting, units: string[]) => {
    const row = tallies(s);
    const ts = units.map((u) => row[u]!);
    return ts.reduce((a, t) => a + t.sum, 0) / ts.reduce((a, t) => a + t.n, 0);
  };
  const units = data.conversations.map((c) => c.id);
  const name = (s: Setting) => label(s, arms);
  console.log(`\n## ${title}`);
  console.log(`current: ${name(start)}; on all (dev) ${f(meanOver(start, units))}`);
  console.log(
    `  per conversation (${units.join(' / ')}): ${units.map((u) => f(meanOver(start, [u]))).join(' / ')}`,
  );
  const finals: Setting[] = [];
  let sum = 0;
  let n = 0;
  for (const held of units) {
    const train = units.filter((u) => u !== held);
    let s = start;
    const steps: string[] = [];
    for (const [axis, values] of axes) {
      let best = s;
      let top = meanOver(s, train);
      for (const v of values) {
        const t = { ...s, [axis]: v };
        const score = meanOver(t, train);
        if (score > top + 1e-12) {
          best = t;
          top = score;
        }
      }
      if (best !== s) steps.push(`${axis} ${String(best[axis])}`);
      s = best;
    }
    finals.push(s);
    const t = tallies(s)[held]!;
    sum += t.sum;
    n += t.n;
    console.log(
      `  held out ${held}: moved ${steps.join(', ') || 'nothing'} → ${name(s)} ` +
        `(${f(meanOver(s, train))} on the others); held-out ${f(t.sum / t.n)}, current ${f(meanOver(start, [held]))}`,
    );
  }
  console.log(`  cross-validated ${f(sum / n)}; current on all (dev) ${f(meanOver(start, units))}`);
  const agreed = finals.every((s) => keyOf(s) === keyOf(finals[0]!));
  console.log(
    agreed
      ? `  every fold ended at ${name(finals[0]!)}: on all (dev) ${f(meanOver(finals[0]!, units))}`
      : '  the folds end apart',
  );
}

const current: Setting = {
  fusion: 'rrf',
  context: contextKey(CONTEXT_WEIGHTS),
  ftsDepth: FUSION_DEPTH,
  vectorDepth: VECTOR_DEPTH,
  k: RRF_K,
  vectorWeight: data.search_weight ?? 1,
};
const grid = (over: Partial<Record<keyof Setting, Array<Setting[keyof Setting]>>>) => {
  let all: Setting[] = [current];
  for (const [name, values] of Object.entries(over)) {
    all = all.flatMap((s) => values!.map((v) => ({ ...s, [name]: v })));
  }
  const out = Object.fromEntries(all.map((s) => [keyOf(s), s]));
  out[keyOf(current)] = current;
  return out;
};
const contexts = CONTEXT_GRID.map(contextKey);

if (process.argv.includes('--bm25')) {
  const names = Object.keys(data.conversations[0]!.questions[0]!.fts)
    .filter((k) => k.startsWith('bm25:'))
    .map((k) => k.slice(0, k.indexOf('|')));
  report('words only, BM25 k1 and b', grid({ context: [...names, current.context] }), current, [
    'fts',
  ]);
  process.exit(0);
}

// A check that the fusion here is search's: the current constants' top 10 against search's own.
let same = 0;
let asked = 0;
for (const conv of data.conversations)
  for (const q of conv.questions) {
    if (!q.hybrid) continue;
    asked++;
    const mine = fuseRankings(
      {
        fts: candidates(q.fts[`${current.context}|${current.ftsDepth}`]!, current.ftsDepth),
        vector: candidates(q.vector ?? [], current.vectorDepth),
      },
      10,
      {
        k: current.k,
        weights: { fts: 1, vector: current.vectorWeight },
        boost: (h) => q.boost[h.rowid] ?? 1,
      },
    ).map((h) => h.rowid);
    if (mine.join() === q.hybrid.join()) same++;
  }
if (asked > 0) {
  const own = data.conversations.map((c) => {
    const sum = c.questions.reduce((a, q) => a + recall(q, q.hybrid ?? []), 0);
    return `${c.id} ${f(sum / c.questions.length)}`;
  });
  const all = data.conversations.flatMap((c) => c.questions);
  const sum = all.reduce((a, q) => a + recall(q, q.hybrid ?? []), 0);
  console.log(`fusion check: ${same}/${asked} questions' top 10 equal search's own`);
  const sum10 = all.reduce((a, q) => a + recall(q, q.hybrid ?? [], 10), 0);
  console.log(
    `search's own hybrid recall@5: ${own.join(', ')}; all ${f(sum / all.length)} (@10 ${f(sum10 / all.length)})`,
  );
}

report(
  'words only: context weights and depth',
  grid({ context: contexts, ftsDepth: FTS_DEPTHS }),
  current,
  ['fts'],
);
if (data.embedder) {
  report('vectors only (nothing to tune)', grid({}), current, ['vector']);
  report(
    'hybrid, RRF: k, vector weight and depth (context weights as they are)',
    grid({
      k: [1, 5, 10, 20, 40, 60],
      vectorWeight: [0.3, 0.5, 0.7, 1, 1.3],
      vectorDepth: [20, 50, 100, 200],
      ftsDepth: FTS_DEPTHS,
    }),
    current,
    ['fts', 'vector'],
  );
  report(
    'hybrid, score fusion: vector weight and depth (context weights as they are)',
    grid({
      fusion: ['score'],
      vectorWeight: [0.2, 0.3, 0.5, 0.7, 1, 1.5],
      vectorDepth: [20, 50, 100, 200],
      ftsDepth: FTS_DEPTHS,
    }),
    current,
    ['fts', 'vector'],
  );
  report(
    'hybrid, focus A: context weights, words depth, vector weight 0.5 or 0.7 (RRF k 10, vectors @50)',
    grid({ context: contexts, ftsDepth: FTS_DEPTHS, vectorWeight: [0.5, 0.7] }),
    current,
    ['fts', 'vector'],
  );
  report(
    'hybrid, focus B: context weights, words depth, vector weight, vector depth (RRF k 10)',
    grid({
      context: contexts,
      ftsDepth: FTS_DEPTHS,
      vectorWeight: [0.3, 0.5, 0.7, 1],
      vectorDepth: [20, 50, 100],
    }),
    current,
    ['fts', 'vector'],
  );
  report(
    'hybrid, everything: RRF or score fusion, context weights, depths, k, vector weight',
    {
      ...grid({
        context: contexts,
        k: [5, 10, 20, 40],
        vectorWeight: [0.5, 0.7, 1],
        vectorDepth: [50, 100],
        ftsDepth: FTS_DEPTHS,
      }),
      ...grid({
        fusion: ['score'],
        context: contexts,
        vectorWeight: [0.3, 0.5, 0.7, 1],
        vectorDepth: [50, 100],
        ftsDepth: FTS_DEPTHS,
      }),
    },
    current,
    ['fts', 'vector'],
  );
}

const contextAxes = (): Array<[keyof Setting, Array<Setting[keyof Setting]>]> => {
  const [previous, next, perWord] = current.context.split('/');
  const vary = (at: number, values: number[]) =>
    values.map((v) => [previous, next, perWord].map((x, i) => (i === at ? v : x)).join('/'));
  // Each context weight alone, the other two as they stand (contexts differing in one place).
  return [
    ['context', vary(0, [0.5, 0.7, 0.9])],
    ['context', vary(1, [0.2, 0.4, 0.6])],
    ['context', vary(2, [2, 3, 4])],
  ];
};
coordinateReport(
  'words only, one constant at a time: depth, then each context weight',
  current,
  [['ftsDepth', FTS_DEPTHS], ...contextAxes()],
  ['fts'],
);
if (data.embedder) {
  coordinateReport(
    'hybrid, one constant at a time: words depth, vector depth, k, vector weight',
    current,
    [
      ['ftsDepth', FTS_DEPTHS],
      ['vectorDepth', [20, 50, 100, 200]],
      ['k', [1, 5, 10, 20, 40, 60]],
      ['vectorWeight', [0.3, 0.5, 0.7, 1, 1.3]],
    ],
    ['fts', 'vector'],
  );
  if (sessions.size > 0) {
    report(
      'vectors only, with context',
      grid({ vectorContext: [0, 0.1, 0.2, 0.3, 0.5, 0.7, 1] }),
      current,
      ['vector'],
    );
    report(
      'hybrid with vector context: vector context, vector weight, words depth (RRF k 10, vectors @50)',
      grid({
        vectorContext: [0, 0.1, 0.2, 0.3, 0.5],
        vectorWeight: [0.5, 0.7, 1],
        ftsDepth: FTS_DEPTHS,
      }),
      current,
      ['fts', 'vector'],
    );
    coordinateReport(
      'hybrid with vector context, one constant at a time: vector context, words depth, vector depth, k, vector weight',
      current,
      [
        ['vectorContext', [0, 0.1, 0.2, 0.3, 0.5]],
        ['ftsDepth', FTS_DEPTHS],
        ['vectorDepth', [20, 50, 100, 200]],
        ['k', [1, 5, 10, 20, 40, 60]],
        ['vectorWeight', [0.3, 0.5, 0.7, 1, 1.3]],
      ],
      ['fts', 'vector'],
    );
  }
  coordinateReport(
    'hybrid, one constant at a time: words depth, vector depth, k, vector weight, context weights',
    current,
    [
      ['ftsDepth', FTS_DEPTHS],
      ['vectorDepth', [20, 50, 100, 200]],
      ['k', [1, 5, 10, 20, 40, 60]],
      ['vectorWeight', [0.3, 0.5, 0.7, 1, 1.3]],
      ...contextAxes(),
    ],
    ['fts', 'vector'],
  );
}

// The settings the grids above kept choosing, side by side, words only and hybrid (a table: dev
// figures per conversation, for reading the grids, not a cross-validation of its own). The
// earlier constants (depth 50, context 0.7/0.4/3) first, for comparison.
const before: Setting = { ...current, context: '0.7/0.4/3', ftsDepth: 50, vectorDepth: 50, k: 10 };
const seen: Setting[] = [
  before,
  current,
  { ...before, context: '0.7/0.4/2' },
  { ...before, ftsDepth: 100 },
  { ...before, context: '0.7/0.4/2', ftsDepth: 100 },
  { ...before, ftsDepth: 100, vectorWeight: 0.5 },
  { ...before, context: '0.5/0.4/4', ftsDepth: 100, vectorWeight: 0.5 },
  { ...before, context: '0.5/0.6/4', ftsDepth: 100, vectorWeight: 0.5, vectorDepth: 100 },
  { ...before, context: '0.5/0.2/4', ftsDepth: 100, vectorWeight: 0.5 },
];
const table = Object.fromEntries(seen.map((s) => [keyOf(s), s]));
report('settings chosen above, words only', table, current, ['fts']);
if (data.embedder) report('settings chosen above, hybrid', table, current, ['fts', 'vector']);
