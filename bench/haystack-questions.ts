// How fast a warm process answers a LoCoMo conversation's questions inside a big brain: a copy of
// a haystack brain (`brain eval locomo … --haystack N --haystack-file F` builds one), the
// conversation loaded into it, the search warmed as `brain mcp` warms it, then every question
// asked through the search users call (words only, its time words read from the day after the
// conversation), three rounds; once with the lists of the period and the people a question names
// (src/search/search.ts RANK_PREFERENCES) and once without them, on the same connection.
//
//   nice npx tsx bench/haystack-questions.ts HAYSTACK_DB LOCOMO_FILE [conversation index]
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openBrain } from '../src/index.js';
import { loadConversation } from '../src/eval/locomo.js';
import { readLocomo } from '../src/eval/locomo-format.js';
import { RANK_PREFERENCES } from '../src/search/search.js';

const [haystack, file, which] = process.argv.slice(2);
if (!haystack || !file) {
  console.error('usage: npx tsx bench/haystack-questions.ts HAYSTACK_DB LOCOMO_FILE [index]');
  process.exit(2);
}
const conv = readLocomo(JSON.parse(readFileSync(file, 'utf8')))[Number(which ?? 0)];
if (!conv) {
  console.error(`no conversation ${which} in ${file}`);
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'brain-haystack-questions-'));
try {
  copyFileSync(haystack, join(dir, 'brain.db'));
  const brain = await openBrain({ dbPath: join(dir, 'brain.db') });
  loadConversation(brain, conv);
  const warming = performance.now();
  brain.search.warmSearch();
  console.log(`${conv.id} in ${haystack}: warmed in ${Math.round(performance.now() - warming)} ms`);
  const last = Math.max(...conv.sessions.map((s) => Date.parse(s.date)));
  const timeWords = { timeZone: 'UTC', now: new Date(last + 86_400_000) };
  const questions = conv.questions.map((q) => q.question).filter((q) => q.trim());
  const chosen = { ...RANK_PREFERENCES };
  const pct = (ms: number[], p: number) =>
    ms[Math.min(ms.length - 1, Math.ceil(p * ms.length) - 1)]!.toFixed(1);
  for (const [label, lists] of [
    ['with the lists', chosen],
    ['without them', { ...chosen, time: 0, people: 0 }],
  ] as const) {
    Object.assign(RANK_PREFERENCES, lists);
    const ms: number[] = [];
    for (let round = 0; round < 3; round++) {
      for (const query of questions) {
        const started = performance.now();
        await brain.search.searchHybrid({ query, types: ['message'], limit: 10 }, { timeWords });
        ms.push(performance.now() - started);
      }
    }
    ms.sort((a, b) => a - b);
    console.log(
      `${label}: ${ms.length} searches, p50 ${pct(ms, 0.5)} ms, p90 ${pct(ms, 0.9)}, ` +
        `p99 ${pct(ms, 0.99)}, max ${ms.at(-1)!.toFixed(1)}; load ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}`,
    );
  }
  Object.assign(RANK_PREFERENCES, chosen);
  brain.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
