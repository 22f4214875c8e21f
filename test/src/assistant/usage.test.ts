import { connectionOf } from '../../../src/brain.js';
import { afterEach, describe, expect, it } from 'vitest';
import { tempBrain, type TempBrain } from '../../helpers.js';

let t: TempBrain | undefined;
afterEach(() => {
  t?.cleanup();
  t = undefined;
});

const call = (over: Record<string, unknown>) => ({
  source: 'chat',
  model: 'claude-sonnet-4-5',
  endpoint: 'anthropic:claude-sonnet-4-5@0',
  input_tokens: 100,
  output_tokens: 10,
  cache_read_tokens: 1000,
  cache_write_tokens: 50,
  ...over,
});

async function seed() {
  t = await tempBrain();
  const b = t.brain;
  b.assistant.recordUsage(call({ at: '2026-03-01T09:00:00Z' }));
  b.assistant.recordUsage(call({ at: '2026-03-01T23:59:59.999Z', source: 'compaction' }));
  b.assistant.recordUsage(
    call({
      at: '2026-03-02T00:00:00Z',
      model: 'llama3.1',
      endpoint: 'ollama:llama3.1@1',
      input_tokens: 7,
      output_tokens: 3,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
    }),
  );
  b.assistant.recordUsage(call({ at: '2026-03-03T12:00:00Z', source: 'cron', input_tokens: 1 }));
  return b;
}

describe('usage', () => {
  it('sums tokens by model, each group split by endpoint', async () => {
    const rows = (await seed()).assistant.usage({ by: 'model' });
    expect(rows.map((r) => r.key)).toEqual(['claude-sonnet-4-5', 'llama3.1']);
    expect(rows[0]).toMatchObject({
      calls: 3,
      input_tokens: 201,
      output_tokens: 30,
      cache_read_tokens: 3000,
      cache_write_tokens: 150,
      first_at: '2026-03-01T09:00:00.000Z',
      last_at: '2026-03-03T12:00:00.000Z',
    });
    expect(rows[1]!.models).toEqual([
      {
        model: 'llama3.1',
        endpoint: 'ollama:llama3.1@1',
        calls: 1,
        input_tokens: 7,
        output_tokens: 3,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
      },
    ]);
  });

  it('sums by UTC day in time order, and by source', async () => {
    const b = await seed();
    const days = b.assistant.usage({ by: 'day' });
    expect(days.map((r) => [r.key, r.calls])).toEqual([
      ['2026-03-01', 2],
      ['2026-03-02', 1],
      ['2026-03-03', 1],
    ]);
    expect(days[0]!.models.map((m) => m.model)).toEqual(['claude-sonnet-4-5']);
    expect(b.assistant.usage({ by: 'source' }).map((r) => [r.key, r.calls])).toEqual([
      ['chat', 2],
      ['compaction', 1],
      ['cron', 1],
    ]);
  });

  it('counts only the calls since a time', async () => {
    const b = await seed();
    expect(b.assistant.usage({ by: 'day', since: '2026-03-02' }).map((r) => r.key)).toEqual([
      '2026-03-02',
      '2026-03-03',
    ]);
    expect(b.assistant.usage({ since: '2026-04-01' })).toEqual([]);
  });

  it('keeps the session and the message a call served', async () => {
    t = await tempBrain();
    const sent = t.brain.messages.send({ from: 'ada', to: 'assistant', body: 'hello' });
    const rec = t.brain.assistant.recordUsage(
      call({ session: 'chat/default', message_id: sent.id }),
    );
    expect(rec).toMatchObject({ session: 'chat/default', message_id: sent.id });
    expect(
      connectionOf(t.brain).prepare(`SELECT session, message_id FROM model_usage`).get(),
    ).toEqual({
      session: 'chat/default',
      message_id: 1,
    });
  });

  it('refuses bad input naming the field, and records nothing', async () => {
    t = await tempBrain();
    expect(() => t!.brain.assistant.recordUsage(call({ input_tokens: -1 }))).toThrow(
      /input_tokens:/,
    );
    expect(() => t!.brain.assistant.recordUsage(call({ model: '' }))).toThrow(
      /model: must not be empty/,
    );
    expect(() => t!.brain.assistant.recordUsage(call({ message_id: 'syn_000000000001' }))).toThrow(
      /message_id: no message/,
    );
    expect(() => t!.brain.assistant.usage({ by: 'week' as 'day' })).toThrow(
      /by: must be one of model/,
    );
    expect(t!.brain.assistant.usage()).toEqual([]);
  });
});
