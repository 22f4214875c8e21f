import { cutVisibly, type ReflectResult } from '../../src/index.js';
import type { ServiceComponent, ServiceHost } from '../contracts.js';
import { parseTarget } from './config.js';

/** The longest line of a follow-up the owner is shown. */
const LINE_MAX = 300;

export interface ReflectionOutcome {
  status: 'delivered' | 'quiet' | 'skipped';
  reason: string;
  result?: ReflectResult;
}

export interface ReflectionComponent extends ServiceComponent {
  /** Reflect now (as the timer does), for `brain agent` commands and tests. */
  tick(): Promise<ReflectionOutcome>;
}

/**
 * The brain going over what it learned, every `scheduler.reflection.everyHours` (default a day),
 * at low priority: skipped while the owner has a turn running. It changes only the brain's
 * knowledge (each change undoable with `brain reflect --undo`); commitments and to-dos nobody
 * followed up are told to the owner like a heartbeat finding, and never acted on unasked. It
 * needs no model.
 */
export function createReflection(): ReflectionComponent {
  let host: ServiceHost | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  let everyHours: number | undefined;

  function arm(h: ServiceHost): void {
    const cfg = h.config().scheduler.reflection;
    const wanted = cfg.enabled ? cfg.everyHours : undefined;
    if (wanted === everyHours) return;
    if (timer) clearInterval(timer);
    timer = undefined;
    everyHours = wanted;
    if (wanted === undefined) return;
    timer = setInterval(() => {
      void tick().catch((err: unknown) =>
        h.log('warn', 'reflection.failed', { error: (err as Error).message }),
      );
    }, wanted * 3_600_000);
    timer.unref();
  }

  async function tick(): Promise<ReflectionOutcome> {
    if (!host) throw new Error('reflection: not started');
    const h = host;
    if (h.busy(h.ownerSession()))
      return { status: 'skipped', reason: 'the owner has a turn running' };
    const result = h.brain.knowledge.reflect();
    h.log('info', 'reflection.done', {
      considered: result.considered,
      merged: result.merged,
      raised: result.raised,
      expired: result.expired,
      follow_ups: result.follow_ups.length,
    });
    if (result.follow_ups.length === 0)
      return { status: 'quiet', reason: 'nothing to follow up', result };
    // What others said, quoted as such: the owner decides whether anything is done about it.
    const lines = result.follow_ups.map(
      (f) => `- ${cutVisibly(f.content, LINE_MAX)} (${f.agent}, ${f.said_at.slice(0, 10)})`,
    );
    const text = `Not followed up since it was said:\n${lines.join('\n')}`;
    const delivered = await h.deliver(text, parseTarget(h.config().scheduler.reflection.deliverTo));
    return delivered
      ? { status: 'delivered', reason: 'follow-ups', result }
      : { status: 'skipped', reason: 'no channel took it', result };
  }

  return {
    name: 'reflection',
    async start(h) {
      host = h;
      arm(h);
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      everyHours = undefined;
    },
    reconfigure() {
      if (host) arm(host);
    },
    tick,
  };
}
