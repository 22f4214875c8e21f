import { afterEach, describe, expect, it } from 'vitest';
import type { Extractor, ExtractTurn } from '../../../src/knowledge/extract/types.js';
import { tempBrain, type TempBrain } from '../../helpers.js';

/**
 * A rule extractor for the tests: "we'll go with X" is a decision about the thread's database
 * (keyed, so a later choice supersedes it); "I like X" a preference (no key: merges when said
 * again); "boom" fails to read. It records every turn it read.
 */
function ruleExtractor(version = 1): Extractor & { seen: string[] } {
  const seen: string[] = [];
  return {
    name: 'rules',
    version,
    seen,
    async extract(turn: ExtractTurn, before: readonly ExtractTurn[]) {
      seen.push(turn.body);
      if (turn.body.includes('boom')) throw new Error('the model is down');
      const choice = /go with (\w+)/i.exec(turn.body);
      if (choice)
        return [
          {
            content: `The team chose ${choice[1]} for the database`,
            category: 'decision' as const,
            importance: 2,
            sources: [...(before.at(-1) ? [before.at(-1)!.id] : []), turn.id],
            key: `${turn.thread_id}|database`,
          },
        ];
      const likes = /I like (\w+)/i.exec(turn.body);
      if (likes)
        return [
          {
            content: `${turn.sender} likes ${likes[1]}`,
            category: 'preference' as const,
            importance: 1,
            sources: [turn.id],
          },
        ];
      return [];
    },
  };
}

let t: TempBrain;
afterEach(() => t?.cleanup());

async function conversation() {
  t = await tempBrain();
  const { brain } = t;
  const ask = brain.messages.send({ from: 'ana', to: 'bo', subject: 'db', body: 'Postgres?' });
  const yes = brain.messages.send({
    from: 'bo',
    to: 'ana',
    thread: ask.thread_id,
    body: "Yes, let's go with Postgres.",
  });
  return { brain, ask, yes, thread: ask.thread_id };
}

