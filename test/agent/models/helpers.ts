import type { ModelLog } from '../../../agent/models/pool.js';
import { freePort } from '../../fakes/http.js';

/** A URL on 127.0.0.1 where nothing listens: connecting to it is refused. */
export async function closedPortUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}

/** A clock the test moves, and a sleep that moves it (and remembers what it was asked to wait). */
export function manualTime(start = Date.parse('2026-11-25T12:00:00.000Z')) {
  let now = start;
  const waits: number[] = [];
  return {
    clock: () => new Date(now),
    advance(ms: number) {
      now += ms;
    },
    waits,
    sleep: async (ms: number, signal?: AbortSignal) => {
      signal?.throwIfAborted();
      waits.push(ms);
      now += ms;
    },
  };
}

export interface LogLine {
  level: string;
  event: string;
  fields: Record<string, unknown>;
}

export function captureLog(): { log: ModelLog; lines: LogLine[] } {
  const lines: LogLine[] = [];
  return { log: (level, event, fields = {}) => lines.push({ level, event, fields }), lines };
}
