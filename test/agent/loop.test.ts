import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildHistory, unpairedToolUses } from '../../agent/history.js';
import { BREAKER_TEXT, maxRoundsText } from '../../agent/loop.js';
import type { ChatMessage } from '../../agent/models/types.js';
import type { Tool } from '../../agent/tools/types.js';
import { z } from 'zod';
import { createModels } from '../../agent/models/create.js';
import { assistantFixture, type AssistantFixture } from './helpers.js';

let f: AssistantFixture;
afterEach(async () => f?.close());

const save = (content: string, id?: string) => ({
  ...(id ? { id } : {}),
  name: 'save_memory',
  input: { content },
});

function requestMessages(i: number): ChatMessage[] {
  return f.fake.requests[i]!.body.messages as ChatMessage[];
}

describe('runTurn', () => {
  it('runs two tool calls, sends their results back, and stores the reply with its rounds', async () => {
    f = await assistantFixture();
    f.fake.script.push(
      { text: 'Saving that.', toolUses: [save('Ann’s boiler code is 4471', 'toolu_a')] },
      { toolUses: [{ id: 'toolu_b', name: 'search_memory', input: { query: 'boiler' } }] },
      { text: ['Done: ', 'the code is 4471.'], usage: { input_tokens: 300, output_tokens: 9 } },
    );
    const result = await f.turn('remember: the boiler code is 4471');

    expect(result.reply).toBe('Done: the code is 4471.');
    expect(result.stopReason).toBe('end_turn');
    expect(f.streamed.join('')).toBe('Saving that.Done: the code is 4471.');
    expect(f.toolCalls).toEqual(['save_memory', 'search_memory']);
    expect(f.fake.requests).toHaveLength(3);
    const third = requestMessages(2);
    expect(third.at(-1)!.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_b' });
    expect(JSON.stringify(third.at(-1))).toContain('4471');
    expect(f.fake.requests[0]!.body.tools).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'save_memory' })]),
    );

    const reply = f.t.brain.messages.getMessage(result.messageIds.reply)!;
    expect(reply).toMatchObject({ from: 'assistant', to: 'ann', reply_to: result.messageIds.user });
    const meta = reply.metadata.assistant as any;
    expect(meta.rounds).toHaveLength(2);
    expect(meta.rounds[0].results[0].content).toMatch(/^saved stm_/);
    expect(meta.stop_reason).toBe('end_turn');
    expect(meta.usage.input).toBe(320);
    const [stm] = f.t.brain.knowledge.listStm();
    expect(stm!.source_message_id).toBe(result.messageIds.user);

    // The thread rebuilds into exactly what the model saw, then its final answer.
    const rebuilt = buildHistory({
      agent: 'assistant',
      owner: 'ann',
      messages: f.t.brain.assistant.sessionMessages({ thread_id: result.threadId }),
    });
    expect(rebuilt.slice(0, -1)).toEqual(third.map((m) => ({ role: m.role, content: m.content })));
    expect(rebuilt.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Done: the code is 4471.' }],
    });

    const rows = f.t.brain.assistant.usage({ by: 'source' });
    expect(rows).toEqual([expect.objectContaining({ key: 'chat', calls: 3 })]);
  });

  it('marks the message it answers read in the assistant’s inbox, and no other', async () => {
    f = await assistantFixture();
    const waiting = f.t.brain.messages.send({
      from: 'ann',
      to: 'assistant',
      body: 'a note for later',
    });
    f.fake.script.push({ text: 'Hello, Ann.' });
    const result = await f.turn('hello');
    const unread = f.t.brain.messages.peek({ agent: 'assistant' }).map((m) => m.id);
    expect(unread).toEqual([waiting.id]);
    expect(unread).not.toContain(result.messageIds.user);
    const [question] = f.t.brain.messages
      .thread({ thread_id: result.threadId })
      .messages.filter((m) => m.id === result.messageIds.user);
    expect(question!.receipts).toEqual([{ agent: 'assistant', read_at: expect.any(String) }]);
  });

  it('builds the system prompt from the workspace files and memories relevant to the message', async () => {
    f = await assistantFixture();
    writeFileSync(join(f.t.dir, 'SOUL.md'), 'You are terse and kind.');
    f.t.brain.knowledge.remember({
      agent: 'assistant',
      content: 'Ann drinks green tea, never coffee',
    });
    await f.turn('which tea should I buy?', { systemPrompt: undefined });
    const system = JSON.stringify(f.fake.requests[0]!.body.system);
    expect(system).toContain('You are terse and kind.');
    expect(system).toContain('Ann drinks green tea');
  });

  it('continues the session: the next turn’s request holds the earlier turn', async () => {
    f = await assistantFixture();
    await f.turn('my cat is called Tom');
    await f.turn('what is my cat called?');
    const texts = JSON.stringify(requestMessages(1));
    expect(texts).toContain('my cat is called Tom');
    expect(requestMessages(1).map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('ends the turn with a message when the same call repeats three times', async () => {
    f = await assistantFixture();
    for (let i = 0; i < 5; i++) f.fake.script.push({ toolUses: [save('loop')] });
    const result = await f.turn('go');
    expect(result.stopReason).toBe('breaker');
    expect(result.reply).toBe(BREAKER_TEXT);
    expect(f.fake.requests).toHaveLength(3);
    expect(f.t.brain.knowledge.listStm()).toHaveLength(2);
    const meta = f.t.brain.messages.getMessage(result.messageIds.reply)!.metadata.assistant as any;
    expect(meta.rounds[2].results[0]).toMatchObject({ is_error: true });
    expect(f.streamed.join('')).toContain(BREAKER_TEXT);
  });

  it('stops at maxRounds, pairing the calls it did not run', async () => {
    f = await assistantFixture({ maxRounds: 2 });
    for (let i = 0; i < 5; i++) f.fake.script.push({ toolUses: [save(`fact ${i}`)] });
    const result = await f.turn('go');
    expect(result.stopReason).toBe('max_rounds');
    expect(result.reply).toBe(maxRoundsText(2));
    expect(f.fake.requests).toHaveLength(3);
    expect(f.t.brain.knowledge.listStm()).toHaveLength(2);
    const meta = f.t.brain.messages.getMessage(result.messageIds.reply)!.metadata.assistant as any;
    expect(meta.rounds).toHaveLength(3);
    expect(meta.rounds[2].results[0].content).toMatch(/^not run: the turn reached its limit/);
  });

  it('shows the model a tool that throws as an error result and goes on', async () => {
    f = await assistantFixture();
    const boom: Tool<{ x: number }> = {
      name: 'boom',
      description: 'fails',
      schema: z.object({ x: z.number() }),
      readOnly: true,
      run: () => Promise.reject(new Error('exploded')),
    };
    f.fake.script.push({ toolUses: [{ name: 'boom', input: { x: 1 } }] }, { text: 'It failed.' });
    const result = await f.turn('try', { tools: [boom as Tool] });
    expect(result.reply).toBe('It failed.');
    expect(requestMessages(1).at(-1)!.content[0]).toMatchObject({
      type: 'tool_result',
      is_error: true,
      content: 'boom failed: exploded',
    });
  });

  it('leaves a cancelled turn consistent: every tool_use paired in the next request', async () => {
    f = await assistantFixture();
    f.fake.script.push(
      { text: 'On it.', toolUses: [save('half done', 'toolu_c')] },
      { error: 'stall' },
    );
    const controller = new AbortController();
    const turn = f.turn('do a long thing', { signal: controller.signal });
    await waitUntil(() => f.fake.requests.length === 2);
    controller.abort();
    const result = await turn;
    expect(result.cancelled).toBe(true);
    expect(result.stopReason).toBe('cancelled');
    await f.fake.waitForClientClose(1);
    const meta = f.t.brain.messages.getMessage(result.messageIds.reply)!.metadata.assistant as any;
    expect(meta.cancelled).toBe(true);
    expect(meta.rounds).toHaveLength(1);

    f.fake.script.push({ text: 'Back.' });
    await f.turn('are you there?');
    const next = requestMessages(2);
    expect(unpairedToolUses(next)).toEqual([]);
    expect(JSON.stringify(next)).toContain('toolu_c');
    expect(next.at(-1)!.content).toEqual([{ type: 'text', text: 'are you there?' }]);
  });

  it('pairs the calls a cancel interrupts between tools with "cancelled" results', async () => {
    f = await assistantFixture();
    const controller = new AbortController();
    const stopper: Tool<Record<string, never>> = {
      name: 'stopper',
      description: 'cancels the turn',
      schema: z.object({}),
      readOnly: true,
      run: async () => {
        controller.abort();
        // Said to be the owner's own, so the result is stored as it is (no foreign wrapping).
        return { content: 'stopped', untrusted: false };
      },
    };
    f.fake.script.push({
      toolUses: [
        { id: 'toolu_1', name: 'stopper', input: {} },
        { id: 'toolu_2', name: 'save_memory', input: { content: 'never' } },
      ],
    });
    const result = await f.turn('go', {
      signal: controller.signal,
      tools: [stopper as Tool, ...f.tools],
    });
    expect(result.cancelled).toBe(true);
    expect(f.fake.requests).toHaveLength(1);
    expect(f.t.brain.knowledge.listStm()).toHaveLength(0);
    const meta = f.t.brain.messages.getMessage(result.messageIds.reply)!.metadata.assistant as any;
    expect(meta.rounds[0].results.map((r: any) => r.content)).toEqual([
      'stopped',
      'cancelled: the user stopped the turn',
    ]);
  });

  it('serialises two turns of one session: the second waits for the first’s lease', async () => {
    f = await assistantFixture();
    f.fake.script.push({ error: 'stall' });
    const controller = new AbortController();
    const first = f.turn('first', { signal: controller.signal });
    await waitUntil(() => f.fake.requests.length === 1);
    const events: string[] = [];
    const second = f.turn('second', { log: (_level, event) => void events.push(event) });
    await waitUntil(() => events.includes('turn.wait_lease'));
    expect(f.fake.requests).toHaveLength(1);
    await waitUntil(() => f.streamed.length > 0);
    expect(
      f.t.brain.assistant
        .sessionMessages({ thread_id: (await f.t.brain.assistant.sessions())[0]!.thread_id })
        .map((m) => m.body),
    ).toEqual(['first']);
    controller.abort();
    await first;
    const done = await second;
    const bodies = f.t.brain.assistant
      .sessionMessages({ thread_id: done.threadId })
      .map((m) => m.body);
    // The cancelled reply keeps what had been streamed of it.
    expect(bodies).toEqual(['first', f.streamed[0], 'second', expect.any(String)]);
  });

  it('lets a user message no model answered stand, and the next turn sends it with the new one', async () => {
    f = await assistantFixture();
    f.fake.failure = { error: 'auth' };
    await expect(f.turn('hello?')).rejects.toMatchObject({ name: 'ModelError', kind: 'auth' });
    f.fake.failure = undefined;
    const { pool } = await import('../../agent/models/create.js').then((m) =>
      m.createModels(
        {
          endpoints: [
            {
              provider: 'anthropic',
              model: 'claude-test',
              baseUrl: f.fake.baseUrl,
              tags: [],
              priority: 0,
              maxTokens: 100,
            },
          ],
        },
        { anthropicApiKey: 'sk-test' },
        { clock: () => new Date(), log: () => {} },
      ),
    );
    const result = await f.turn('anyone?', { pool });
    expect(result.stopReason).toBe('end_turn');
    const last = requestMessages(f.fake.requests.length - 1);
    expect(last).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hello?' },
          { type: 'text', text: 'anyone?' },
        ],
      },
    ]);
  });
  it('stores a retried message once: the retry answers the message a failed turn left standing', async () => {
    f = await assistantFixture();
    f.fake.failure = { error: 'auth' };
    await expect(f.turn('hello?')).rejects.toMatchObject({ name: 'ModelError', kind: 'auth' });
    f.fake.failure = undefined;
    // A pool of its own: the fixture's has put the failed endpoint aside.
    const { pool } = createModels(
      {
        endpoints: [
          {
            provider: 'anthropic',
            model: 'claude-test',
            baseUrl: f.fake.baseUrl,
            tags: [],
            priority: 0,
            maxTokens: 100,
          },
        ],
      },
      { anthropicApiKey: 'sk-test' },
      { clock: () => new Date(), log: () => {} },
    );
    f.fake.script.push({ text: 'Hi.' });
    const result = await f.turn('hello?', { pool });
    const thread = f.t.brain.messages.thread({ thread_id: result.threadId });
    expect(thread.messages.map((m) => m.body)).toEqual(['hello?', 'Hi.']);
    expect(result.messageIds.user).toBe(thread.messages[0]!.id);
    expect(requestMessages(f.fake.requests.length - 1)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hello?' }] },
    ]);
    // Said again once answered, the same words are a new message.
    f.fake.script.push({ text: 'Hi again.' });
    await f.turn('hello?', { pool });
    expect(
      f.t.brain.messages.thread({ thread_id: result.threadId }).messages.map((m) => m.body),
    ).toEqual(['hello?', 'Hi.', 'hello?', 'Hi again.']);
  });
});

