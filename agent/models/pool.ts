import type { Clock } from '../../src/index.js';
import {
  ModelError,
  type ModelClient,
  type ModelErrorKind,
  type ModelPool,
  type ModelRequest,
  type ModelResponse,
} from './types.js';

/** One line per event on stderr; never a token or a message body at info level. */
export type ModelLog = (
  level: 'debug' | 'info' | 'warn' | 'error',
  event: string,
  fields?: Record<string, unknown>,
) => void;

/** Waits `ms` by the pool's timers; rejects when the signal aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface PoolEndpoint {
  client: ModelClient;
  /** Lower is preferred. */
  priority?: number;
  tags?: string[];
}

export interface PoolOptions {
  clock: Clock;
  log: ModelLog;
  /** Default: a global `setTimeout`, so tests can fake it. */
  sleep?: Sleep;
  /** Connection errors: retries on the same endpoint before the next, with doubling waits. */
  backoff?: { retries?: number; baseMs?: number; maxMs?: number };
  /**
   * Cooling an endpoint that said 429/529 without a `retry-after`: `defaultMs` (30 s); one that
   * failed otherwise (5xx, no connection after its retries): `errorMs` (5 s); each doubled on
   * every failure in a row, at most `maxMs`. `maxWaitMs`: when every endpoint is cooling for
   * want of capacity (429/529) and the first is back within this, wait for it rather than fail.
   */
  cooldown?: { defaultMs?: number; errorMs?: number; maxMs?: number; maxWaitMs?: number };
}

interface Entry {
  client: ModelClient;
  priority: number;
  tags: string[];
  /** Milliseconds since 1970 when it may be used again. */
  coolingUntil: number | undefined;
  /** Cool-downs in a row, for the growing default. */
  strikes: number;
  disabled: boolean;
  lastError: ModelError | undefined;
}

/** The caller's problem, not the endpoint's: thrown straight back, no failover. */
const CALLER_KINDS: ReadonlySet<ModelErrorKind> = new Set([
  'aborted',
  'context_too_long',
  'bad_request',
]);

/** Out of capacity for now: worth waiting for, and cooled for longer. */
const CAPACITY_KINDS: ReadonlySet<ModelErrorKind> = new Set(['rate_limited', 'overloaded']);

/** The caller's request, handed to each try with a fresh record of whether text was shown. */
interface Streamed {
  signal: AbortSignal | undefined;
  fresh(): ModelRequest;
}

/**
 * Each try gets its own `onText` that notes text was shown; a try after one that showed text
 * first tells the caller (`onRestart`) that the text so far is void.
 */
function streamed(request: ModelRequest): Streamed {
  let shown = false;
  return {
    signal: request.signal,
    fresh() {
      if (shown) request.onRestart?.();
      shown = false;
      const { onText } = request;
      if (!onText) return request;
      return {
        ...request,
        onText: (delta) => {
          shown = true;
          onText(delta);
        },
      };
    },
  };
}

const defaultSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new ModelError('aborted', 'request aborted'));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ModelError('aborted', 'request aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

function asModelError(err: unknown, endpoint: string): ModelError {
  if (err instanceof ModelError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new ModelError('server', `${endpoint}: ${message}`, { endpoint, cause: err });
}

/**
 * Endpoints grouped by priority: calls take turns among the ready endpoints of the best group.
 * An endpoint that is rate limited or overloaded cools down (for its `retry-after`, else a
 * growing default) while the next serves; one that refuses the key is disabled; connection
 * errors are retried with backoff on the same endpoint, then it cools down too. When its
 * cool-down ends by the clock, a preferred endpoint is chosen again.
 */
export function createModelPool(endpoints: PoolEndpoint[], options: PoolOptions): ModelPool {
  const { clock, log } = options;
  const sleep = options.sleep ?? defaultSleep;
  const retries = options.backoff?.retries ?? 2;
  const baseMs = options.backoff?.baseMs ?? 250;
  const maxBackoffMs = options.backoff?.maxMs ?? 1_000;
  const defaultCoolMs = options.cooldown?.defaultMs ?? 30_000;
  const errorCoolMs = options.cooldown?.errorMs ?? 5_000;
  const maxCoolMs = options.cooldown?.maxMs ?? 300_000;
  const maxWaitMs = options.cooldown?.maxWaitMs ?? 10_000;

  const entries: Entry[] = endpoints.map((e) => ({
    client: e.client,
    priority: e.priority ?? 0,
    tags: e.tags ?? [],
    coolingUntil: undefined,
    strikes: 0,
    disabled: false,
    lastError: undefined,
  }));
  /** Per priority: where the next round-robin pick starts. */
  const turns = new Map<number, number>();

  const ready = (e: Entry, now: number) =>
    !e.disabled && (e.coolingUntil === undefined || e.coolingUntil <= now);

  function pick(candidates: Entry[], tried: Set<Entry>, now: number): Entry | undefined {
    const usable = candidates.filter((e) => ready(e, now) && !tried.has(e));
    if (usable.length === 0) return undefined;
    const best = Math.min(...usable.map((e) => e.priority));
    const group = candidates.filter((e) => e.priority === best);
    const start = turns.get(best) ?? 0;
    for (let i = 0; i < group.length; i++) {
      const e = group[(start + i) % group.length]!;
      if (usable.includes(e)) {
        turns.set(best, (start + i + 1) % group.length);
        return e;
      }
    }
    return undefined;
  }

  function coolDown(e: Entry, err: ModelError): void {
    const base = CAPACITY_KINDS.has(err.kind) ? defaultCoolMs : errorCoolMs;
    const ms = Math.min(err.retryAfterMs ?? base * 2 ** e.strikes, maxCoolMs);
    e.strikes += 1;
    e.coolingUntil = clock().getTime() + ms;
    log('warn', 'model.cooldown', { endpoint: e.client.id, kind: err.kind, ms });
  }

  function disable(e: Entry, err: ModelError): void {
    if (e.disabled) return;
    e.disabled = true;
    const reason = `authentication failed${err.status ? ` (${err.status})` : ''}`;
    log('error', 'model.disabled', { endpoint: e.client.id, reason });
  }

  /** One endpoint, with its connection retries. Returns the error that moves us on. */
  async function attempt(e: Entry, request: Streamed): Promise<ModelResponse | ModelError> {
    for (let round = 0; ; round++) {
      try {
        const response = await e.client.complete(request.fresh());
        e.strikes = 0;
        e.coolingUntil = undefined;
        return response;
      } catch (thrown) {
        const err = asModelError(thrown, e.client.id);
        if (CALLER_KINDS.has(err.kind)) throw err;
        e.lastError = err;
        if (err.kind !== 'connection' || round >= retries) return err;
        const wait = Math.min(baseMs * 2 ** round, maxBackoffMs);
        log('debug', 'model.retry', { endpoint: e.client.id, kind: err.kind, ms: wait });
        await sleep(wait, request.signal);
      }
    }
  }

  function exhausted(candidates: Entry[], last: ModelError | undefined): ModelError {
    const now = clock().getTime();
    const parts = candidates.map((e) => {
      const state = e.disabled
        ? 'disabled'
        : e.coolingUntil !== undefined && e.coolingUntil > now
          ? `cooling until ${new Date(e.coolingUntil).toISOString()}`
          : 'ready';
      return `${e.client.id} ${state}${e.lastError ? ` (${e.lastError.message})` : ''}`;
    });
    const cooling = candidates
      .filter((e) => !e.disabled && e.coolingUntil !== undefined && e.coolingUntil > now)
      .map((e) => e.coolingUntil! - now);
    // This call's last error, else (nothing was tried) what the endpoint back first last said.
    const first = candidates
      .filter((e) => !e.disabled && e.coolingUntil !== undefined && e.coolingUntil > now)
      .sort((a, b) => a.coolingUntil! - b.coolingUntil!)[0];
    const kind: ModelErrorKind =
      last?.kind ?? first?.lastError?.kind ?? (first ? 'overloaded' : 'auth');
    return new ModelError(kind, `no model endpoint answered: ${parts.join('; ')}`, {
      ...(cooling.length > 0 ? { retryAfterMs: Math.min(...cooling) } : {}),
      ...(last?.status !== undefined ? { status: last.status } : {}),
    });
  }

  return {
    async complete(request, callOptions = {}) {
      const wanted = callOptions.tags ?? [];
      const candidates = entries.filter((e) => wanted.every((t) => e.tags.includes(t)));
      if (candidates.length === 0) {
        throw new ModelError('bad_request', `no model endpoint has the tags ${wanted.join(', ')}`);
      }
      const tried = new Set<Entry>();
      const tries = streamed(request);
      let last: ModelError | undefined;
      let waits = 0;
      for (;;) {
        if (request.signal?.aborted) throw new ModelError('aborted', 'request aborted');
        const now = clock().getTime();
        const e = pick(candidates, tried, now);
        if (!e) {
          // Everything is out of capacity: a short wait for the first one back beats failing
          // the turn. Errors of other kinds are not waited for: they would only repeat.
          const back = candidates
            .filter((c) => !c.disabled && c.coolingUntil !== undefined)
            .filter((c) => c.lastError !== undefined && CAPACITY_KINDS.has(c.lastError.kind))
            .map((c) => c.coolingUntil! - now);
          const soonest = back.length > 0 ? Math.max(0, Math.min(...back)) : undefined;
          if (soonest === undefined || soonest > maxWaitMs || waits >= 2) {
            throw exhausted(candidates, last);
          }
          waits += 1;
          tried.clear();
          log('info', 'model.wait', { ms: soonest });
          await sleep(soonest, request.signal);
          continue;
        }
        tried.add(e);
        const result = await attempt(e, tries);
        if (!(result instanceof ModelError)) {
          if (last) log('info', 'model.failover', { endpoint: e.client.id, after: last.kind });
          return result;
        }
        last = result;
        if (result.kind === 'auth') disable(e, result);
        else coolDown(e, result);
      }
    },

    status() {
      const now = clock().getTime();
      return entries.map((e) => {
        const cooling = !e.disabled && e.coolingUntil !== undefined && e.coolingUntil > now;
        return {
          id: e.client.id,
          state: e.disabled ? 'disabled' : cooling ? 'cooling' : 'ready',
          ...(cooling ? { until: new Date(e.coolingUntil!).toISOString() } : {}),
          ...(e.lastError ? { lastError: e.lastError.message } : {}),
        };
      });
    },
  };
}
