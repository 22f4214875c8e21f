// Collects, once, what a sweep of hybrid ranking constants needs from a LoCoMo file: for every
// question (categories 1–4) of every conversation (each alone in its own brain, as `brain eval
// locomo` does), the vector retriever's ranked list (200 deep) and the words retriever's ranked
// lists for each setting of the context weights and each depth, with the named-agent boost of
// every candidate. bench/hybrid-cv.ts then fuses these lists under every setting of the fusion
// constants and cross-validates, without searching or embedding again.
//
// Vectors come through an embedder whose vectors are kept in a file (bench/embed-cache.ts), so
// the slow offline model embeds the dev set once across runs.
//
// With --bm25 DIR, also the words lists at the default context weights and depth under each
// build of brain_bm25 in DIR/<name>/brain_fts.node (made by bench/bm25-variants.sh with other
// k1 and b), loaded over the installed one on each brain's connection.
//
//   npm run build
//   nice npx tsx bench/hybrid-collect.ts ../shared/eval/locomo-dev.json OUT.json \
//     [--cache /tmp/retrieval-cv/vectors.jsonl] [--words-only] [--bm25 DIR] [--current-only]
//
// --current-only: the words lists at the current context weights and depth only (with --bm25).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openBrain, type Brain, type Embedder } from '../src/index.js';
import { createOfflineEmbedder } from '../src/embed/offline.js';
import { connectionOf } from '../src/brain.js';
import { loadRankExtensionFrom } from '../src/db/rank-extension.js';
import { LOCOMO_CATEGORIES, loadConversation } from '../src/eval/locomo.js';
import { readLocomo, type LocomoConversation } from '../src/eval/locomo-format.js';
import { CONTEXT_WEIGHTS } from '../src/search/fts.js';
import { FUSION_DEPTH } from '../src/search/search.js';
import { cachedEmbedder } from './embed-cache.js';
import {
  CONTEXT_GRID,
  FTS_DEPTHS,
  contextKey,
  type Collected,
  type CollectedQuestion,
  type List,
} from './hybrid-lists.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    cache: { type: 'string', default: '/tmp/retrieval-cv/vectors.jsonl' },
    'words-only': { type: 'boolean', default: false },
    bm25: { type: 'string' },
    'current-only': { type: 'boolean', default: false },
  },
});
const [file, out] = positionals;
if (!file || !out) {
  console.error('usage: npx tsx bench/hybrid-collect.ts LOCOMO_FILE OUT.json [options]');
  process.exit(2);
}

const defaults = { ...CONTEXT_WEIGHTS };
const doc = JSON.parse(readFileSync(file, 'utf8')) as unknown;
const conversations = readLocomo(doc);
const embedder: Embedder | undefined = values['words-only']
  ? undefined
  : cachedEmbedder(await createOfflineEmbedder(), values.cache);
const variants = values.bm25
  ? readdirSync(values.bm25)
      .filter((name) => existsSync(join(values.bm25!, name, 'brain_fts.node')))
      .sort()
  : [];

type Hits = Awaited<ReturnType<Brain['search']['searchHybrid']>>['hits'];

function questionsOf(conv: LocomoConversation) {
  return conv.questions.filter(
    (q) =>
      LOCOMO_CATEGORIES.includes(q.category) && q.evidence.length > 0 && q.question.trim() !== '',
  );
}

const result: Collected = {
  embedder: embedder?.model ?? null,
  search_weight: embedder?.searchWeight ?? null,
  conversations: [],
};
for (const conv of conversations) {
  const started = Date.now();
  const brain = await openBrain({ dbPath: ':memory:' });
  const ids = loadConversation(brain, conv);
  const index = new Map([...ids.values()].map((id, i) => [id, i]));
  if (embedder) {
    const r = await brain.embed.embedQueued(embedder);
    if (r.failed > 0) throw new Error(`embedding failed: ${r.errors.join('; ')}`);
  }
  const questions: CollectedQuestion[] = [];
  const listOf = (
    hits: Hits,
    retriever: 'fts' | 'vector',
    boost: Record<number, number>,
    at = index,
  ): List =>
    hits
      .filter((h) => h.found_by[retriever])
      .map((h) => {
        const i = at.get(h.id)!;
        if (h.boost !== undefined) boost[i] = h.boost;
        return { i, rank: h.found_by[retriever]!.rank, score: h.found_by[retriever]!.score };
      })
      .sort((a, b) => a.rank - b.rank)
      .map((c) => [c.i, c.score]);
  const search = (brain: Brain, query: string, mode: 'fts' | 'vector' | 'hybrid', limit: number) =>
    brain.search
      .searchHybrid(
        { query, types: ['message'], limit },
        { embedder, mode, queryTimeoutMs: 120_000, depth: limit },
      )
      .then((r) => r.hits);

  for (const q of questionsOf(conv)) {
    const boost: Record<number, number> = {};
    const wanted = q.evidence.map((e) => index.get(ids.get(e) ?? '') ?? -1);
    const cq: CollectedQuestion = { category: q.category, wanted, fts: {}, boost };
    if (embedder) {
      cq.vector = listOf(await search(brain, q.question, 'vector', 200), 'vector', boost);
      const { hits } = await brain.search.searchHybrid(
        { query: q.question, types: ['message'], limit: 10 },
        { embedder, queryTimeoutMs: 120_000 },
      );
      cq.hybrid = hits.map((h) => index.get(h.id)!);
    }
    for (const w of values['current-only'] ? [defaults] : CONTEXT_GRID) {
      Object.assign(CONTEXT_WEIGHTS, w);
      for (const depth of values['current-only'] ? [FUSION_DEPTH] : FTS_DEPTHS)
        cq.fts[`${contextKey(w)}|${depth}`] = listOf(
          await search(brain, q.question, 'fts', depth),
          'fts',
          boost,
        );
    }
    Object.assign(CONTEXT_WEIGHTS, defaults);
    questions.push(cq);
  }
  brain.close();

  for (const name of variants) {
    const other = await openBrain({ dbPath: ':memory:' });
    if (!loadRankExtensionFrom(connectionOf(other), join(values.bm25!, name, 'brain_fts.node')))
      throw new Error(`cannot load ${name}`);
    const otherIndex = new Map([...loadConversation(other, conv).values()].map((id, i) => [id, i]));
    for (const [n, q] of questionsOf(conv).entries()) {
      questions[n]!.fts[`bm25:${name}|${FUSION_DEPTH}`] = listOf(
        await search(other, q.question, 'fts', FUSION_DEPTH),
        'fts',
        questions[n]!.boost,
        otherIndex,
      );
    }
    other.close();
  }
  result.conversations.push({ id: conv.id, questions });
  console.error(
    `${conv.id}: ${questions.length} questions collected in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
}
writeFileSync(out, JSON.stringify(result));
if (embedder && 'stats' in embedder)
  console.error(`embedding cache: ${JSON.stringify(embedder.stats)}`);
