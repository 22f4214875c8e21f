import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { figuresOf, type OpFigures } from './measure.js';

/** The built CLI beside this module (dist/bench/latency → dist/cli/main.js). */
export const CLI_PATH = fileURLToPath(new URL('../../cli/main.js', import.meta.url));

/**
 * `brain poll` as a whole process, as an agent's hook would run it: node's start-up, opening
 * the brain, the count and the agent's last-seen update. Wall time of each run; the first is
 * a warm-up and not counted.
 */
export function measurePollProcess(dbPath: string, agent: string, runs: number): OpFigures {
  const samples: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const t0 = performance.now();
    const child = spawnSync(
      process.execPath,
      [CLI_PATH, 'poll', '--agent', agent, '--db', dbPath, '--json'],
      { env: { ...process.env, BRAIN_EMBEDDER: 'none', NO_COLOR: '1' }, encoding: 'utf8' },
    );
    const ms = performance.now() - t0;
    if (child.status !== 0) {
      throw new Error(
        `brain poll exited with ${child.status ?? child.signal}: ${(child.stderr || String(child.error ?? '')).trim()}`,
      );
    }
    if (i > 0) samples.push(ms);
  }
  return figuresOf(samples);
}
