import { afterEach, describe, expect, it } from 'vitest';
import {
  SUMMARY_SYSTEM,
  TRUNCATED_NOTE,
  chooseCut,
  createSessionCache,
  estimateContext,
  primeSession,
  transcript,
} from '../../agent/compaction.js';
import { buildHistory, unpairedToolUses } from '../../agent/history.js';
import type { ChatMessage } from '../../agent/models/types.js';
import type { MessageRecord } from '../../src/index.js';
import { tempBrain } from '../helpers.js';
import { assistantFixture, type AssistantFixture } from './helpers.js';
import { WHO, randomThread } from './random-thread.js';

let n = 0;
function rec(from: string, body: string, metadata: Record<string, unknown> = {}): MessageRecord {
  n++;
  return {
    id: `syn_${String(n).padStart(12, '0')}`,
    thread_id: 'thr_x',
    from,
    to: null,
    reply_to: null,
    priority: 'normal',
    subject: 'chat/default',
    body,
    metadata,
    created_at: '2026-03-01T10:00:00.000Z',
  };
}
const words = (k: number) => 'word '.repeat(k);

describe('chooseCut', () => {
  it('cuts only before a message that starts a turn, keeping about keepRecentTokens', () => {
    const records = [
      rec('ann', words(100)),
      rec('assistant', words(100)),
      rec('ann', words(100)),
      rec('assistant', words(100)),
      rec('ann', 'now'),
    ];
    // 100 words ≈ 125 tokens: keeping 200 needs the last turn and the one before.
    expect(chooseCut(records, 'assistant', 200)).toBe(2);
    expect(chooseCut(records, 'assistant', 1)).toBe(4);
    expect(chooseCut(records, 'assistant', 10_000)).toBe(4);
  });

  it('never cuts between a reply and the message it answers, however the sizes fall', () => {
    const records = [rec('ann', 'q'), rec('assistant', words(400)), rec('ann', 'q2')];
    for (const keep of [1, 50, 400, 600]) {
      const cut = chooseCut(records, 'assistant', keep)!;
      expect(records[cut]!.from).toBe('ann');
    }
    expect(chooseCut([rec('ann', 'only')], 'assistant', 10)).toBeUndefined();
  });
});

describe('estimateContext', () => {
  it('takes the last reply’s reported tokens and adds an estimate of what came after', () => {
    const records = [
      rec('ann', 'hi'),
      rec('assistant', 'hello', { assistant: { rounds: [], context_tokens: 5000 } }),
      rec('ann', words(40)),
    ];
    expect(estimateContext(records, [], '', 'assistant')).toBe(5000 + 50);
  });

  it('falls back to characters over four when no reply reported a size', () => {
    const history: ChatMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'x'.repeat(400) }] },
    ];
    const size = estimateContext([rec('ann', 'x')], history, 'y'.repeat(400), 'assistant');
    expect(size).toBeGreaterThanOrEqual(200);
    expect(size).toBeLessThan(260);
  });
});

describe('transcript', () => {
  it('shows who said what when, and which tools ran with what result', () => {
    const text = transcript(
      'Earlier: Ann moved to Bern.',
      [
        rec('ann', 'save my flight LX318'),
        rec('assistant', 'Saved.', {
          assistant: {
            rounds: [
              {
                content: [
                  {
                    type: 'tool_use',
                    id: 't1',
                    name: 'save_memory',
                    input: { content: 'flight LX318' },
                  },
                ],
                results: [{ type: 'tool_result', tool_use_id: 't1', content: 'saved stm_1' }],
              },
            ],
          },
        }),
      ],
      'assistant',
    );
    expect(text).toContain('Earlier: Ann moved to Bern.');
    expect(text).toContain('[2026-03-01 10:00] ann: save my flight LX318');
    expect(text).toContain('(assistant called save_memory {"content":"flight LX318"})');
    expect(text).toContain('(result: saved stm_1)');
  });
});

