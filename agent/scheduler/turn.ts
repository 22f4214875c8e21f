import type { QueuedTurn, ServiceHost } from '../contracts.js';

/** A scheduled turn: queued behind the owner's and other agents' work, nobody there to ask. */
export function scheduledTurn(
  host: ServiceHost,
  request: {
    session: string;
    text: string;
    source: string;
    foreignText?: boolean;
    /** Foreign content the turn starts with (a reminder set in a tainted turn): its sources. */
    taint?: readonly string[];
  },
): QueuedTurn {
  return host.enqueue({
    session: request.session,
    text: request.text,
    source: request.source,
    ...(request.foreignText ? { foreignText: true } : {}),
    ...(request.taint?.length ? { taint: request.taint } : {}),
    priority: 'scheduled',
    unattended: true,
    // The reply is delivered whole once the turn ends; nothing streams to anyone meanwhile.
    io: { onText: () => {} },
  });
}

/** Short for logs: an error's message, never a body. */
export const errorText = (err: unknown): string =>
  err instanceof Error ? err.message : String(err);

/** Queued turns a component started, so stop() can cancel them and wait for them to settle. */
export function createInflight() {
  const turns = new Set<QueuedTurn>();
  const work = new Set<Promise<unknown>>();
  return {
    turn(q: QueuedTurn): QueuedTurn {
      turns.add(q);
      q.done.then(
        () => turns.delete(q),
        () => turns.delete(q),
      );
      return q;
    },
    track<T>(p: Promise<T>): Promise<T> {
      work.add(p);
      p.then(
        () => work.delete(p),
        () => work.delete(p),
      );
      return p;
    },
    async settle(reason: string): Promise<void> {
      for (const q of turns) q.cancel(reason);
      await Promise.allSettled([...work]);
    },
  };
}
