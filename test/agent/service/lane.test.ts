import { describe, expect, it } from 'vitest';
import { createLane, type TurnRunner } from '../../../agent/service/lane.js';
import { TurnCancelledError } from '../../../agent/contracts.js';
import type { LanePriority, TurnRequest } from '../../../agent/contracts.js';
import type { TurnResult } from '../../../agent/loop.js';

/** A runner whose turns finish only when the test says so, recording the order they start in. */
function controlledRunner() {
  const started: string[] = [];
  const pending = new Map<string, { finish: () => void; signal: AbortSignal }>();
  const run: TurnRunner = (request, signal) =>
    new Promise<TurnResult>((resolve, reject) => {
      started.push(request.text);
      const result = {
        reply: `re ${request.text}`,
        session: request.session,
        threadId: 't',
        messageIds: { user: 'u', reply: 'r' },
        usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        stopReason: 'end_turn',
        cancelled: false,
      } as TurnResult;
      pending.set(request.text, { finish: () => resolve(result), signal });
      signal.addEventListener('abort', () => reject(signal.reason as Error));
    });
  return {
    run,
    started,
    finish(text: string) {
      pending.get(text)!.finish();
    },
    signal: (text: string) => pending.get(text)!.signal,
  };
}

const request = (session: string, text: string, priority: LanePriority = 'owner'): TurnRequest => ({
  session,
  text,
  source: 'test',
  priority,
  unattended: true,
  io: { onText() {} },
});

const flush = () => new Promise((r) => setImmediate(r));

describe('the lane', () => {
  it('starts owner turns before agent turns before scheduled ones, whatever the order they came in', async () => {
    const r = controlledRunner();
    const lane = createLane({ maxConcurrent: 1, run: r.run });
    const first = lane.enqueue(request('s0', 'first', 'scheduled'));
    await flush();
    lane.enqueue(request('s1', 'cron', 'scheduled'));
    lane.enqueue(request('s2', 'other agent', 'agent'));
    lane.enqueue(request('s3', 'owner', 'owner'));
    await flush();
    expect(r.started).toEqual(['first']);
    r.finish('first');
    await first.done;
    await flush();
    r.finish('owner');
    await flush();
    r.finish('other agent');
    await flush();
    expect(r.started).toEqual(['first', 'owner', 'other agent', 'cron']);
  });

  it('runs one turn of a session at a time, in order, while other sessions go ahead', async () => {
    const r = controlledRunner();
    const lane = createLane({ maxConcurrent: 2, run: r.run });
    const a1 = lane.enqueue(request('a', 'a1'));
    lane.enqueue(request('a', 'a2'));
    lane.enqueue(request('b', 'b1'));
    await flush();
    expect(r.started).toEqual(['a1', 'b1']);
    expect(lane.busy('a')).toBe(true);
    r.finish('a1');
    expect((await a1.done).reply).toBe('re a1');
    await flush();
    expect(r.started).toEqual(['a1', 'b1', 'a2']);
  });

  it('runs no more sessions at once than maxConcurrent, and more once the limit is raised', async () => {
    const r = controlledRunner();
    const lane = createLane({ maxConcurrent: 2, run: r.run });
    for (const s of ['a', 'b', 'c', 'd']) lane.enqueue(request(s, s));
    await flush();
    expect(r.started).toEqual(['a', 'b']);
    expect(lane.running).toBe(2);
    expect(lane.queued).toBe(2);
    lane.setMaxConcurrent(3);
    await flush();
    expect(r.started).toEqual(['a', 'b', 'c']);
    r.finish('a');
    await flush();
    expect(r.started).toEqual(['a', 'b', 'c', 'd']);
  });

  it('cancels a queued turn before it starts: done rejects and the turn never runs', async () => {
    const r = controlledRunner();
    const lane = createLane({ maxConcurrent: 1, run: r.run });
    lane.enqueue(request('a', 'a'));
    const b = lane.enqueue(request('b', 'b'));
    await flush();
    b.cancel('not wanted');
    await expect(b.done).rejects.toBeInstanceOf(TurnCancelledError);
    expect(lane.busy('b')).toBe(false);
    r.finish('a');
    await lane.idle();
    expect(r.started).toEqual(['a']);
  });

  it('cancels a running turn through its signal, and cancelSession says one was running', async () => {
    const r = controlledRunner();
    const lane = createLane({ maxConcurrent: 2, run: r.run });
    const a = lane.enqueue(request('a', 'a1'));
    const queued = lane.enqueue(request('a', 'a2'));
    await flush();
    expect(lane.cancelSession('a')).toBe(true);
    expect(r.signal('a1').aborted).toBe(true);
    await expect(a.done).rejects.toBeInstanceOf(TurnCancelledError);
    await expect(queued.done).rejects.toBeInstanceOf(TurnCancelledError);
    await lane.idle();
    expect(r.started).toEqual(['a1']);
    expect(lane.busy('a')).toBe(false);
    expect(lane.cancelSession('a')).toBe(false);
  });

  it('keeps going after a turn fails: the failure goes to that turn only', async () => {
    let calls = 0;
    const lane = createLane({
      maxConcurrent: 1,
      run: async (req) => {
        calls++;
        if (req.text === 'bad') throw new Error('boom');
        return { reply: 'ok' } as TurnResult;
      },
    });
    const bad = lane.enqueue(request('a', 'bad'));
    const good = lane.enqueue(request('a', 'good'));
    await expect(bad.done).rejects.toThrow('boom');
    expect((await good.done).reply).toBe('ok');
    expect(calls).toBe(2);
  });
});