let f: AssistantFixture;
afterEach(async () => f?.close());

/** Two turns (the first with a tool round), the second reporting a large context. */
async function twoTurns() {
  f.fake.script.push(
    {
      text: 'Saving.',
      toolUses: [
        {
          id: 'toolu_old',
          name: 'save_memory',
          input: { content: 'Ann’s flight is LX318 on 3 March' },
        },
      ],
    },
    { text: 'Saved your flight.' },
    { text: 'Bern, noted.', usage: { input_tokens: 5000, output_tokens: 4 } },
  );
  const first = await f.turn('my flight is LX318 on 3 March');
  const second = await f.turn('I moved to Bern');
  return { first, second };
}

describe('compaction in a turn', () => {
  it('saves silently, summarises the older turns into searchable STM sourced from the last one it covers, and continues from it', async () => {
    f = await assistantFixture({ compaction: { thresholdTokens: 1000, keepRecentTokens: 20 } });
    const { first, second } = await twoTurns();
    f.fake.script.push(
      {
        text: 'silent words',
        toolUses: [{ name: 'save_memory', input: { content: 'Ann lives in Bern' } }],
      },
      {
        text: '## People and names\nAnn\n## Facts (with numbers and dates)\nFlight LX318 on 3 March',
      },
      { text: 'Your flight is LX318.' },
    );
    const streamedBefore = f.streamed.join('');
    const third = await f.turn('when is my flight?');
    expect(third.reply).toBe('Your flight is LX318.');

    const [silent, summary, turn] = f.fake.requests.slice(-3).map((r) => r.body as any);
    expect(silent.tools.map((t: any) => t.name)).toEqual(['save_memory']);
    expect(f.streamed.join('').slice(streamedBefore.length)).not.toContain('silent words');
    expect(JSON.stringify(summary.system)).toContain(SUMMARY_SYSTEM.slice(0, 40));
    expect(JSON.stringify(summary.messages)).toContain('LX318');

    const stored = f.t.brain.assistant.latestSummary(third.threadId)!;
    expect(stored.stm.categories).toEqual(['summary']);
    expect(stored.stm.agent).toBe('assistant');
    // The cut kept the newest turn only: the summary covers through the first turn's reply.
    expect(stored.covers_through).toBe(first.messageIds.reply);
    const prov = f.t.brain.knowledge.provenance({ id: stored.stm.id });
    expect(prov.message!.id).toBe(first.messageIds.reply);
    expect(prov.thread!.id).toBe(third.threadId);
    const hits = f.t.brain.search.search({ query: 'LX318 flight', types: ['stm'] }).hits;
    expect(hits.map((h) => h.id)).toContain(stored.stm.id);
    expect(f.t.brain.knowledge.listStm().map((s) => s.content)).toContain('Ann lives in Bern');

    const messages = turn.messages as ChatMessage[];
    expect((messages[0]!.content[0] as any).text).toMatch(/^Summary of the conversation so far/);
    expect(JSON.stringify(messages)).not.toContain('toolu_old');
    expect(JSON.stringify(messages)).toContain('I moved to Bern');
    expect(JSON.stringify(messages)).toContain(second.reply);
    expect(unpairedToolUses(messages)).toEqual([]);
    expect(
      f.t.brain.assistant.usage({ by: 'source' }).find((r: any) => r.key === 'compaction'),
    ).toMatchObject({ calls: 2 });
  });

  it('marks a summary of foreign content, and what the silent turn saves from it, as foreign', async () => {
    f = await assistantFixture({ compaction: { thresholdTokens: 1000, keepRecentTokens: 20 } });
    f.t.brain.knowledge.remember({ agent: 'ann', content: 'Ann lives in Bern' });
    f.fake.script.push(
      { toolUses: [{ id: 'toolu_s', name: 'search_memory', input: { query: 'Bern' } }] },
      { text: 'You live in Bern.' },
      { text: 'Noted.', usage: { input_tokens: 5000, output_tokens: 4 } },
    );
    await f.turn('where do I live?');
    await f.turn('thanks');
    f.fake.script.push(
      { toolUses: [{ name: 'save_memory', input: { content: 'Ann lives in Bern (checked)' } }] },
      { text: '## Facts\nAnn lives in Bern' },
      { text: 'ok' },
    );
    const third = await f.turn('and now?');
    const summary = f.t.brain.assistant.latestSummary(third.threadId)!;
    expect(summary.stm.content).toMatch(/<untrusted source="compacted:tool:search_memory">/);
    const saved = f.t.brain.knowledge
      .listStm()
      .find((s) => s.content === 'Ann lives in Bern (checked)');
    expect(saved!.categories).toEqual(['foreign']);
    // The turn after the summary is tainted by it.
    const reply = f.t.brain.messages.getMessage(third.messageIds.reply)!;
    expect(reply.metadata.assistant).toMatchObject({ taint: ['compacted:tool:search_memory'] });
  });

  it('keeps tool pairs whole when the cut falls after a turn with tool rounds', async () => {
    f = await assistantFixture({ compaction: { thresholdTokens: 1000, keepRecentTokens: 400 } });
    await twoTurns();
    f.fake.script.push({ text: 'nothing to save' }, { text: 'summary' }, { text: 'ok' });
    await f.turn('next');
    const messages = f.fake.requests.at(-1)!.body.messages as ChatMessage[];
    expect(unpairedToolUses(messages)).toEqual([]);
  });

  it('leaves older turns out with a note when the summary fails', async () => {
    f = await assistantFixture({ compaction: { thresholdTokens: 1000, keepRecentTokens: 20 } });
    await twoTurns();
    f.fake.script.push(
      { text: 'nothing' },
      { error: 'bad_request', message: 'nope' },
      { text: 'ok' },
    );
    const third = await f.turn('hello again');
    expect(third.reply).toBe('ok');
    const messages = f.fake.requests.at(-1)!.body.messages as ChatMessage[];
    expect(JSON.stringify(messages[0])).toContain(TRUNCATED_NOTE);
    expect(JSON.stringify(messages)).not.toContain('LX318');
    expect(f.t.brain.assistant.latestSummary(third.threadId)).toBeUndefined();
  });

  it('compacts and retries once when the model says the prompt is too long', async () => {
    f = await assistantFixture();
    await twoTurns();
    f.fake.script.push(
      { error: 'prompt_too_long' },
      { text: 'nothing to save' },
      { text: 'the summary' },
      { text: 'fits now' },
    );
    const third = await f.turn('and now?');
    expect(third.reply).toBe('fits now');
    expect(f.t.brain.assistant.latestSummary(third.threadId)!.stm.content).toBe('the summary');
  });
});

