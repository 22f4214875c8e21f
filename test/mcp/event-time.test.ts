import { afterEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../cli-in-process.js';
import { tempBrain, tempDir, type TempBrain } from '../helpers.js';
import { call, callRaw, connectInMemory, textOf, type Connected } from './helpers.js';

let t: TempBrain | undefined;
let alice: Connected | undefined;
afterEach(async () => {
  await alice?.close();
  t?.cleanup();
});

describe('event time and archived threads through the adapters', () => {
  it('MCP remember and create_atom read occurred_at as said in the owner zone; a bad one stores nothing', async () => {
    t = await tempBrain();
    alice = await connectInMemory(t.brain, { agent: 'alice', timeZone: 'Pacific/Kiritimati' });
    const stm = await call(alice.client, 'remember', {
      content: 'fees launch',
      occurred_at: 'tomorrow',
    });
    // Tomorrow starts at 00:00 in Kiritimati (UTC+14): 10:00 UTC the day before.
    expect(stm.occurred_at).toMatch(/T10:00:00\.000Z$/);
    const atom = await call(alice.client, 'create_atom', {
      subject: 'fees',
      action: 'launch',
      outcome: 'live',
      occurred_at: '2026-12-04',
    });
    expect(atom.occurred_at).toBe('2026-12-04T00:00:00.000Z');
    const bad = await callRaw(alice.client, 'remember', { content: 'x', occurred_at: 'whenever' });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/occurred_at: must be an ISO 8601 date or time/);
    expect(t.brain.knowledge.listStm().map((s) => s.id)).toEqual([stm.id]);
  });

  it('brain search --no-archived leaves archived threads out; without it they are found', async () => {
    const d = tempDir();
    try {
      const env = { BRAIN_DB: `${d.dir}/brain.db`, BRAIN_EMBEDDER: 'none' };
      const send = await runCliInProcess(
        ['--agent', 'a', 'send', '--to', 'b', '--body', 'fees of old', '--json'],
        env,
      );
      const old = JSON.parse(send.stdout) as { thread_id: string };
      await runCliInProcess(['--agent', 'a', 'send', '--to', 'b', '--body', 'fees now'], env);
      const archive = await runCliInProcess(['archive', old.thread_id], env);
      expect(archive.code, archive.stderr).toBe(0);
      const all = await runCliInProcess(['search', 'fees', '--json'], env);
      expect(JSON.parse(all.stdout).hits).toHaveLength(2);
      const active = await runCliInProcess(['search', 'fees', '--no-archived', '--json'], env);
      const hits = JSON.parse(active.stdout).hits as Array<{ thread_id: string }>;
      expect(hits).toHaveLength(1);
      expect(hits[0]!.thread_id).not.toBe(old.thread_id);
    } finally {
      d.cleanup();
    }
  });
});
