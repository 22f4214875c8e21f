import { connectionOf } from '../../../src/brain.js';
import { afterEach, describe, expect, it } from 'vitest';
import { BrainError, createSummarizer, type Brain } from '../../../src/index.js';
import { AFTER_SQL } from '../../../src/assistant/sessions.js';
import { fixedClock, tempBrain, type TempBrain } from '../../helpers.js';

let t: TempBrain | undefined;
afterEach(() => {
  t?.cleanup();
  t = undefined;
});

const who = { agent: 'assistant', owner: 'ada' };

async function open(): Promise<Brain> {
  t = await tempBrain({ clock: fixedClock('2026-03-01T10:00:00.000Z') });
  return t.brain;
}

function turn(brain: Brain, thread: string, text: string) {
  const user = brain.messages.send({ from: 'ada', to: 'assistant', thread, body: text });
  const reply = brain.messages.send({
    from: 'assistant',
    to: 'ada',
    thread,
    reply_to: user.id,
    body: `re: ${text}`,
    metadata: { assistant: { rounds: [], model: 'm' } },
  });
  return [user.id, reply.id];
}

describe('sessions', () => {
  it('creates a session once, with an empty thread whose subject is its name', async () => {
    const brain = await open();
    const first = brain.assistant.session({ name: 'chat/default', ...who });
    expect(first).toMatchObject({ name: 'chat/default', agent: 'assistant', owner: 'ada' });
    expect(first.created_at).toBe('2026-03-01T10:00:00.000Z');
    expect(brain.messages.getThread(first.thread_id)).toMatchObject({
      subject: 'chat/default',
      message_count: 0,
    });
    expect(brain.assistant.session({ name: 'chat/default', ...who })).toEqual(first);
    expect(brain.assistant.sessions()).toEqual([first]);
  });

  it('is found by a second connection, as another process finds it', async () => {
    const brain = await open();
    const made = brain.assistant.session({ name: 'chat/default', ...who });
    const other = await t!.reopen();
    expect(other.assistant.session({ name: 'chat/default', ...who }).thread_id).toBe(
      made.thread_id,
    );
  });

  it('starts a fresh thread on newSession and keeps the old one searchable', async () => {
    const brain = await open();
    const old = brain.assistant.session({ name: 'chat/default', ...who });
    turn(brain, old.thread_id, 'the heron nests by the mill');
    const fresh = brain.assistant.newSession({ name: 'chat/default', ...who });
    expect(fresh.thread_id).not.toBe(old.thread_id);
    expect(fresh.threads).toBe(2);
    expect(brain.assistant.session({ name: 'chat/default', ...who }).thread_id).toBe(
      fresh.thread_id,
    );
    expect(brain.assistant.sessionOfThread(old.thread_id)?.name).toBe('chat/default');
    const hits = brain.search.search({ query: 'heron mill' }).hits;
    expect(hits.some((h) => h.thread_id === old.thread_id)).toBe(true);
  });

  it('gives a session whose thread was closed a fresh thread', async () => {
    const brain = await open();
    const old = brain.assistant.session({ name: 'chat/x', ...who });
    brain.messages.setThreadStatus(old.thread_id, 'closed');
    const now = brain.assistant.session({ name: 'chat/x', ...who });
    expect(now.thread_id).not.toBe(old.thread_id);
    expect(() => turn(brain, now.thread_id, 'still talking')).not.toThrow();
  });

  it('keeps sessions apart by name', async () => {
    const brain = await open();
    const a = brain.assistant.session({ name: 'chat/a', ...who });
    const b = brain.assistant.session({ name: 'telegram/42', ...who });
    expect(a.thread_id).not.toBe(b.thread_id);
    expect(brain.assistant.sessions().map((s) => s.name)).toEqual(['chat/a', 'telegram/42']);
  });

  it('refuses a bad name or agent, naming the field, and writes nothing', async () => {
    const brain = await open();
    expect(() => brain.assistant.session({ name: ' padded', ...who })).toThrow(
      /name: must not start/,
    );
    expect(() =>
      brain.assistant.session({ name: 'chat/a', agent: 'no spaces', owner: 'ada' }),
    ).toThrow(/agent: must be letters/);
    expect(() => brain.assistant.newSession({ name: '', ...who })).toThrow(BrainError);
    expect(brain.assistant.sessions()).toEqual([]);
    expect(brain.messages.threads()).toEqual([]);
  });
});