describe('extraction', () => {
  it('learns from each message once, with its sources, and a second pass reads nothing', async () => {
    const { brain, ask, yes, thread } = await conversation();
    const rules = ruleExtractor();
    const first = await brain.knowledge.extract(rules);
    expect(first).toMatchObject({ extractor: 'rules@1', read: 2, added: 1, failed: 0 });
    const again = await brain.knowledge.extract(rules);
    expect(again).toMatchObject({ read: 0, added: 0, merged: 0 });
    expect(rules.seen).toEqual(['Postgres?', "Yes, let's go with Postgres."]);

    const [insight, ...rest] = brain.knowledge.insights({ thread_id: thread });
    expect(rest).toEqual([]);
    expect(insight).toMatchObject({
      agent: 'bo',
      content: 'The team chose Postgres for the database',
      categories: ['decision'],
      extractor: 'rules@1',
      superseded_by: null,
    });
    expect(insight!.sources.map((s) => s.message_id).sort()).toEqual([ask.id, yes.id].sort());
    // Provenance both ways: from the entry to its message, from each source to the entry.
    expect(brain.knowledge.provenance({ id: insight!.id }).message?.id).toBe(yes.id);
    for (const source of [ask.id, yes.id])
      expect(brain.knowledge.provenance({ id: source }).derived.stm).toMatchObject([
        { id: insight!.id, extractor: 'rules@1' },
      ]);
    expect(brain.knowledge.extractStatus(rules)).toMatchObject({ pending: 0, entries: 1 });
  });

  it('merges a fact said again into the entry, and lets a new decision supersede the old', async () => {
    const { brain, thread } = await conversation();
    const a = brain.messages.send({ from: 'ana', to: 'bo', thread, body: 'I like tea' });
    const b = brain.messages.send({ from: 'ana', to: 'bo', thread, body: 'Really, I like tea.' });
    brain.messages.send({ from: 'ana', to: 'bo', thread, body: "Actually we'll go with SQLite." });
    expect(await brain.knowledge.extract(ruleExtractor())).toMatchObject({
      read: 5,
      added: 2,
      merged: 1,
      superseded: 1,
    });
    const current = brain.knowledge.insights({ thread_id: thread });
    expect(current.map((i) => i.content).sort()).toEqual([
      'The team chose SQLite for the database',
      'ana likes tea',
    ]);
    const tea = current.find((i) => i.content === 'ana likes tea')!;
    expect(tea.sources.map((s) => s.message_id)).toEqual([a.id, b.id]);
    const all = brain.knowledge.insights({ thread_id: thread, include_superseded: true });
    const postgres = all.find((i) => i.content.includes('Postgres'))!;
    const sqlite = all.find((i) => i.content.includes('SQLite'))!;
    expect(postgres.superseded_by).toBe(sqlite.id);
  });

  it('lets an entry supersede only what was learned in its own thread', async () => {
    const { brain, thread } = await conversation();
    // An extractor naming the same key wherever it reads, as a model told to may.
    const global: Extractor = {
      name: 'global',
      version: 1,
      async extract(turn) {
        const choice = /go with (\w+)/i.exec(turn.body);
        return choice
          ? [
              {
                content: `The database is ${choice[1]}`,
                category: 'decision',
                importance: 3,
                sources: [turn.id],
                key: 'database',
              },
            ]
          : [];
      },
    };
    brain.messages.send({ from: 'eve', to: 'bo', subject: 'hi', body: "Let's go with Oracle." });
    await brain.knowledge.extract(global);
    const current = brain.knowledge
      .insights()
      .map((i) => i.content)
      .sort();
    expect(current).toEqual(['The database is Oracle', 'The database is Postgres']);
    brain.messages.send({ from: 'ana', to: 'bo', thread, body: "Actually we'll go with SQLite." });
    expect(await brain.knowledge.extract(global)).toMatchObject({ superseded: 1 });
    expect(
      brain.knowledge
        .insights()
        .map((i) => i.content)
        .sort(),
    ).toEqual(['The database is Oracle', 'The database is SQLite']);
  });

  it('keeps apart two facts that differ in the one word that matters', async () => {
    const { brain, thread } = await conversation();
    const echo: Extractor = {
      name: 'echo',
      version: 1,
      async extract(turn) {
        return [{ content: turn.body, category: 'fact', importance: 1, sources: [turn.id] }];
      },
    };
    brain.messages.send({
      from: 'ana',
      to: 'bo',
      thread,
      body: 'The hub keeps its queue in Postgres in production',
    });
    brain.messages.send({
      from: 'ana',
      to: 'bo',
      thread,
      body: 'The hub keeps its queue in SQLite in production',
    });
    brain.messages.send({
      from: 'bo',
      to: 'ana',
      thread,
      body: 'the hub keeps its queue in SQLite in production!',
    });
    const result = await brain.knowledge.extract(echo);
    // Postgres and SQLite stay two facts; the SQLite one said twice is one, with both sources.
    expect(result).toMatchObject({ read: 5, added: 4, merged: 1 });
    const sqlite = brain.knowledge.insights().find((i) => i.content.includes('SQLite'))!;
    expect(sqlite.sources).toHaveLength(2);
  });

  it('reads only threads tagged extract when told, and nothing when told none', async () => {
    const { brain, thread } = await conversation();
    const other = brain.messages.send({ from: 'bo', to: 'ana', subject: 'x', body: 'I like jazz' });
    expect(await brain.knowledge.extract(ruleExtractor(), { threads: 'none' })).toMatchObject({
      read: 0,
    });
    brain.messages.tagThread({ thread_id: other.thread_id, add: ['extract'] });
    const result = await brain.knowledge.extract(ruleExtractor(), { threads: 'tagged' });
    expect(result).toMatchObject({ read: 1, skipped: 2, added: 1 });
    expect(brain.knowledge.insights({ thread_id: thread })).toEqual([]);
    expect(brain.knowledge.insights({ thread_id: other.thread_id })).toHaveLength(1);
  });

  it('retries a failed read later, and stores nothing twice when a pass is cut short', async () => {
    const { brain, thread } = await conversation();
    brain.messages.send({ from: 'ana', to: 'bo', thread, body: 'boom' });
    brain.messages.send({ from: 'ana', to: 'bo', thread, body: 'I like tea' });
    const rules = ruleExtractor();
    // Cut short after two messages, as by a crash between batches.
    expect(await brain.knowledge.extract(rules, { limit: 2, batchSize: 1 })).toMatchObject({
      read: 2,
      added: 1,
    });
    const rest = await brain.knowledge.extract(rules);
    expect(rest).toMatchObject({ read: 2, added: 1, failed: 1 });
    expect(rest.errors).toEqual([expect.stringMatching(/the model is down/)]);
    expect(brain.knowledge.extractStatus(rules)).toMatchObject({
      pending: 1,
      failed: 1,
      entries: 2,
      last_error: 'the model is down',
    });
    // Not before its retry time: the queue holds it.
    expect(await brain.knowledge.extract(rules)).toMatchObject({ read: 0 });
    expect(brain.knowledge.insights({ include_superseded: true })).toHaveLength(2);
  });

  it('two connections draining at once store each message once', async () => {
    const { brain } = await conversation();
    for (let i = 0; i < 30; i++)
      brain.messages.send({ from: 'ana', to: 'bo', subject: `s${i}`, body: `I like thing${i}` });
    const other = await t.reopen();
    const [a, b] = await Promise.all([
      brain.knowledge.extract(ruleExtractor(), { batchSize: 4 }),
      other.knowledge.extract(ruleExtractor(), { batchSize: 4 }),
    ]);
    expect(a.added + b.added).toBe(31);
    expect(brain.knowledge.insights({ limit: 1000 })).toHaveLength(31);
  });

  it('reads an edited message again: what the old text taught lapses', async () => {
    const { brain, yes } = await conversation();
    const rules = ruleExtractor();
    await brain.knowledge.extract(rules);
    // Messages are edited by importers and repairs, not by a command: as one of them does.
    const { connectionOf } = await import('../../../src/brain.js');
    connectionOf(brain)
      .prepare(`UPDATE messages SET body = ? WHERE id = (SELECT max(id) FROM messages)`)
      .run('Yes, I like Postgres.');
    expect(brain.knowledge.extractStatus(rules)).toMatchObject({ pending: 1 });
    expect(await brain.knowledge.extract(rules)).toMatchObject({ read: 1, added: 1 });
    const now = brain.knowledge.insights();
    expect(now.map((i) => i.content)).toEqual(['bo likes Postgres']);
    expect(now[0]!.sources.map((s) => s.message_id)).toEqual([yes.id]);
    const lapsed = brain.knowledge
      .insights({ include_superseded: true })
      .find((i) => i.content.includes('chose'));
    expect(lapsed?.expires_at).not.toBeNull();
  });

  it('a dry run says what it would learn and stores nothing', async () => {
    const { brain, yes } = await conversation();
    const result = await brain.knowledge.extract(ruleExtractor(), { dryRun: true });
    expect(result.learned).toEqual([
      { message_id: yes.id, entries: [expect.objectContaining({ category: 'decision' })] },
    ]);
    expect(brain.knowledge.insights()).toEqual([]);
    expect(brain.knowledge.extractStatus('rules@1')).toMatchObject({ pending: 2, entries: 0 });
  });

  it('since moves the cursor to a time: older messages are left, newer read again', async () => {
    const { brain } = await conversation();
    const rules = ruleExtractor();
    await brain.knowledge.extract(rules);
    const later = new Date(Date.now() + 60_000).toISOString();
    expect(await brain.knowledge.extract(rules, { since: later })).toMatchObject({ read: 0 });
    expect(await brain.knowledge.extract(rules, { since: '2000-01-01T00:00:00Z' })).toMatchObject({
      read: 2,
      added: 0,
      merged: 1,
    });
    await expect(brain.knowledge.extract(rules, { since: 'yesterday' })).rejects.toThrow(
      /since: must be an ISO 8601/,
    );
  });

  it('an export carries what was learned, its sources and what superseded what', async () => {
    const { brain, thread } = await conversation();
    brain.messages.send({ from: 'ana', to: 'bo', thread, body: "Actually we'll go with SQLite." });
    await brain.knowledge.extract(ruleExtractor());
    const doc = brain.transfer.export();
    const copy = await tempBrain();
    try {
      copy.brain.transfer.import(doc);
      const strip = (xs: ReturnType<typeof brain.knowledge.insights>) =>
        xs.map(({ created_at: _c, ...x }) => x);
      expect(strip(copy.brain.knowledge.insights({ include_superseded: true }))).toEqual(
        strip(brain.knowledge.insights({ include_superseded: true })),
      );
    } finally {
      copy.cleanup();
    }
  });
});
