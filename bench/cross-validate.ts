// Leave-one-conversation-out cross-validation of the context weights (src/search/fts.ts
// CONTEXT_WEIGHTS) on a LoCoMo file, words only: each conversation alone in its own brain, every
// setting of a small grid measured once per conversation (recall@5), then for each fold the
// setting best on the other conversations is scored on the one held out (src/eval/folds.ts).
// Prints the folds, the cross-validated and dev figures, and whether a setting wins on every
// fold (only then is it worth adopting). The weights are set by writing the exported object:
// this script is the only place that does.
//
//   npm run build
//   nice npx tsx bench/cross-validate.ts ../shared/eval/locomo-dev.json
import { readFileSync } from 'node:fs';
import { evalLocomo } from '../src/index.js';
import { crossValidate, type Tally } from '../src/eval/folds.js';
import { CONTEXT_WEIGHTS } from '../src/search/fts.js';

const file = process.argv[2];
if (!file) {
  console.error('usage: npx tsx bench/cross-validate.ts LOCOMO_FILE');
  process.exit(2);
}
const doc = JSON.parse(readFileSync(file, 'utf8')) as Array<{ sample_id?: string }>;
const chosen = { ...CONTEXT_WEIGHTS };
const key = (w: typeof chosen) => `previous ${w.previous}, next ${w.next}, perWord ${w.perWord}`;
const settings: Record<string, typeof chosen> = {};
for (const previous of [0.5, 0.7, 0.9])
  for (const next of [0.2, 0.4, 0.6])
    for (const perWord of [2, 3, 4]) {
      const w = { previous, next, perWord };
      settings[key(w)] = w;
    }
settings[key(chosen)] = chosen;

const results: Record<string, Record<string, Tally>> = {};
for (const [i, conv] of doc.entries()) {
  const unit = conv.sample_id ?? `conversation ${i + 1}`;
  results[unit] = {};
  for (const [k, w] of Object.entries(settings)) {
    Object.assign(CONTEXT_WEIGHTS, w);
    const r = await evalLocomo([conv], { ks: [5] });
    results[unit][k] = { sum: r.recall['5']! * r.questions, n: r.questions };
  }
  console.error(`${unit}: ${Object.keys(settings).length} settings measured`);
}
Object.assign(CONTEXT_WEIGHTS, chosen);

const cv = crossValidate(results, settings, key(chosen));
const f = (x: number) => x.toFixed(3);
for (const fold of cv.folds) {
  console.log(
    `held out ${fold.held_out}: chose ${key(fold.chosen)} (${f(fold.train)} on the others); ` +
      `held-out recall@5 ${f(fold.held_out_score)}, default ${f(fold.default_score)}`,
  );
}
console.log(
  `cross-validated recall@5 (words): ${f(cv.cross_validated)} with each fold's choice, ` +
    `${f(cv.default_cross_validated)} with the default ${key(chosen)}`,
);
console.log(`dev (chosen on all three): ${key(cv.dev_choice)} at ${f(cv.dev)}`);
console.log(
  cv.adopt ? `every fold chose ${key(cv.adopt)}` : 'the folds disagree: keep the default',
);