describe('sessionMessages', () => {
  it('answers every message of a thread in order, or those after a given one', async () => {
    const brain = await open();
    const s = brain.assistant.session({ name: 'chat/default', ...who });
    const ids = [
      ...turn(brain, s.thread_id, 'one'),
      ...turn(brain, s.thread_id, 'two'),
      ...turn(brain, s.thread_id, 'three'),
    ];
    const all = brain.assistant.sessionMessages({ thread_id: s.thread_id });
    expect(all.map((m) => m.id)).toEqual(ids);
    expect(all[1]).toMatchObject({
      from: 'assistant',
      to: 'ada',
      reply_to: ids[0],
      body: 're: one',
      metadata: { assistant: { rounds: [], model: 'm' } },
    });
    expect(
      brain.assistant.sessionMessages({ thread_id: s.thread_id, after: ids[1] }).map((m) => m.id),
    ).toEqual(ids.slice(2));
    expect(
      brain.assistant
        .sessionMessages({ thread_id: s.thread_id, after: ids[1], limit: 2 })
        .map((m) => m.id),
    ).toEqual(ids.slice(2, 4));
    expect(brain.assistant.sessionMessages({ thread_id: s.thread_id, after: ids[5] })).toEqual([]);
  });

  it('orders messages of the same millisecond by when they were stored', async () => {
    const brain = await open();
    const s = brain.assistant.session({ name: 'chat/default', ...who });
    // The fixed clock never moves: every message has the same time.
    const ids = [...turn(brain, s.thread_id, 'a'), ...turn(brain, s.thread_id, 'b')];
    expect(
      brain.assistant.sessionMessages({ thread_id: s.thread_id, after: ids[0] }).map((m) => m.id),
    ).toEqual(ids.slice(1));
  });

  it('refuses a message of another thread as the start, and an unknown thread', async () => {
    const brain = await open();
    const a = brain.assistant.session({ name: 'chat/a', ...who });
    const b = brain.assistant.session({ name: 'chat/b', ...who });
    const [inB] = turn(brain, b.thread_id, 'elsewhere');
    expect(() => brain.assistant.sessionMessages({ thread_id: a.thread_id, after: inB })).toThrow(
      /after: .* is not in/,
    );
    expect(() =>
      brain.assistant.sessionMessages({ thread_id: 'thr_00000000-0000-4000-8000-000000000009' }),
    ).toThrow(/thread_id: no thread/);
    expect(() =>
      brain.assistant.sessionMessages({ thread_id: a.thread_id, after: 'syn_000000000000' }),
    ).toThrow(/after: no message/);
  });

  it('reads the rows after a message as one range of the thread index', async () => {
    const brain = await open();
    const plan = connectionOf(brain)
      .prepare(`EXPLAIN QUERY PLAN ${AFTER_SQL}`)
      .all(1, 0, 0, 10) as Array<{
      detail: string;
    }>;
    expect(plan.map((p) => p.detail).join('\n')).toMatch(
      /SEARCH messages USING COVERING INDEX messages_by_thread \(thread_id=\? AND created_at>\?\)/,
    );
  });
});

