import BetterSqlite3 from 'better-sqlite3';
/**
 * The agent loop's own cost per turn, against a model that answers at once: session lease, the
 * user message, the system prompt (workspace files, time, the memories relevant to the text: a
 * brain search), the context rebuilt from a session of `--session-messages` messages, the reply
 * and its usage row. Then the resident memory of an idle `brain chat`.
 *
 * Usage: npm run build && npx tsx bench/agent-turn.ts [--db FILE] [--turns N] [--session-messages N]
 *        [--questions N]
 * With --db, the brain is used as it is (e.g. one built by
 * `node dist/bin/main.js bench --messages 1000000 --keep --dir /tmp/al-1m`); a copy is not made,
 * the session `chat/bench-<time>` is added to it. Without --db, a fresh temp brain.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createSessionCache, primeSession } from '../agent/compaction.js';
import { runTurn, type TurnConfig } from '../agent/loop.js';
import { createUserFile } from '../agent/profile.js';
import { createSkillCatalog } from '../agent/skills/catalog.js';
import type { ModelPool, ModelResponse } from '../agent/models/types.js';
import { saveMemoryTool } from '../agent/tools/save-memory.js';
import { createSearchMemoryTool } from '../agent/tools/search-memory.js';
import type { Tool } from '../agent/tools/types.js';
import { openBrain, systemClock } from '../src/index.js';

const CLI = resolve(import.meta.dirname, '..', 'dist', 'bin', 'main.js');
const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    turns: { type: 'string', default: '200' },
    'session-messages': { type: 'string', default: '2000' },
    // How many different questions the turns cycle through (200: each turn a new one; 5: the
    // same five over and over, which flatters caches).
    questions: { type: 'string', default: '200' },
  },
});
const turns = Number(values.turns);
const sessionMessages = Number(values['session-messages']);
const questions = Number(values.questions);

const scratch = mkdtempSync(join(tmpdir(), 'brain-agent-bench-'));
const dbPath = values.db ?? join(scratch, 'brain.db');
const brain = await openBrain({ dbPath });

/** A model that answers at once: what remains is the loop's own time. */
const zeroPool: ModelPool = {
  complete: (): Promise<ModelResponse> =>
    Promise.resolve({
      content: [{ type: 'text', text: 'Noted.' }],
      stopReason: 'end_turn',
      usage: { input: 1200, output: 3, cacheRead: 0, cacheWrite: 0 },
      model: 'zero',
      endpoint: 'zero@0',
    }),
  status: () => [],
};

const config: TurnConfig = {
  agent: 'assistant',
  owner: 'bench-owner',
  workspace: scratch,
  maxRounds: 20,
  // Far above what 2,000 short messages reach: this measures turns, not compaction.
  compaction: { thresholdTokens: 10_000_000, keepRecentTokens: 20_000 },
  memory: { maxTokens: 1500, limit: 12 },
};
writeFileSync(join(scratch, 'SOUL.md'), 'You are a helpful assistant. Be brief.\n');

const session = `chat/bench-${Date.now()}`;
/**
 * What the owner asks about: a different question every turn (each topic in five phrasings), as a
 * person's turns are, so that each turn's memory search meets words the last ones did not.
 */
const topics = [
  'the garden',
  'my flight to Lisbon',
  'the tax return',
  'a birthday gift',
  'the boiler',
  'the dentist appointment',
  'the new laptop',
  'our trip to Kyoto',
  'the wedding playlist',
  'the kitchen renovation',
  'the quarterly report',
  'the dog walker',
  'my running plan',
  'the book club',
  'the car insurance',
  'the school fees',
  'the piano lessons',
  'the server migration',
  'the API rate limits',
  'the holiday budget',
  'the roof leak',
  'the conference talk',
  'the job offer',
  'the camping gear',
  'the garden fence',
  'the invoice from Marta',
  'the sdk release',
  'the cdn outage',
  'the hiking route',
  'the wine tasting',
  'the apartment lease',
  'the yoga class',
  'the passport renewal',
  'the team offsite',
  'the photo album',
  'the broken bike',
  'the podcast idea',
  'the vegetable patch',
  'the recipe for paella',
  'the parking permit',
];
const phrasings = [
  (topic: string) => `What did we decide about ${topic}?`,
  (topic: string) => `Remind me what I said about ${topic}.`,
  (topic: string) => `Any news on ${topic} since last week?`,
  (topic: string) => `Can you sum up where we are with ${topic}?`,
  (topic: string) => `When did I last mention ${topic}, and what was the plan?`,
];
/** Turn i's question: every topic once, then every topic in the next phrasing, … */
const question = (i: number) =>
  phrasings[Math.floor(i / topics.length) % phrasings.length]!(topics[i % topics.length]!);
