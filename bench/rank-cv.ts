// Leave-one-conversation-out cross-validation of the ranking's preference lists
// (src/search/search.ts RANK_PREFERENCES: the weight of the list restricted to the period a query
// names, how many days after that period still count, the weight of the list restricted to the
// people it names), recall@5 per conversation of a LoCoMo file, alone and, with --haystack, inside
// a copy of a haystack brain (`brain eval locomo … --haystack N --haystack-file F` builds one).
// Each conversation is loaded once per brain and every setting asks all of its questions there.
// Prints, alone, inside and for both together (a fold holding out a conversation in both), the
// folds, per-category figures of the default and the chosen setting, and whether every fold chose
// the same setting (only then is it worth adopting). The constants are set by writing
// the exported object: this script is the only place that does. With --embed, the hybrid ranking
// (the configured embedder) with the vectors' weight in the fusion as one more constant
// (--vector-weights, default the embedder's own); each question is embedded once for all settings.
//
//   nice npx tsx bench/rank-cv.ts ../shared/eval/locomo-dev.json [--haystack FILE] [--embed]
//     [--vector-weights 0.5,0.7,1] [--default-only | --vary NAME]
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbedder, loadConfig, openBrain, type Brain, type Embedder } from '../src/index.js';
import { crossValidate, type Tally } from '../src/eval/folds.js';
import { LOCOMO_CATEGORIES, loadConversation } from '../src/eval/locomo.js';
import { readLocomo, type LocomoConversation } from '../src/eval/locomo-format.js';
import { RANK_PREFERENCES } from '../src/search/search.js';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--') && args[args.indexOf(a) - 1] !== '--haystack');
const haystack = args.includes('--haystack') ? args[args.indexOf('--haystack') + 1] : undefined;
if (!file) {
  console.error('usage: npx tsx bench/rank-cv.ts LOCOMO_FILE [--haystack BRAIN_FILE] [--embed]');
  process.exit(2);
}
const configured = args.includes('--embed') ? await createEmbedder(loadConfig()) : undefined;
if (args.includes('--embed') && !configured) {
  console.error('--embed: no embedder is configured (BRAIN_EMBEDDER)');
  process.exit(2);
}
const embedder = configured && memoized(configured);
const conversations = readLocomo(JSON.parse(readFileSync(file, 'utf8')));
const vectorWeights = args.includes('--vector-weights')
  ? args[args.indexOf('--vector-weights') + 1]!.split(',').map(Number)
  : [embedder?.searchWeight ?? 1];

/** The embedder, with each query's vector kept: every setting asks the same questions. */
function memoized(inner: Embedder): Embedder {
  const queries = new Map<string, Float32Array>();
  return {
    provider: inner.provider,
    model: inner.model,
    batchSize: inner.batchSize,
    ...(inner.searchWeight === undefined ? {} : { searchWeight: inner.searchWeight }),
    async embed(texts, kind, options) {
      if (kind !== 'query' || texts.length !== 1) return inner.embed(texts, kind, options);
      let vector = queries.get(texts[0]!);
      if (!vector) {
        vector = (await inner.embed(texts, kind, options))[0]!;
        queries.set(texts[0]!, vector);
      }
      return [vector];
    },
  };
}

type Setting = typeof RANK_PREFERENCES & { vector: number };
const chosen: Setting = { ...RANK_PREFERENCES, vector: embedder?.searchWeight ?? 1 };
const key = (s: Setting) =>
  `time ${s.time}, slack ${s.timeSlackDays} d, people ${s.people}` +
  (embedder ? `, vector's period ${s.timeVector}, vector ${s.vector}` : '');
const settings: Record<string, Setting> = {};
const grid: { [K in keyof Setting]: number[] } = {
  time: [0, 0.5, 1, 2],
  timeSlackDays: [0, 3, 7],
  people: [0, 1, 2, 3, 4],
  timeVector: embedder ? [0, 0.25, 0.5, 1] : [chosen.timeVector],
  vector: vectorWeights,
};
// --default-only: the current constants alone, each conversation's figure (a change's effect).
// --vary NAME: that constant over its grid, the others as chosen (a new constant alone, without
// the folds choosing among every combination).
const vary = args.includes('--vary')
  ? (args[args.indexOf('--vary') + 1] as keyof Setting)
  : undefined;
if (vary !== undefined && !(vary in grid)) {
  console.error(`--vary: one of ${Object.keys(grid).join(', ')}`);
  process.exit(2);
}
const only = (name: keyof Setting) =>
  args.includes('--default-only') || (vary !== undefined && vary !== name)
    ? [chosen[name]]
    : grid[name];
for (const time of only('time'))
  for (const timeSlackDays of only('timeSlackDays'))
    for (const people of only('people'))
      for (const timeVector of only('timeVector'))
        for (const vector of only('vector')) {
          const s = { time, timeSlackDays, people, timeVector, vector };
          settings[key(s)] = s;
        }
settings[key(chosen)] = chosen;

type Results = Record<string, Record<string, Tally>>;
type ByCategory = Record<string, Record<string, Record<number, Tally>>>;
/** Per conversation, per setting: recall@5 summed over questions, overall and per category. */
const alone = { results: {} as Results, byCategory: {} as ByCategory };
const inside = { results: {} as Results, byCategory: {} as ByCategory };

