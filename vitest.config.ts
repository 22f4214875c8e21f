import { defineConfig } from 'vitest/config';

/**
 * Files that put many processes on one SQLite file for seconds and assert on what they all saw:
 * they run after the rest, one at a time, so no other test file competes with them for the CPU.
 */
const exclusive = [
  'test/reliability/concurrency.test.ts',
  'test/reliability/crash.test.ts',
  'test/reliability/wal.test.ts',
  'test/mcp/concurrency.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'main',
          include: ['test/**/*.test.ts'],
          exclude: exclusive,
          // vitest's default on 2 cores is 1 worker: most tests wait on child processes
          // (the built CLI, brain agent, MCP servers, chromium), so a second file runs meanwhile.
          maxWorkers: 2,
        },
      },
      {
        extends: true,
        test: {
          name: 'exclusive',
          include: exclusive,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