const record = brain.assistant.session({ name: session, agent: config.agent, owner: config.owner });
process.stderr.write(`filling ${session} with ${sessionMessages} messages …\n`);
brain.batch(() => {
  for (let i = 0; i < sessionMessages / 2; i++) {
    const topic = topics[i % topics.length]!;
    const user = brain.messages.send({
      from: config.owner,
      to: config.agent,
      thread: record.thread_id,
      body: `Turn ${i}: a question about ${topic}, with a few more words to make it realistic.`,
    });
    brain.messages.send({
      from: config.agent,
      to: config.owner,
      thread: record.thread_id,
      reply_to: user.id,
      body: `An answer about ${topic} (turn ${i}), as long as a short reply usually is.`,
      metadata: {
        assistant: {
          rounds: [],
          model: 'zero',
          endpoint: 'zero@0',
          stop_reason: 'end_turn',
          context_tokens: 1203,
        },
      },
    });
  }
});

const tools: Tool[] = [saveMemoryTool as Tool, createSearchMemoryTool() as Tool];
// As `brain chat` runs: one cache for the process, so a turn reads only the messages new since the last.
const cache = createSessionCache();
const skills = createSkillCatalog(scratch);
const userFile = createUserFile();
// As `brain chat` does while the user types its first line: the search warmed (the first time in
// a brain, its census too), the session's context read and built.
const warmed = process.hrtime.bigint();
brain.search.warmSearch();
await brain.search.warmTimeWords();
primeSession(cache, brain, record.thread_id, config);
const warmMs = Number(process.hrtime.bigint() - warmed) / 1e6;
const times: number[] = [];
/**
 * Between two turns a person reads and types, and within one the model takes seconds: in that idle
 * time `brain chat` and `brain agent` do their upkeep (src/maintenance/idle.ts: merging the word
 * index, emptying the WAL, writing noted counts). Here it runs between turns, timed apart.
 */
const upkeep: number[] = [];
for (let i = 0; i < turns; i++) {
  const idle = process.hrtime.bigint();
  brain.upkeep.maintain();
  upkeep.push(Number(process.hrtime.bigint() - idle) / 1e6);
  const started = process.hrtime.bigint();
  await runTurn({
    brain,
    pool: zeroPool,
    tools,
    config,
    clock: systemClock,
    session,
    input: { text: question(i % questions) },
    io: { onText: () => {} },
    source: 'bench',
    cache,
    // As createAssistant wires them: a workspace without skills/ or USER.md costs two stats.
    skills,
    userFile,
  });
  times.push(Number(process.hrtime.bigint() - started) / 1e6);
}
brain.close();

const sorted = [...times].sort((a, b) => a - b);
const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const count = (brainCount(dbPath) ?? 0).toLocaleString('en');
console.log(
  `agent turn (zero-latency model, ${count} messages in the brain, session of ${sessionMessages}+, ${questions} questions in turn): ` +
    `p50 ${at(0.5).toFixed(2)} ms, p90 ${at(0.9).toFixed(2)} ms, p99 ${at(0.99).toFixed(2)} ms, max ${sorted.at(-1)!.toFixed(2)} ms over ${turns} turns`,
);

const upkeepSorted = [...upkeep].sort((a, b) => a - b);
console.log(
  `upkeep between turns (idle in brain chat): mean ${(upkeep.reduce((a, b) => a + b, 0) / turns).toFixed(2)} ms, ` +
    `max ${upkeepSorted.at(-1)!.toFixed(1)} ms`,
);
console.log(`warm-up before the first turn (idle in brain chat): ${warmMs.toFixed(0)} ms`);
console.log(`idle brain chat: ${await idleRss(dbPath)}`);
rmSync(scratch, { recursive: true, force: true });

function brainCount(path: string): number | undefined {
  // Its own read-only connection: the library keeps its own private.
  const db = new BetterSqlite3(path, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM messages').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/**
 * Start `brain chat`, wait for its prompt and then for its warm-up (it runs once the prompt is
 * shown: the resident set grows while the search's lists are read) until the private memory has
 * not moved by 1% for two seconds (30 s at most), read the resident set from /proc, quit.
 */
function idleRss(db: string): Promise<string> {
  const config = join(scratch, 'assistant.json');
  writeFileSync(config, JSON.stringify({ owner: 'bench-owner', workspace: scratch }));
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      [CLI, 'chat', '--session', 'bench-idle', '--config', config],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...process.env, BRAIN_DB: db, BRAIN_EMBEDDER: 'none', ANTHROPIC_API_KEY: 'unused' },
      },
    );
    const kb = (status: string, field: string) =>
      Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    child.stdout.once('data', () => {
      const started = Date.now();
      const seen: number[] = [];
      const poll = setInterval(() => {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        seen.push(kb(status, 'RssAnon'));
        const recent = seen.slice(-5);
        const settled =
          recent.length === 5 && Math.max(...recent) - Math.min(...recent) <= recent[0]! / 100;
        if (!settled && Date.now() - started < 30_000) return;
        clearInterval(poll);
        const mb = (field: string) => (kb(status, field) / 1024).toFixed(1);
        child.stdin.end('/exit\n');
        // The brain's file is read through a memory map: its pages count in the resident set,
        // shared with the OS page cache; the process's own memory is RssAnon.
        child.once('close', () =>
          done(
            `${mb('VmRSS')} MB resident (${mb('RssAnon')} MB private, ${mb('RssFile')} MB of mapped files), ` +
              `${((Date.now() - started) / 1000).toFixed(1)} s after the prompt`,
          ),
        );
      }, 500);
    });
    child.once('error', fail);
  });
}
