import type { TurnResult } from '../loop.js';
import {
  TurnCancelledError,
  type LanePriority,
  type QueuedTurn,
  type TurnRequest,
} from '../contracts.js';

/**
 * The one lane every inbound turn goes through: a priority queue (owner, then other agents, then
 * scheduled work; first come first served within a priority), one turn per session at a time, and
 * up to `maxConcurrent` sessions running at once. A queued turn can be cancelled before it starts
 * (its `done` rejects with a `TurnCancelledError`); a running one is cancelled through its signal.
 */

export const LANE_PRIORITIES: readonly LanePriority[] = ['owner', 'agent', 'scheduled'];

/** Runs one turn; it must stop soon after `signal` aborts (the assistant's loop does). */
export type TurnRunner = (request: TurnRequest, signal: AbortSignal) => Promise<TurnResult>;

export interface Lane {
  enqueue(request: TurnRequest): QueuedTurn;
  /** Cancel the session's queued and running turns; true when one was running. */
  cancelSession(session: string, reason?: string): boolean;
  busy(session: string): boolean;
  /** Queued turns of every session, and the running ones. */
  readonly queued: number;
  readonly running: number;
  setMaxConcurrent(n: number): void;
  /** Cancel everything queued (and running, when `running` is true). */
  cancelAll(reason: string, options?: { running?: boolean }): void;
  /** Resolves when nothing runs and nothing is queued. */
  idle(): Promise<void>;
}

interface Entry {
  request: TurnRequest;
  controller: AbortController;
  resolve(result: TurnResult): void;
  reject(err: unknown): void;
  started: boolean;
}

export function createLane(options: { maxConcurrent: number; run: TurnRunner }): Lane {
  let maxConcurrent = Math.max(1, options.maxConcurrent);
  const queues = new Map<LanePriority, Entry[]>(LANE_PRIORITIES.map((p) => [p, []]));
  const running = new Map<string, Entry>();
  let idleWaiters: Array<() => void> = [];

  const queuedCount = () => [...queues.values()].reduce((n, q) => n + q.length, 0);

  const settleIdle = () => {
    if (running.size > 0 || queuedCount() > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const w of waiters) w();
  };

  /** The first queued turn, by priority then age, whose session is not already running. */
  const takeNext = (): Entry | undefined => {
    for (const p of LANE_PRIORITIES) {
      const queue = queues.get(p)!;
      const i = queue.findIndex((e) => !running.has(e.request.session));
      if (i >= 0) return queue.splice(i, 1)[0];
    }
    return undefined;
  };

  const pump = () => {
    while (running.size < maxConcurrent) {
      const entry = takeNext();
      if (!entry) break;
      start(entry);
    }
    settleIdle();
  };

  const start = (entry: Entry) => {
    entry.started = true;
    running.set(entry.request.session, entry);
    let result: Promise<TurnResult>;
    try {
      result = options.run(entry.request, entry.controller.signal);
    } catch (err) {
      result = Promise.reject(err);
    }
    // The session is free before its caller hears the result: `busy` is false by then.
    const finish = () => {
      running.delete(entry.request.session);
      pump();
    };
    result.then(
      (value) => {
        finish();
        entry.resolve(value);
      },
      (err: unknown) => {
        finish();
        entry.reject(err);
      },
    );
  };

  const dropQueued = (match: (e: Entry) => boolean, reason: string) => {
    for (const queue of queues.values()) {
      for (let i = queue.length - 1; i >= 0; i--) {
        const entry = queue[i]!;
        if (!match(entry)) continue;
        queue.splice(i, 1);
        entry.reject(new TurnCancelledError(entry.request.session, reason));
      }
    }
  };

  return {
    enqueue(request) {
      const controller = new AbortController();
      let entry!: Entry;
      const done = new Promise<TurnResult>((resolve, reject) => {
        entry = { request, controller, resolve, reject, started: false };
      });
      // A caller that never awaits `done` must not see an unhandled rejection on cancel.
      done.catch(() => {});
      queues.get(request.priority)!.push(entry);
      queueMicrotask(pump);
      return {
        done,
        cancel(reason = 'cancelled') {
          if (entry.started) {
            if (!controller.signal.aborted)
              controller.abort(new TurnCancelledError(request.session, reason));
            return;
          }
          dropQueued((e) => e === entry, reason);
          settleIdle();
        },
      };
    },
    cancelSession(session, reason = 'cancelled') {
      dropQueued((e) => e.request.session === session, reason);
      const current = running.get(session);
      if (current && !current.controller.signal.aborted)
        current.controller.abort(new TurnCancelledError(session, reason));
      settleIdle();
      return current !== undefined;
    },
    busy(session) {
      if (running.has(session)) return true;
      for (const queue of queues.values())
        if (queue.some((e) => e.request.session === session)) return true;
      return false;
    },
    get queued() {
      return queuedCount();
    },
    get running() {
      return running.size;
    },
    setMaxConcurrent(n) {
      maxConcurrent = Math.max(1, n);
      pump();
    },
    cancelAll(reason, opts = {}) {
      dropQueued(() => true, reason);
      if (opts.running)
        for (const entry of running.values())
          if (!entry.controller.signal.aborted)
            entry.controller.abort(new TurnCancelledError(entry.request.session, reason));
      settleIdle();
    },
    idle() {
      if (running.size === 0 && queuedCount() === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
  };
}