describe('latestSummary', () => {
  it('answers the summary whose source message comes last in the thread', async () => {
    const brain = await open();
    const s = brain.assistant.session({ name: 'chat/default', ...who });
    const ids = [...turn(brain, s.thread_id, 'one'), ...turn(brain, s.thread_id, 'two')];
    expect(brain.assistant.latestSummary(s.thread_id)).toBeUndefined();
    const late = brain.knowledge.remember({
      agent: 'assistant',
      content: 'summary through two',
      categories: ['summary'],
      source_message_id: ids[3],
    });
    brain.knowledge.remember({
      agent: 'assistant',
      content: 'summary through one, written later',
      categories: ['summary'],
      source_message_id: ids[1],
    });
    brain.knowledge.remember({
      agent: 'assistant',
      content: 'not a summary',
      categories: ['fact'],
      source_message_id: ids[3],
    });
    const got = brain.assistant.latestSummary(s.thread_id);
    expect(got).toEqual({ stm: expect.objectContaining({ id: late.id }), covers_through: ids[3] });
    // A read: no access counted.
    expect(got!.stm.access_count).toBe(0);
  });

  it('ignores summaries of other threads', async () => {
    const brain = await open();
    const a = brain.assistant.session({ name: 'chat/a', ...who });
    const b = brain.assistant.session({ name: 'chat/b', ...who });
    const [inB] = turn(brain, b.thread_id, 'b');
    brain.knowledge.remember({
      agent: 'assistant',
      content: 'b so far',
      categories: ['summary'],
      source_message_id: inB,
    });
    expect(brain.assistant.latestSummary(a.thread_id)).toBeUndefined();
    expect(brain.assistant.latestSummary(b.thread_id)?.covers_through).toBe(inB);
  });

  it("ignores the thread summary extraction writes of the session's thread", async () => {
    const brain = await open();
    const s = brain.assistant.session({ name: 'chat/default', ...who });
    turn(brain, s.thread_id, 'one');
    turn(brain, s.thread_id, 'two');
    const summarizer = await createSummarizer();
    expect(await brain.knowledge.summarize(s.thread_id, summarizer)).toBeDefined();
    expect(brain.assistant.latestSummary(s.thread_id)).toBeUndefined();
  });
});

describe('a session conducted in an existing thread', () => {
  it('takes the thread as it is, with the messages already in it, and keeps it', async () => {
    const brain = await open();
    const asked = brain.messages.send({
      from: 'bob',
      to: 'assistant',
      body: 'where is the heron?',
    });
    const session = brain.assistant.sessionInThread({
      name: `inbox/${asked.thread_id}`,
      ...who,
      thread_id: asked.thread_id,
    });
    expect(session).toMatchObject({ thread_id: asked.thread_id, threads: 1 });
    expect(brain.assistant.sessionOfThread(asked.thread_id)?.name).toBe(`inbox/${asked.thread_id}`);
    expect(brain.assistant.session({ name: session.name, ...who })).toEqual(session);
    expect(
      brain.assistant.sessionMessages({ thread_id: asked.thread_id }).map((m) => m.id),
    ).toEqual([asked.id]);
    expect(
      brain.assistant.sessionInThread({ name: session.name, ...who, thread_id: asked.thread_id }),
    ).toEqual(session);
  });

  it('moves a session that had a thread of its own there, keeping the old thread in its list', async () => {
    const brain = await open();
    const old = brain.assistant.session({ name: 'inbox/x', ...who });
    const asked = brain.messages.send({ from: 'bob', to: 'assistant', body: 'hello' });
    const moved = brain.assistant.sessionInThread({
      name: 'inbox/x',
      ...who,
      thread_id: asked.thread_id,
    });
    expect(moved).toMatchObject({ thread_id: asked.thread_id, threads: 2 });
    expect(brain.assistant.sessionOfThread(old.thread_id)?.name).toBe('inbox/x');
  });

  it('refuses another session’s thread and an unknown thread, changing nothing', async () => {
    const brain = await open();
    const chat = brain.assistant.session({ name: 'chat/default', ...who });
    expect(() =>
      brain.assistant.sessionInThread({ name: 'inbox/y', ...who, thread_id: chat.thread_id }),
    ).toThrow(/thread_id: .* is the thread of session chat\/default/);
    expect(() =>
      brain.assistant.sessionInThread({
        name: 'inbox/y',
        ...who,
        thread_id: 'thr_0000000000000000',
      }),
    ).toThrow(BrainError);
    expect(brain.assistant.sessions().map((s) => s.name)).toEqual(['chat/default']);
  });
});
