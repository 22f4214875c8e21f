/**
 * What migration 0024 costs a send without files: sends on a brain with its views (the message
 * index reads a message's files through a subquery) and on one whose views are put back as they
 * were before it, same code, interleaved rounds.
 * Usage: npx tsx bench/send-attachments-view.ts [sends per round, default 4000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openBrain } from '../src/index.js';
import Database from 'better-sqlite3';
import { registerIndexText } from '../src/db/index-text.js';

const OLD = `DROP VIEW messages_index; DROP VIEW messages_search;
CREATE VIEW messages_search AS
SELECT m.id AS id, coalesce(m.subject, t.subject) AS subject, m.body AS body,
       fa.name || ' to ' || coalesce(ta.name, 'everyone') AS sender,
       CAST(strftime('%d', m.created_at / 1000.0, 'unixepoch') AS INTEGER) || ' ' ||
       CASE strftime('%m', m.created_at / 1000.0, 'unixepoch')
         WHEN '01' THEN 'January' WHEN '02' THEN 'February' WHEN '03' THEN 'March'
         WHEN '04' THEN 'April' WHEN '05' THEN 'May' WHEN '06' THEN 'June'
         WHEN '07' THEN 'July' WHEN '08' THEN 'August' WHEN '09' THEN 'September'
         WHEN '10' THEN 'October' WHEN '11' THEN 'November' ELSE 'December' END || ' ' ||
       strftime('%Y', m.created_at / 1000.0, 'unixepoch') AS date
FROM messages m JOIN threads t ON t.id = m.thread_id JOIN agents fa ON fa.id = m.from_agent
LEFT JOIN agents ta ON ta.id = m.to_agent;
CREATE VIEW messages_index AS
SELECT id, brain_index_text_v1(subject) AS subject, brain_index_text_v1(body) AS body,
       brain_index_text_v1(sender) AS sender, date FROM messages_search;`;

async function rate(dbPath: string, n: number): Promise<number> {
  const brain = await openBrain({ dbPath });
  const thread = brain.messages.send({ from: 'a', to: 'b', body: 'start' }).thread_id;
  const body = 'the quick brown fox reports latency figures '.repeat(4);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) brain.messages.send({ from: 'a', to: 'b', body, thread });
  const ms = performance.now() - t0;
  brain.close();
  return (n / ms) * 1000;
}

const dir = mkdtempSync(join(tmpdir(), 'ab-'));
const n = Number(process.argv[2] ?? 4000);
const results: Record<string, number[]> = { with0024: [], before: [] };
for (let round = 0; round < 5; round++) {
  for (const variant of ['with0024', 'before'] as const) {
    const dbPath = join(dir, `${variant}-${round}.db`);
    (await openBrain({ dbPath })).close();
    if (variant === 'before') {
      const db = new Database(dbPath);
      registerIndexText(db);
      db.exec(OLD);
      db.close();
    }
    results[variant]!.push(await rate(dbPath, n));
  }
}
for (const [k, v] of Object.entries(results))
  console.log(
    k,
    v.map((x) => x.toFixed(0)).join(' '),
    'median',
    v.sort((a, b) => a - b)[2]!.toFixed(0),
  );
rmSync(dir, { recursive: true, force: true });
