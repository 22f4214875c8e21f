import { defineConfig } from 'vitest/config';

/**
 * The library's tests: temp databases, no process-wide state they leave behind. They share their
 * workers' module cache (isolate: false): importing the library and its dependencies afresh for
 * each file cost more than the tests themselves.
 */
const library = ['test/src/**/*.test.ts', 'test/search/**/*.test.ts'];

/**
 * Files that put many processes on one SQLite file for seconds and assert on what they all saw:
 * they run one at a time, beside at most one other test file.
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
    // vitest's default on 2 cores is 1 worker: most tests wait on child processes (the built
    // CLI, brain agent, MCP servers, chromium), so a second file runs meanwhile.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'main',
          include: ['test/**/*.test.ts'],
          exclude: [...library, ...exclusive],
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'library',
          include: library,
          exclude: exclusive,
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'exclusive',
          include: exclusive,
          fileParallelism: false,
        },
      },
    ],
  },
});