async function waitUntil(check: () => boolean): Promise<void> {
  // Polls the condition (the fake server runs in this process), for at most ~20 s.
  for (let i = 0; i < 4000 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!check()) throw new Error('condition never held');
}

describe('runTurn on a message already in the thread', () => {
  it('answers it where it is, storing only the reply, and says it again when replies follow it', async () => {
    f = await assistantFixture();
    const brain = f.t.brain;
    const first = brain.messages.send({ from: 'bob', to: 'assistant', body: 'Is the heron back?' });
    const second = brain.messages.send({
      from: 'bob',
      to: 'assistant',
      thread: first.thread_id,
      body: 'And the otter?',
    });
    brain.assistant.sessionInThread({
      name: 'inbox/x',
      agent: 'assistant',
      owner: 'ann',
      thread_id: first.thread_id,
    });
    f.fake.script.push({ text: 'The heron is back.' }, { text: 'No otter yet.' });
    const ask = (m: typeof first, text: string) =>
      f.turn(text, { session: 'inbox/x', input: { text, from: 'bob', messageId: m.id } });

    const a = await ask(first, 'Is the heron back?');
    expect(a.messageIds.user).toBe(first.id);
    const b = await ask(second, 'And the otter?');
    expect(b.messageIds.user).toBe(second.id);
    expect(
      brain.assistant.sessionMessages({ thread_id: first.thread_id }).map((m) => m.body),
    ).toEqual(['Is the heron back?', 'And the otter?', 'The heron is back.', 'No otter yet.']);
    expect(brain.messages.getMessage(b.messageIds.reply)).toMatchObject({
      to: 'bob',
      reply_to: second.id,
    });
    // The second turn's context ended with the first reply: its own question comes last again.
    const last = requestMessages(1).at(-1)!;
    expect(last.role).toBe('user');
    expect(JSON.stringify(last.content)).toContain('And the otter?');
    expect(JSON.stringify(last.content)).toContain('untrusted');
  });

  it('refuses a message of another thread, storing nothing', async () => {
    f = await assistantFixture();
    const elsewhere = f.t.brain.messages.send({ from: 'bob', to: 'assistant', body: 'hi' });
    await expect(
      f.turn('hi', { input: { text: 'hi', from: 'bob', messageId: elsewhere.id } }),
    ).rejects.toThrow(/input\.messageId: .* is not in/);
    expect(f.fake.requests).toHaveLength(0);
  });
});
