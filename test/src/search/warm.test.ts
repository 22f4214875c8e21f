import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectionOf } from '../../../src/brain.js';
import { tempBrain, type TempBrain } from '../../helpers.js';

let t: TempBrain;
beforeEach(async () => {
  t = await tempBrain();
});
afterEach(() => t.cleanup());

describe('warmSearch', () => {
  it("reads every index's row lengths into memory, the rows since included on the next search", () => {
    const sent = t.brain.messages.send({ from: 'atlas', to: 'nova', body: 'lantern by the quay' });
    t.brain.knowledge.remember({
      agent: 'atlas',
      content: 'the lantern is blue',
      source_message_id: sent.id,
    });
    const loaded = connectionOf(t.brain).prepare(`SELECT brain_fts_norms(?, 0)`).pluck();
    for (const index of ['messages_fts', 'stm_fts', 'atoms_fts'])
      expect(loaded.get(`${index}_docsize`)).toBe(-1);
    t.brain.search.warmSearch();
    expect(loaded.get('messages_fts_docsize')).toBeGreaterThan(0);
    expect(loaded.get('stm_fts_docsize')).toBeGreaterThan(0);
    expect(loaded.get('atoms_fts_docsize')).toBe(0); // loaded, and empty
    expect(t.brain.search.search({ query: 'lantern' }).hits).toHaveLength(2);
  });

  it('does nothing on a connection without the compiled ranking function', async () => {
    const plain = await t.reopen({ rankFunction: false });
    expect(() => plain.search.warmSearch()).not.toThrow();
    expect(plain.search.search({ query: 'lantern' }).hits).toHaveLength(0);
  });
});
