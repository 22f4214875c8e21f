import { connectionOf } from '../../../src/brain.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENTS, BACKLOG_AGENTS, buildBrain, type BuildStats } from '../../../cli/bench/build.js';
import { createChatText, GENERATED_SOURCE } from '../../../cli/bench/chat-text.js';
import { benchText } from '../../../cli/bench/corpus.js';
import { benchQueries } from '../../../cli/bench/queries.js';
import { tempBrain, type TempBrain } from '../../helpers.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const N = 2000;
let t: TempBrain;
let stats: BuildStats;
const count = (sql: string) => (connectionOf(t.brain).prepare(sql).get() as { n: number }).n;

beforeAll(async () => {
  t = await tempBrain();
  stats = await buildBrain(t.brain, {
    messages: N,
    text: createChatText(),
    now: Date.parse('2026-06-01T00:00:00Z'),
  });
});
afterAll(() => t.cleanup());

describe('the benchmark builder', () => {
  it('writes N messages with STM entries and atoms at 10% each, most with a source', () => {
    expect(count(`SELECT count(*) AS n FROM messages`)).toBe(N);
    expect(count(`SELECT count(*) AS n FROM stm`)).toBe(N / 10);
    expect(count(`SELECT count(*) AS n FROM atoms`)).toBe(N / 10);
    const stmSourced = count(`SELECT count(*) AS n FROM stm WHERE source_message_id IS NOT NULL`);
    const atomSourced = count(
      `SELECT count(*) AS n FROM atoms WHERE source_message_id IS NOT NULL`,
    );
    expect(stmSourced).toBe(stats.stm_with_source);
    expect(atomSourced).toBe(stats.atoms_with_source);
    expect(stmSourced / (N / 10)).toBeGreaterThan(0.65);
    expect(count(`SELECT count(*) AS n FROM atom_links`)).toBe(stats.links);
    expect(stats.links).toBeGreaterThan(0);
  });

  it('has twenty agents, ~10% broadcasts, replies, priorities and threads of varying length', () => {
    expect(count(`SELECT count(*) AS n FROM agents`)).toBe(AGENTS.length);
    const broadcasts = count(`SELECT count(*) AS n FROM messages WHERE to_agent IS NULL`);
    expect(broadcasts).toBe(stats.broadcasts);
    expect(broadcasts / N).toBeGreaterThan(0.07);
    expect(broadcasts / N).toBeLessThan(0.13);
    expect(count(`SELECT count(*) AS n FROM messages WHERE reply_to IS NOT NULL`)).toBe(
      stats.replies,
    );
    expect(count(`SELECT count(DISTINCT priority) AS n FROM messages`)).toBe(4);
    expect(count(`SELECT count(*) AS n FROM threads`)).toBe(stats.threads);
    expect(count(`SELECT max(message_count) AS n FROM threads`)).toBeGreaterThanOrEqual(60);
    expect(count(`SELECT count(*) AS n FROM threads WHERE message_count = 1`)).toBeGreaterThan(0);
    expect(stats.long_thread.messages).toBe(count(`SELECT max(message_count) AS n FROM threads`));
  });

  it('spreads messages over about a year, in order', () => {
    const span = connectionOf(t.brain)
      .prepare(`SELECT min(created_at) AS lo, max(created_at) AS hi FROM messages`)
      .get() as { lo: number; hi: number };
    const days = (span.hi - span.lo) / 86_400_000;
    expect(days).toBeGreaterThan(350);
    expect(days).toBeLessThanOrEqual(366);
    expect(span.hi).toBeLessThan(Date.parse('2026-06-01'));
  });

  it('leaves most mail read, and unread backlogs with the agents that stopped reading', () => {
    const unread = count(`SELECT count(*) AS n FROM deliveries WHERE read_at IS NULL`);
    const all = count(`SELECT count(*) AS n FROM deliveries`);
    expect(unread).toBe(Object.values(stats.unread).reduce((a, b) => a + b, 0));
    expect(unread / all).toBeLessThan(0.5);
    // Agents that keep reading have read the great majority of their mail.
    const names = BACKLOG_AGENTS.map((a) => `'${a}'`).join(', ');
    const theirs = `FROM deliveries d JOIN agents a ON a.id = d.agent_id WHERE a.name NOT IN (${names})`;
    const theirUnread = count(`SELECT count(*) AS n ${theirs} AND d.read_at IS NULL`);
    expect(theirUnread / count(`SELECT count(*) AS n ${theirs}`)).toBeLessThan(0.2);
    const backlog = Math.min(...BACKLOG_AGENTS.map((a) => stats.unread[a]!));
    const others = AGENTS.filter((a) => !(BACKLOG_AGENTS as readonly string[]).includes(a)).map(
      (a) => stats.unread[a]!,
    );
    expect(backlog).toBeGreaterThan(Math.max(...others) / 2);
    expect(others.some((n) => n > 0)).toBe(true);
  });

  it('writes varied text, not a few sentences repeated', () => {
    const distinct = count(`SELECT count(DISTINCT body) AS n FROM messages`);
    expect(distinct / N).toBeGreaterThan(0.8);
    expect(stats.body_bytes / N).toBeGreaterThan(80);
  });

  it('samples knowledge ids with a source for find_provenance', () => {
    expect(stats.knowledge_sample.length).toBeGreaterThan(50);
    const p = t.brain.knowledge.provenance({ id: stats.knowledge_sample[0]! });
    expect(p.message).not.toBeNull();
  });
});