async function measure(
  brain: Brain,
  conv: LocomoConversation,
  into: { results: Results; byCategory: ByCategory },
): Promise<void> {
  const ids = loadConversation(brain, conv);
  if (embedder) await brain.embed.embedQueued(embedder);
  const lastSession = Math.max(...conv.sessions.map((s) => Date.parse(s.date)));
  const timeWords = { timeZone: 'UTC', now: new Date(lastSession + 86_400_000) };
  const questions = conv.questions.filter(
    (q) => LOCOMO_CATEGORIES.includes(q.category) && q.evidence.length > 0 && q.question.trim(),
  );
  into.results[conv.id] = {};
  into.byCategory[conv.id] = {};
  for (const [k, s] of Object.entries(settings)) {
    const { vector, ...preferences } = s;
    Object.assign(RANK_PREFERENCES, preferences);
    const weighted = embedder && { ...embedder, searchWeight: vector };
    const tally: Tally = { sum: 0, n: 0 };
    const cats: Record<number, Tally> = {};
    for (const q of questions) {
      const { hits } = await brain.search.searchHybrid(
        { query: q.question, types: ['message'], limit: 5 },
        { embedder: weighted, mode: embedder ? 'hybrid' : 'fts', timeWords },
      );
      const top = new Set(hits.map((h) => h.id));
      const r = q.evidence.filter((e) => top.has(ids.get(e) ?? '')).length / q.evidence.length;
      tally.sum += r;
      tally.n++;
      const c = (cats[q.category] ??= { sum: 0, n: 0 });
      c.sum += r;
      c.n++;
    }
    into.results[conv.id]![k] = tally;
    into.byCategory[conv.id]![k] = cats;
  }
  const { vector: _vector, ...preferences } = chosen;
  Object.assign(RANK_PREFERENCES, preferences);
}

for (const conv of conversations) {
  const brain = await openBrain({ dbPath: ':memory:' });
  try {
    await measure(brain, conv, alone);
  } finally {
    brain.close();
  }
  if (haystack) {
    const dir = mkdtempSync(join(tmpdir(), 'brain-rank-cv-'));
    try {
      copyFileSync(haystack, join(dir, 'brain.db'));
      const stack = await openBrain({ dbPath: join(dir, 'brain.db') });
      try {
        await measure(stack, conv, inside);
      } finally {
        stack.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  console.error(`${conv.id}: ${Object.keys(settings).length} settings measured`);
}

const f = (x: number) => x.toFixed(3);
function report(title: string, results: Results, byCategory: ByCategory): void {
  const cv = crossValidate(results, settings, key(chosen));
  const categories = (k: string) =>
    LOCOMO_CATEGORIES.map((c) => {
      const ts = Object.values(byCategory).map((u) => u[k]?.[c] ?? { sum: 0, n: 0 });
      const n = ts.reduce((a, t) => a + t.n, 0);
      return `${c}: ${f(n === 0 ? 0 : ts.reduce((a, t) => a + t.sum, 0) / n)}`;
    }).join(', ');
  console.log(`\n${title}, ${embedder ? 'hybrid' : 'words'}`);
  for (const fold of cv.folds) {
    console.log(
      `held out ${fold.held_out}: chose ${key(fold.chosen)} (${f(fold.train)} on the others); ` +
        `held-out recall@5 ${f(fold.held_out_score)}, default ${f(fold.default_score)}`,
    );
  }
  console.log(
    `cross-validated recall@5: ${f(cv.cross_validated)} with each fold's choice, ` +
      `${f(cv.default_cross_validated)} with the default ${key(chosen)}`,
  );
  const none = key({ ...chosen, time: 0, people: 0, timeVector: 0 });
  if (settings[none]) console.log(`without the lists (${none}): ${categories(none)}`);
  console.log(`default (${key(chosen)}): ${categories(key(chosen))}`);
  console.log(
    `dev (chosen on all): ${key(cv.dev_choice)} at ${f(cv.dev)}: ${categories(key(cv.dev_choice))}`,
  );
  console.log(
    cv.adopt ? `every fold chose ${key(cv.adopt)}` : 'the folds disagree: keep the default',
  );
}

report('alone', alone.results, alone.byCategory);
if (haystack) {
  report(`inside ${haystack}`, inside.results, inside.byCategory);
  // Both at once: each conversation's questions alone and inside, so a setting is chosen for
  // both and a fold still holds out a whole conversation.
  const both = (a: Record<string, Record<string, Tally>>, b: typeof a) =>
    Object.fromEntries(
      Object.entries(a).map(([unit, bySetting]) => [
        unit,
        Object.fromEntries(
          Object.entries(bySetting).map(([k, t]) => [
            k,
            { sum: t.sum + b[unit]![k]!.sum, n: t.n + b[unit]![k]!.n },
          ]),
        ),
      ]),
    );
  const cats = Object.fromEntries(
    Object.entries(alone.byCategory).map(([unit, bySetting]) => [
      unit,
      Object.fromEntries(
        Object.entries(bySetting).map(([k, byCat]) => [
          k,
          Object.fromEntries(
            Object.entries(byCat).map(([c, t]) => {
              const o = inside.byCategory[unit]![k]![Number(c)] ?? { sum: 0, n: 0 };
              return [c, { sum: t.sum + o.sum, n: t.n + o.n }];
            }),
          ),
        ]),
      ),
    ]),
  );
  report('alone and inside together', both(alone.results, inside.results), cats);
}
