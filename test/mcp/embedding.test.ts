import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { embedderSlot } from '../../mcp/embedding.js';
import { silentLogger } from '../../mcp/log.js';
import { createHashEmbedder } from '../../src/embed/offline-hash.js';
import { tempBrain, type TempBrain } from '../helpers.js';
import { call, connectInMemory } from './helpers.js';

let t: TempBrain;
beforeEach(async () => {
  t = await tempBrain();
});
afterEach(() => t.cleanup());

describe('search through MCP with an embedder', () => {
  it('answers by words before an embedder is ready, and by words and vectors once it is', async () => {
    const sent = t.brain.messages.send({
      from: 'alice',
      to: 'bob',
      subject: 'gate',
      body: 'the spread gate has no edge',
    });
    let embedder: ReturnType<typeof createHashEmbedder> | undefined;
    const bob = await connectInMemory(t.brain, { agent: 'bob', embedder: () => embedder });
    try {
      const before = await call(bob.client, 'search', { query: 'spread gate' });
      expect(before.hits.map((h: { id: string }) => h.id)).toContain(sent.id);
      expect(before.hits[0].found_by.vector).toBeUndefined();

      embedder = createHashEmbedder(256);
      await t.brain.embed.embedQueued(embedder);
      const after = await call(bob.client, 'search', { query: 'spread gate' });
      const hit = after.hits.find((h: { id: string }) => h.id === sent.id);
      expect(hit.found_by.fts).toBeDefined();
      expect(hit.found_by.vector).toBeDefined();
    } finally {
      await bob.close();
    }
  });

  it('the background task makes the embedder after start-up and drains the queue', async () => {
    t.brain.messages.send({ from: 'alice', to: 'bob', body: 'something to embed' });
    expect(t.brain.embed.embedStatus().pending).toBeGreaterThan(0);
    const slot = embedderSlot({
      embedder: 'offline',
      ollamaHost: 'http://127.0.0.1:9',
      embedModel: 'x',
    });
    expect(slot.get()).toBeUndefined();
    const running = slot.task(t.brain, silentLogger);
    try {
      for (let i = 0; i < 600 && t.brain.embed.embedStatus().pending > 0; i += 1) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(t.brain.embed.embedStatus().pending).toBe(0);
      expect(slot.get()?.provider).toBe('offline');
    } finally {
      await running.stop();
    }
  });
});
