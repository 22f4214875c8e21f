// The offline extractor against LoCoMo's annotated observations: each conversation's turns read
// in order (a turn's id is its dia_id, its sender the speaker, `before` the three turns before
// it in its session), then the extraction metrics per conversation and over all, and turns/s.
//   npx tsx bench/extract-offline.ts ../shared/eval/locomo-dev.json [--dump FILE] [--threshold F]
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import {
  combineMetrics,
  CONTENT_F1_THRESHOLD,
  readLocomoObservations,
  scoreExtraction,
  type ExtractMetrics,
  type LocomoObservation,
} from '../src/eval/extract-metrics.js';
import { extractOffline } from '../src/knowledge/extract/offline.js';
import type { ExtractedEntry, ExtractTurn } from '../src/knowledge/extract/types.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { dump: { type: 'string' }, threshold: { type: 'string' } },
});
const file = positionals[0];
if (!file) {
  process.stderr.write('usage: tsx bench/extract-offline.ts LOCOMO.json [--dump FILE]\n');
  process.exit(2);
}
const threshold = values.threshold ? Number(values.threshold) : CONTENT_F1_THRESHOLD;
const conversations = readLocomoObservations(JSON.parse(readFileSync(file, 'utf8')) as unknown);

function line(name: string, m: ExtractMetrics): string {
  const f = (x: number) => x.toFixed(3);
  return [
    name.padEnd(10),
    `provenance_recall ${f(m.provenance_recall)}`,
    `content_recall ${f(m.content_recall)}`,
    `entries_per_observation ${f(m.entries_per_observation)}`,
    `evidence_share ${f(m.evidence_share)}`,
    `(${m.observations} observations, ${m.entries} entries)`,
  ].join('  ');
}

/** Each turn as the drain hands it over, with the three before it in its session. */
interface Step {
  turn: ExtractTurn;
  before: ExtractTurn[];
}
const parts: ExtractMetrics[] = [];
const steps: Step[] = [];
const scored: Array<{ entries: ExtractedEntry[]; observations: LocomoObservation[] }> = [];
const categories = new Map<string, number>();
const dump: Array<{ conversation: string; turn: string; body: string; entries: ExtractedEntry[] }> =
  [];
for (const conv of conversations) {
  const [a, b] = conv.speakers;
  const entries: ExtractedEntry[] = [];
  for (const session of conv.sessions) {
    const read: ExtractTurn[] = [];
    session.turns.forEach((t, i) => {
      const caption = t.blip_caption
        ? `[shares a photo of ${t.blip_caption.replace(/^a photo of /i, '')}]`
        : '';
      const turn: ExtractTurn = {
        id: t.dia_id,
        thread_id: `${conv.id}-session-${session.index}`,
        sender: t.speaker,
        recipients: [t.speaker === a ? b : a],
        subject: `Session ${session.index}`,
        body: [t.text.trim(), caption].filter(Boolean).join(' '),
        created_at: new Date(Date.parse(session.date) + i * 30_000).toISOString(),
      };
      const before = read.slice(-3);
      steps.push({ turn, before });
      const got = extractOffline(turn, before);
      entries.push(...got);
      if (values.dump)
        dump.push({ conversation: conv.id, turn: t.dia_id, body: turn.body, entries: got });
      read.push(turn);
    });
  }
  for (const e of entries) categories.set(e.category, (categories.get(e.category) ?? 0) + 1);
  scored.push({ entries, observations: conv.observations });
  const m = scoreExtraction(entries, conv.observations, threshold);
  parts.push(m);
  console.log(line(conv.id, m));
}
console.log(line('overall', combineMetrics(parts)));
const sweep = [0.2, 0.25, 0.3, 0.4, 0.5].map((t) => {
  const all = combineMetrics(scored.map((c) => scoreExtraction(c.entries, c.observations, t)));
  return `${t}: ${all.content_recall.toFixed(3)}`;
});
console.log(`content_recall by threshold  ${sweep.join('  ')}`);
console.log(`entries by category  ${[...categories].map(([c, n]) => `${c} ${n}`).join('  ')}`);
// Speed over five more passes, after the first has compiled the patterns.
const start = performance.now();
for (let pass = 0; pass < 5; pass++) for (const s of steps) extractOffline(s.turn, s.before);
const ms = performance.now() - start;
console.log(
  `content F1 threshold ${threshold}; ${steps.length} turns × 5 in ${ms.toFixed(0)} ms: ${Math.round((steps.length * 5 * 1000) / ms)} turns/s`,
);
if (values.dump) writeFileSync(values.dump, JSON.stringify(dump, null, 1));
