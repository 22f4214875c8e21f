import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runToolCall, toolSchemas } from '../../../agent/tools/registry.js';
import { createSaveMemoryTool, saveMemoryTool } from '../../../agent/tools/save-memory.js';
import { createSearchMemoryTool } from '../../../agent/tools/search-memory.js';
import type { Tool, ToolContext } from '../../../agent/tools/types.js';
import { fixedClock, tempBrain, type TempBrain } from '../../helpers.js';

let t: TempBrain;
afterEach(() => t?.cleanup());

function context(turnMessageId: string, threadId: string): ToolContext {
  return {
    brain: t.brain,
    agent: 'assistant',
    owner: 'ann',
    threadId,
    session: 'chat/default',
    turnMessageId,
    workspace: t.dir,
    signal: new AbortController().signal,
    clock: fixedClock(),
  };
}

function userTurn(body: string) {
  return t.brain.messages.send({ from: 'ann', to: 'assistant', subject: 'chat/default', body });
}

const call = (name: string, input: Record<string, unknown>) =>
  ({ type: 'tool_use', id: 'tu_1', name, input }) as const;

describe('tool registry', () => {
  it('describes each tool to the model by a JSON Schema of its input', () => {
    const [schema] = toolSchemas([saveMemoryTool]);
    expect(schema!.name).toBe('save_memory');
    expect(schema!.input_schema).toMatchObject({
      type: 'object',
      properties: { content: { type: 'string' }, importance: { type: 'number' } },
      required: ['content'],
    });
    expect(schema!.input_schema).not.toHaveProperty('$schema');
  });

  it('leaves length limits out of the schema the model reads, and still enforces them', async () => {
    const [schema] = toolSchemas([saveMemoryTool]);
    const properties = (schema!.input_schema as { properties: Record<string, object> }).properties;
    expect(properties.content).toEqual({ type: 'string' });
    expect(properties.categories).toEqual({ type: 'array', items: { type: 'string' } });
    expect(properties.importance).toEqual({ type: 'number', minimum: 1, maximum: 3 });
    t = await tempBrain();
    const turn = userTurn('hi');
    const result = await runToolCall(
      [saveMemoryTool],
      call('save_memory', { content: 'x'.repeat(10_001) }),
      context(turn.id, turn.thread_id),
    );
    expect(result.is_error).toBe(true);
    expect(result.content).toMatch(/^invalid input: content:/);
    expect(t.brain.knowledge.listStm()).toHaveLength(0);
  });

  it('answers an input the schema refuses with an error result naming the field', async () => {
    t = await tempBrain();
    const turn = userTurn('hi');
    const result = await runToolCall(
      [saveMemoryTool],
      call('save_memory', { content: 'x', importance: 7 }),
      context(turn.id, turn.thread_id),
    );
    expect(result.is_error).toBe(true);
    expect(result.content).toMatch(/^invalid input: importance:/);
    expect(t.brain.knowledge.listStm()).toHaveLength(0);
  });

  it('turns a tool that throws, and an unknown tool, into error results', async () => {
    t = await tempBrain();
    const boom: Tool<{ a: string }> = {
      name: 'boom',
      description: 'fails',
      schema: z.object({ a: z.string() }),
      readOnly: true,
      run: () => Promise.reject(new Error('disk on fire')),
    };
    const ctx = context('syn_000000000000', 'thr_x');
    const thrown = await runToolCall([boom], call('boom', { a: 'x' }), ctx);
    expect(thrown).toEqual({
      type: 'tool_result',
      tool_use_id: 'tu_1',
      content: 'boom failed: disk on fire',
      is_error: true,
    });
    const unknown = await runToolCall([boom], call('nope', {}), ctx);
    expect(unknown.is_error).toBe(true);
    expect(unknown.content).toContain('unknown tool nope');
  });
});

describe('save_memory', () => {
  it('stores a memory of the assistant whose source is the turn’s user message', async () => {
    t = await tempBrain();
    const turn = userTurn('my cat is called Tom');
    const result = await runToolCall(
      [saveMemoryTool],
      call('save_memory', { content: 'Ann’s cat is Tom', categories: ['pets'], importance: 2 }),
      context(turn.id, turn.thread_id),
    );
    expect(result.is_error).toBeUndefined();
    const [stm] = t.brain.knowledge.listStm();
    expect(result.content).toBe(`saved ${stm!.id}`);
    expect(stm).toMatchObject({
      agent: 'assistant',
      content: 'Ann’s cat is Tom',
      categories: ['pets'],
      importance: 2,
      source_message_id: turn.id,
    });
  });

  it('reads an event time as said in its time zone; one that is no time is an error and saves nothing', async () => {
    t = await tempBrain();
    const turn = userTurn('the launch is next Friday');
    // The clock's Thursday 1 January 2026; Kiritimati is UTC+14.
    const tool = createSaveMemoryTool({ timeZone: 'Pacific/Kiritimati' });
    const saved = await runToolCall(
      [tool],
      call('save_memory', { content: 'The launch is on Friday', occurred_at: 'next Friday' }),
      context(turn.id, turn.thread_id),
    );
    expect(saved.is_error).toBeUndefined();
    expect(t.brain.knowledge.listStm()[0]!.occurred_at).toBe('2026-01-08T10:00:00.000Z');
    const bad = await runToolCall(
      [tool],
      call('save_memory', { content: 'x', occurred_at: 'whenever' }),
      context(turn.id, turn.thread_id),
    );
    expect(bad.is_error).toBe(true);
    expect(bad.content).toMatch(/occurred_at: must be an ISO 8601 date or time/);
    expect(t.brain.knowledge.listStm()).toHaveLength(1);
  });
});

describe('search_memory', () => {
  it('answers hits with date, type and id, wrapped as untrusted data', async () => {
    t = await tempBrain();
    const turn = userTurn('the boiler code is 4471');
    const result = await runToolCall(
      [createSearchMemoryTool()],
      call('search_memory', { query: 'boiler code' }),
      context(turn.id, turn.thread_id),
    );
    expect(result.content).toMatch(/^<untrusted source="tool:search_memory">/);
    expect(result.content).toContain(`message ${turn.id} by ann thread ${turn.thread_id}`);
    expect(result.content).toMatch(/\[\d{4}-\d\d-\d\d \d\d:\d\d\] message/);
    expect(result.content).toContain('4471');
  });

  it('says so when nothing matches', async () => {
    t = await tempBrain();
    const turn = userTurn('hello');
    const result = await runToolCall(
      [createSearchMemoryTool()],
      call('search_memory', { query: 'zebra' }),
      context(turn.id, turn.thread_id),
    );
    expect(result.content).toBe('no hits');
  });
});
