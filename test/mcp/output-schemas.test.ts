import { Ajv, type ValidateFunction } from 'ajv';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/index.js';
import { wordEmbedder } from '../embedders.js';
import { tempBrain, type TempBrain } from '../helpers.js';
import { callRaw, connectInMemory, textOf, type Connected } from './helpers.js';

/*
 * Every tool's answer, in its usual and edge situations, against the output schema the server
 * declares in tools/list, compiled by Ajv in strict mode — what a client that lists the tools
 * checks (issue 12: search's `retrievers` broke every such client). And the text the model reads
 * carries the same information: every id of the structured answer, its notices and its counts.
 */

const ID = /^(syn|thr|stm|atm)_[0-9a-z-]+$/;

let t: TempBrain;
let c: Connected;
let embedder: Embedder | undefined;
const validators = new Map<string, ValidateFunction>();
const covered = new Map<string, number>();

beforeAll(async () => {
  t = await tempBrain();
  c = await connectInMemory(t.brain, { agent: 'alice', embedder: () => embedder });
  const ajv = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true });
  for (const tool of (await c.client.listTools()).tools)
    validators.set(tool.name, ajv.compile(tool.outputSchema!));
});
afterAll(async () => {
  await c.close();
  t.cleanup();
});

/** Every string under `value` that is a brain id. */
function idsIn(value: unknown, out = new Set<string>()): Set<string> {
  if (typeof value === 'string' && ID.test(value)) out.add(value);
  else if (Array.isArray(value)) for (const v of value) idsIn(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) idsIn(v, out);
  return out;
}

/**
 * Call a tool that must succeed: its structured answer matches the declared schema, and its text
 * names every id and notice of it, plus the `says` strings given.
 */