describe('the corpus and the queries', () => {
  it('is generated chat when no file is given: no file needed, the same text for a seed', async () => {
    const a = await benchText(undefined);
    const b = await benchText(undefined);
    expect(a.source).toBe(GENERATED_SOURCE);
    const bodies = Array.from({ length: 50 }, () => a.body());
    expect(Array.from({ length: 50 }, () => b.body())).toEqual(bodies);
    expect(createChatText(2).body()).not.toEqual(bodies[0]);
  });

  it('derives its text from a LoCoMo file when one is given', async () => {
    const chat = createChatText(3);
    const turns = Array.from({ length: 30 }, (_, i) => ({
      speaker: i % 2 ? 'Ada' : 'Bo',
      dia_id: `D1:${i + 1}`,
      text: `Zanzibar ${chat.sentence()}`,
    }));
    const conversation = {
      speaker_a: 'Ada',
      speaker_b: 'Bo',
      session_1: turns,
      session_1_date_time: '1:56 pm on 8 May, 2023',
    };
    const file = join(t.dir, 'corpus.json');
    writeFileSync(file, JSON.stringify([{ conversation, qa: [] }]));
    const text = await benchText(file);
    expect(text.source).toBe(file);
    expect(text.body()).toMatch(/Zanzibar/);
  });

  it('writes chat: many short messages, some long ones, a long tail of words', () => {
    const chat = createChatText();
    const lengths: number[] = [];
    const counts = new Map<string, number>();
    for (let i = 0; i < 20_000; i++) {
      const body = chat.body();
      lengths.push(Buffer.byteLength(body));
      for (const w of body.toLowerCase().match(/[a-z]+/g) ?? [])
        counts.set(w, (counts.get(w) ?? 0) + 1);
    }
    lengths.sort((x, y) => x - y);
    const mean = lengths.reduce((x, y) => x + y, 0) / lengths.length;
    // As LoCoMo's turns with their asides: ~167 bytes on average (580 bytes per message stored).
    expect(mean).toBeGreaterThan(140);
    expect(mean).toBeLessThan(190);
    expect(lengths[Math.floor(lengths.length * 0.1)]!).toBeLessThan(30); // reactions, one-liners
    expect(lengths[Math.floor(lengths.length * 0.99)]!).toBeGreaterThan(500); // long messages
    // Zipf-like: a few words are everywhere, thousands are rare.
    const ranked = [...counts.values()].sort((x, y) => y - x);
    expect(ranked.length).toBeGreaterThan(3000);
    expect(ranked.filter((c) => c <= 2).length).toBeGreaterThan(1000);
    expect(ranked[0]! / ranked[99]!).toBeGreaterThan(20);
  });

  it('has a fixed set of 50 distinct queries, the same for every run', () => {
    const a = benchQueries(createChatText());
    const b = benchQueries(createChatText(99));
    expect(a).toHaveLength(50);
    expect(new Set(a).size).toBe(50);
    expect(b).toEqual(a);
  });
});
