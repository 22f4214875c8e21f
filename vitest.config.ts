import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/longest-first.js';

/**
 * Files that put many processes on one SQLite file for seconds and assert on what they all saw,
 * and the assistant's crash run: the stress project, which `npm run test:stress` runs (and .ci/run after `npm test`), one at a
 * time, since each keeps both cores busy by itself (~1.7 cores on average). `npm test` leaves
 * them out to stay within its three minutes; the single-process reliability tests stay in it.
 */
const stress = [
  'test/reliability/concurrency.test.ts',
  'test/reliability/crash.test.ts',
  'test/reliability/extract-crash.test.ts',
  'test/reliability/wal.test.ts',
  'test/mcp/concurrency.test.ts',
  // brain agent killed mid-turn, six times over, and started again: a crash run of the assistant.
  'test/agent/crash/interrupted-turn.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // vitest's default on 2 cores is 1 worker: most tests wait on child processes (the built
    // CLI, brain agent, MCP servers, chromium), so a second file runs meanwhile.
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        test: {
          // Every other file, library and processes alike, in one project, longest first (the
          // sequencer): the long files start at once instead of after the library's, and the
          // two workers keep their module cache from file to file (isolate: false; importing
          // afresh cost more than the tests).
          name: 'main',
          include: ['test/**/*.test.ts'],
          exclude: stress,
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'stress',
          include: stress,
          fileParallelism: false,
          // One worker takes the files in turn, keeping its module cache (a fresh worker per
          // file cost ~1 s each); vitest then needs the group's order given.
          isolate: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