async function answer(name: string, args: Record<string, unknown>, says: string[] = []) {
  const result = await callRaw(c.client, name, args);
  const text = textOf(result);
  expect(result.isError, `${name}: ${text}`).toBeFalsy();
  const data = result.structuredContent as any;
  const validate = validators.get(name)!;
  expect(validate(data), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
  for (const id of idsIn(data)) expect(text, `${name} text names ${id}`).toContain(id);
  for (const notice of data.notices ?? []) expect(text).toContain(notice);
  for (const s of says) expect(text, `${name} text`).toContain(s);
  covered.set(name, (covered.get(name) ?? 0) + 1);
  return data;
}

/** Call a tool that must fail: `isError`, a coded message, no structured content. */
async function refusal(name: string, args: Record<string, unknown>, message: RegExp) {
  const result: CallToolResult = await callRaw(c.client, name, args);
  expect(result.isError, name).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  expect(textOf(result)).toMatch(/^[A-Z_]+: /);
  expect(textOf(result)).toMatch(message);
}

describe('every tool answers within its declared output schema', () => {
  it('on an empty brain: no threads, no inbox, no hits, nothing recent', async () => {
    await answer('poll_inbox', {}, ['alice: 0 unread']);
    await answer('read_inbox', {}, ['no unread messages']);
    await answer('read_inbox', { mark_read: false }, ['peeked: 0 still unread']);
    await answer('list_threads', {}, ['no threads']);
    await answer('recent', {}, ['nothing recent']);
    const none = await answer('search', { query: 'spread gate' }, ['no hits', 'searched by words']);
    expect(none).toEqual({ hits: [], notices: [], retrievers: ['fts'] });
  });

  it('for messages: direct, broadcast, replies, inbox, acks and threads page by page', async () => {
    const first = await answer('send_message', { to: 'bob', subject: 'spread gate', body: 'a' });
    for (let i = 0; i < 3; i += 1)
      await answer('send_message', { thread: first.thread_id, to: 'bob', body: `more ${i}` });
    t.brain.touchAgent('nova');
    const all = await answer('send_message', { body: 'deploy freeze friday', priority: 'urgent' }, [
      'all (2 agents)',
    ]);
    expect(all.recipients).toBe(2);
    const fromBob = t.brain.messages.send({
      from: 'bob',
      to: 'alice',
      body: 'noted',
      reply_to: first.id,
    });
    await answer('poll_inbox', {}, ['alice: 1 unread']);
    await answer('read_inbox', { mark_read: false }, [fromBob.id, `re ${first.id}`]);
    await answer('read_inbox', { limit: 5 }, [fromBob.id]);
    await answer('ack_message', { message_id: fromBob.id, body: 'thanks' }, ['acknowledged']);
    await answer('ack_message', { message_id: fromBob.id }, ['already acknowledged']);

    const page = await answer('get_thread', { thread_id: first.thread_id, limit: 2 }, [
      'more: offset 2',
    ]);
    expect(page.next_offset).toBe(2);
    const last = await answer('get_thread', { thread_id: first.thread_id, offset: 4 }, [
      'acked by alice ("thanks")',
    ]);
    expect(last.next_offset).toBeNull();
    await answer('list_threads', {}, ['spread gate']);
    await answer('list_threads', { status: 'archived' }, ['no threads']);
    await answer('recent', { types: ['message'], limit: 3 });
  });

  it('for knowledge: memories and atoms with and without a source, links, provenance', async () => {
    const msg = t.brain.messages.send({
      from: 'bob',
      to: 'alice',
      subject: 'fills',
      body: 'gate vs fills',
    });
    const sourced = await answer('remember', {
      content: 'The spread gate does not predict fills',
      categories: ['trading'],
      importance: 2.5,
      source_message_id: msg.id,
      expires_at: '2999-01-01T00:00:00Z',
    });
    await answer('remember', { content: 'Deploys freeze on Fridays' });
    const cause = await answer('create_atom', {
      subject: 'spread gate',
      action: 'backtested',
      outcome: 'no edge',
      consequences: 'drop it',
      confidence: 0.9,
      source_message_id: msg.id,
    });
    const effect = await answer('create_atom', { subject: 'gate', action: 'x', outcome: 'y' });
    await answer('link_atoms', { from: cause.id, to: effect.id }, ['strength 0.5']);
    await answer('link_atoms', { from: cause.id, to: effect.id, type: 'enables', strength: 1 });

    await answer('find_provenance', { id: sourced.id }, [`source ${msg.id}`]);
    await answer('find_provenance', { id: effect.id }, ['no source message recorded']);
    const derived = await answer('find_provenance', { id: msg.id, context: 0 });
    expect(derived.derived.stm.map((s: any) => s.id)).toEqual([sourced.id]);
    await answer('recent', { hours: 1 });
    await answer('insights', {}, ['nothing learned yet']);
    await answer('insights', { thread_id: msg.thread_id, category: 'decision', limit: 5 });
  });

  it('for search: every type, filters, notices, the named-agent boost, with and without vectors', async () => {
    const hits = await answer('search', { query: 'spread gate' });
    expect(new Set(hits.hits.map((h: any) => h.type))).toEqual(new Set(['message', 'stm', 'atom']));
    await answer('search', { query: 'spread gate', types: ['stm'], limit: 1 });
    await answer('search', {
      query: 'gate',
      agent: 'bob',
      since: '2000-01-01',
      until: '2999-01-01',
    });
    const boosted = await answer('search', { query: 'what did bob say about fills' });
    expect(boosted.hits.some((h: any) => h.boost !== undefined)).toBe(true);
    await answer('search', { query: '"*" ( - ) :' }, ['no words']);
    await answer('search', { query: 'gate', thread: 'thr_00000000-0000-4000-8000-000000000000' });
    await answer('search', { query: 'gate', agent: 'nobody' }, ['no agent nobody']);

    embedder = wordEmbedder(['spread', 'gate', 'fills']);
    try {
      await t.brain.embed.embedQueued(embedder);
      const both = await answer('search', { query: 'spread gate' }, [
        'searched by words and meaning',
      ]);
      expect(both.retrievers).toEqual(['fts', 'vector']);
      expect(both.hits.some((h: any) => h.found_by.vector)).toBe(true);
      embedder = wordEmbedder(['gate'], { model: 'another-model' });
      const other = await answer('search', { query: 'gate' });
      expect(other.notices.join()).toMatch(/vectors in this brain are from/);
    } finally {
      embedder = undefined;
    }
  });

  it('refuses bad calls as isError without structured content', async () => {
    await refusal('send_message', { to: 'bob', body: '' }, /body/);
    await refusal('ack_message', { message_id: 'syn_000000000000' }, /NOT_FOUND/);
    await refusal('get_thread', { thread_id: 'nope' }, /thread_id/);
    await refusal('remember', { content: 'x', source_message_id: 'syn_000000000000' }, /source/);
    await refusal('create_atom', { subject: 's', action: 'a', outcome: '\u0000' }, /outcome/);
    await refusal('link_atoms', { from: 'atm_000000000000', to: 'atm_000000000001' }, /NOT_FOUND/);
    await refusal('find_provenance', { id: 'stm_000000000000' }, /NOT_FOUND/);
    await refusal('search', { query: '' }, /query/);
    await refusal('recent', { hours: 0 }, /hours: must be more than 0/);
    await refusal('insights', { thread_id: 'syn_000000000000' }, /thread_id/);
  });

  it('covered all thirteen tools', () => {
    expect([...covered.keys()].sort()).toEqual([...validators.keys()].sort());
    expect(validators.size).toBe(13);
  });
});
