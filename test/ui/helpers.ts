import { parseTokens } from '../../mcp/access.js';
import type { Brain, WatchTimers } from '../../src/index.js';
import type { SearchEmbedder } from '../../ui/pages/search.js';
import { startUi, type RunningUi } from '../../ui/server.js';
import { tempBrain, type TempBrain } from '../helpers.js';
import { seedBrain, type Seeded } from './seed.js';

export const TOKEN = 'ui-test-token-0123456789abcdef';

/** Timers the test drives: `tick()` runs the watcher's check as its interval would. */
export function manualTimers(): WatchTimers & { tick(): void } {
  const fns = new Set<() => void>();
  return {
    setInterval: (fn) => {
      fns.add(fn);
      return fn;
    },
    clearInterval: (h) => void fns.delete(h as () => void),
    tick: () => fns.forEach((fn) => fn()),
  };
}

export interface UiFixture {
  temp: TempBrain;
  /** The writer the test seeds through (another connection than the server's reader). */
  brain: Brain;
  reader: Brain;
  seeded: Seeded;
  ui: RunningUi;
  base: string;
  timers: ReturnType<typeof manualTimers>;
  get(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/** A seeded brain in a temp folder served by `brain ui` on 127.0.0.1:0. */
export async function startFixture(
  options: {
    tokens?: boolean;
    seed?: boolean;
    searchEmbedder?: SearchEmbedder;
    timeZone?: string;
  } = {},
): Promise<UiFixture> {
  const temp = await tempBrain();
  const seeded = options.seed === false ? (undefined as unknown as Seeded) : seedBrain(temp.brain);
  const reader = await temp.reopen({ readonly: true });
  const writer = await temp.reopen();
  const timers = manualTimers();
  const ui = await startUi({
    host: '127.0.0.1',
    port: 0,
    reader,
    writer,
    timers,
    ...(options.searchEmbedder ? { searchEmbedder: options.searchEmbedder } : {}),
    ...(options.timeZone ? { timeZone: options.timeZone } : {}),
    ...(options.tokens ? { tokens: parseTokens(`${TOKEN} owner\n`) } : {}),
  });
  const base = ui.url.replace(/\/$/, '');
  return {
    temp,
    brain: temp.brain,
    reader,
    seeded,
    ui,
    base,
    timers,
    get: (path, init) => fetch(base + path, { redirect: 'manual', ...init }),
    close: async () => {
      await ui.close();
      temp.cleanup();
    },
  };
}

/** The value of `name="csrf"` in a page. */
export function csrfOf(page: string): string {
  const m = /name="csrf" value="([^"]+)"/.exec(page);
  if (!m) throw new Error('no CSRF token in the page');
  return m[1]!;
}
