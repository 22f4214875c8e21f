import type { Brain } from '../src/index.js';
import type { Logger } from './log.js';

/**
 * Work a long-running server does beside answering requests, started once it is ready to answer
 * (so `initialize` never waits for it) and stopped on shutdown. The seam for the embedding queue:
 * `brain mcp` and `brain serve` pass the drainer here (see cli/commands/mcp.ts).
 */
export type BackgroundTask = (brain: Brain, log: Logger) => { stop(): void | Promise<void> };

export function startBackground(
  tasks: BackgroundTask[],
  brain: Brain,
  log: Logger,
): () => Promise<void> {
  const running = tasks.map((task) => task(brain, log));
  return async () => {
    for (const r of running) await r.stop();
  };
}
