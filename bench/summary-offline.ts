// The offline summarizer against LoCoMo's session summaries: each session of each conversation
// is one thread (a turn's sender its speaker, its photo described as the drain would hand it over),
// summarized once, its summary scored by token F1 against the annotator's (summary_f1, the mean
// over sessions), with the summaries' lengths and the time taken.
//   npx tsx bench/summary-offline.ts ../shared/eval/locomo-dev.json [--dump FILE]
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { readLocomoObservations, summaryF1 } from '../src/eval/extract-metrics.js';
import { summarizeOffline } from '../src/knowledge/extract/summary-offline.js';
import type { ExtractTurn } from '../src/knowledge/extract/types.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { dump: { type: 'string' } },
});
const file = positionals[0];
if (!file) {
  process.stderr.write('usage: tsx bench/summary-offline.ts LOCOMO.json [--dump FILE]\n');
  process.exit(2);
}
const conversations = readLocomoObservations(JSON.parse(readFileSync(file, 'utf8')) as unknown);

const sessions: Array<{ id: string; turns: ExtractTurn[]; reference: string }> = [];
for (const conv of conversations) {
  const [a, b] = conv.speakers;
  const references = new Map(conv.summaries.map((s) => [s.session, s.text]));
  for (const session of conv.sessions) {
    const reference = references.get(session.index);
    if (!reference) continue;
    const turns = session.turns.map((t, i): ExtractTurn => ({
      id: t.dia_id,
      thread_id: `${conv.id}-session-${session.index}`,
      sender: t.speaker,
      recipients: [t.speaker === a ? b : a],
      // LoCoMo's sessions have no subject.
      subject: null,
      body: [
        t.text.trim(),
        t.blip_caption ? `[shares a photo of ${t.blip_caption.replace(/^a photo of /i, '')}]` : '',
      ]
        .filter(Boolean)
        .join(' '),
      created_at: new Date(Date.parse(session.date) + i * 30_000).toISOString(),
    }));
    sessions.push({ id: `${conv.id} s${session.index}`, turns, reference });
  }
}

const dump: Array<{ session: string; f1: number; summary: string; reference: string }> = [];
let total = 0;
let chars = 0;
const start = performance.now();
for (const s of sessions) {
  const summary = summarizeOffline(s.turns);
  const f1 = summaryF1(summary, s.reference);
  total += f1;
  chars += summary.length;
  dump.push({ session: s.id, f1, summary, reference: s.reference });
}
const ms = performance.now() - start;
const byConversation = new Map<string, number[]>();
for (const d of dump) {
  const conv = d.session.split(' ')[0]!;
  byConversation.set(conv, [...(byConversation.get(conv) ?? []), d.f1]);
}
for (const [conv, f1s] of byConversation)
  console.log(
    `${conv.padEnd(10)}  summary_f1 ${(f1s.reduce((x, y) => x + y, 0) / f1s.length).toFixed(3)}  (${f1s.length} sessions)`,
  );
console.log(
  `overall     summary_f1 ${(total / sessions.length).toFixed(3)}  (${sessions.length} sessions; ` +
    `mean length ${Math.round(chars / sessions.length)} characters, reference ` +
    `${Math.round(sessions.reduce((n, s) => n + s.reference.length, 0) / sessions.length)})`,
);
console.log(`${sessions.length} sessions in ${ms.toFixed(0)} ms`);
if (values.dump) writeFileSync(values.dump, JSON.stringify(dump, null, 1));