describe('the session cache', () => {
  it('keeps the sessions used last, and reads a session it dropped whole again', async () => {
    const t = await tempBrain();
    try {
      const threads = ['a', 'b', 'c'].map((name) => {
        const s = t.brain.assistant.session({
          name: `chat/${name}`,
          agent: 'assistant',
          owner: 'ann',
        });
        t.brain.messages.send({
          from: 'ann',
          to: 'assistant',
          thread: s.thread_id,
          body: `hello ${name}`,
        });
        return s.thread_id;
      });
      const reads: Array<[string, string | undefined]> = [];
      const sessionMessages = t.brain.assistant.sessionMessages;
      t.brain.assistant.sessionMessages = (input) => {
        reads.push([input.thread_id, input.after]);
        return sessionMessages(input);
      };
      const cache = createSessionCache({ sessions: 2 });
      const load = (i: number) => cache.load(t.brain, threads[i]!, undefined, WHO);
      load(0);
      load(1);
      load(0); // a used again: b is now the least recently used
      load(2); // c drops b
      reads.length = 0;
      load(0);
      load(2);
      load(1);
      // a and c are kept (read after their last message), b was dropped (read whole).
      expect(
        reads.map(([thread, after]) => [threads.indexOf(thread), after !== undefined]),
      ).toEqual([
        [0, true],
        [2, true],
        [1, false],
      ]);
    } finally {
      t.cleanup();
    }
  });

  it('primed while idle, reads only what is new at the first turn', async () => {
    const t = await tempBrain();
    try {
      const session = t.brain.assistant.session({
        name: 'chat/x',
        agent: 'assistant',
        owner: 'ann',
      });
      for (let i = 0; i < 6; i++)
        t.brain.messages.send({
          from: 'ann',
          to: 'assistant',
          thread: session.thread_id,
          body: `line ${i}`,
        });
      const reads: Array<string | undefined> = [];
      const sessionMessages = t.brain.assistant.sessionMessages;
      t.brain.assistant.sessionMessages = (input) => {
        reads.push(input.after);
        return sessionMessages(input);
      };
      const cache = createSessionCache();
      primeSession(cache, t.brain, session.thread_id, WHO);
      const last = t.brain.messages.send({
        from: 'ann',
        to: 'assistant',
        thread: session.thread_id,
        body: 'new line',
      });
      const loaded = cache.load(t.brain, session.thread_id, undefined, WHO);
      // The whole session once, while idle; then only after its newest message.
      expect(reads).toHaveLength(2);
      expect(reads[0]).toBeUndefined();
      expect(reads[1]).toBe(loaded.records.at(-2)!.id);
      expect(loaded.records.at(-1)!.id).toBe(last.id);
      expect(loaded.history).toEqual(
        buildHistory({
          ...WHO,
          messages: t.brain.assistant.sessionMessages({ thread_id: session.thread_id }),
        }),
      );
    } finally {
      t.cleanup();
    }
  });

  it('gives the same context as a full read, with what other processes added since', async () => {
    f = await assistantFixture();
    const cache = createSessionCache();
    const first = await f.turn('one', { cache });
    const other = await f.t.reopen();
    other.messages.send({
      from: 'helios',
      to: 'assistant',
      thread: first.threadId,
      body: 'from elsewhere',
    });
    await f.turn('two', { cache });
    const cached = f.fake.requests.at(-1)!.body.messages as ChatMessage[];
    expect(JSON.stringify(cached)).toContain('from elsewhere');
    const full = buildHistory({
      agent: 'assistant',
      owner: 'ann',
      messages: f.t.brain.assistant.sessionMessages({ thread_id: first.threadId }).slice(0, -1),
    });
    expect(cached).toEqual(full);
  });

  it('reads afresh once a summary covers part of the session', async () => {
    f = await assistantFixture({ compaction: { thresholdTokens: 1000, keepRecentTokens: 20 } });
    const cache = createSessionCache();
    f.fake.script.push({ text: 'a', usage: { input_tokens: 5000 } });
    await f.turn('first turn', { cache });
    f.fake.script.push({ text: 'nothing' }, { text: 'the summary' }, { text: 'b' });
    await f.turn('second turn', { cache });
    const messages = f.fake.requests.at(-1)!.body.messages as ChatMessage[];
    expect(JSON.stringify(messages)).not.toContain('first turn');
    expect(JSON.stringify(messages[0])).toContain('the summary');
  });

  it('keeps what a turn adds to its context (tool rounds, a question said again) out of the next turn’s', async () => {
    f = await assistantFixture();
    const cache = createSessionCache();
    f.fake.script.push(
      { text: 'Saving.', toolUses: [{ name: 'save_memory', input: { content: 'Ann likes tea' } }] },
      { text: 'Saved.' },
    );
    const first = await f.turn('remember that I like tea', { cache });
    const send = (body: string) =>
      f.t.brain.messages.send({ from: 'helios', to: 'assistant', thread: first.threadId, body });
    const h1 = send('first question from helios');
    const h2 = send('second question from helios');
    const asHelios = (m: { id: string }, text: string) =>
      f.turn(text, { cache, input: { text, from: 'helios', messageId: m.id } });
    await asHelios(h1, 'first question from helios');
    // The context ends with the reply to h1, so this turn says h2 again at its end.
    await asHelios(h2, 'second question from helios');
    const said = f.fake.requests.at(-1)!.body.messages as ChatMessage[];
    expect(JSON.stringify(said.at(-1))).toContain('second question from helios');
    await f.turn('and now?', { cache });
    const cached = f.fake.requests.at(-1)!.body.messages as ChatMessage[];
    const full = buildHistory({
      agent: 'assistant',
      owner: 'ann',
      messages: f.t.brain.assistant.sessionMessages({ thread_id: first.threadId }).slice(0, -1),
    });
    expect(cached).toEqual(full);
    expect(JSON.stringify(cached).split('second question from helios')).toHaveLength(2);
  });

  it('gives buildHistory’s output over the whole thread at every turn of random sessions, summaries included', async () => {
    const t = await tempBrain();
    try {
      const { brain } = t;
      for (let seed = 1; seed <= 12; seed++) {
        const thread = randomThread(seed, { blankBodies: false });
        const threadId = brain.assistant.session({ name: `chat/random-${seed}`, ...WHO }).thread_id;
        const cache = createSessionCache();
        const ids: string[] = [];
        for (let step = 0; step < 25; step++) {
          const added = 1 + Math.floor(thread.rand() * 3);
          for (let i = 0; i < added; i++) {
            const m = thread.next();
            ids.push(brain.messages.send({ ...m, to: null, thread: threadId }).id);
          }
          const latest = brain.assistant.latestSummary(threadId);
          const from = latest ? ids.indexOf(latest.covers_through) + 1 : 0;
          if (thread.rand() < 0.1 && ids.length - from > 1) {
            const through = ids[from + Math.floor(thread.rand() * (ids.length - from - 1))]!;
            const content = `summary ${seed}/${step}`;
            brain.knowledge.remember({
              agent: WHO.agent,
              content,
              categories: ['summary'],
              source_message_id: through,
            });
          }
          const summary = brain.assistant.latestSummary(threadId);
          const fresh = brain.assistant.sessionMessages({
            thread_id: threadId,
            after: summary?.covers_through,
          });
          const expected = buildHistory({ ...WHO, summary: summary?.stm.content, messages: fresh });
          const got = cache.load(brain, threadId, summary, WHO);
          const where = `seed ${seed}, step ${step}`;
          expect(got.records, where).toEqual(fresh);
          expect(got.history, where).toEqual(expected);
          expect(JSON.stringify(got.history), where).toBe(JSON.stringify(expected));
        }
      }
    } finally {
      t.cleanup();
    }
  });

  it('reuses the settled part of the context between turns, and builds it afresh when asked', async () => {
    const t = await tempBrain();
    try {
      const { brain } = t;
      const threadId = brain.assistant.session({ name: 'chat/default', ...WHO }).thread_id;
      const say = (from: string, body: string) =>
        brain.messages.send({ from, to: null, thread: threadId, body });
      say('ann', 'one');
      say('assistant', 'first');
      say('ann', 'two');
      const cache = createSessionCache();
      const first = cache.load(brain, threadId, undefined, WHO).history;
      say('assistant', 'second');
      say('ann', 'three');
      const second = cache.load(brain, threadId, undefined, WHO).history;
      expect(second[0]).toBe(first[0]);
      const rebuilt = cache.load(brain, threadId, undefined, WHO, true).history;
      expect(rebuilt[0]).not.toBe(first[0]);
      expect(rebuilt).toEqual(second);
      expect(rebuilt.map((m) => m.role)).toEqual([
        'user',
        'assistant',
        'user',
        'assistant',
        'user',
      ]);
    } finally {
      t.cleanup();
    }
  });
});
