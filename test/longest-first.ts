import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Test files longest first, across projects: with two workers the suite ends when its longest
 * files do, so they start at once. Durations come from vitest's cache of earlier runs (under
 * whichever project a file ran last, so renaming a project keeps them), else USUALLY_LONG;
 * files of unknown duration come after, largest first. Failed files go first.
 * (vitest's own order runs project after project, by name, and only then by duration.)
 */
/**
 * Where vitest has no duration yet (a fresh clone: its cache lives in node_modules), the files
 * that took longest in a full run on the 2-core machine (ms, 2026-11-25): they still start first.
 */
const USUALLY_LONG: Record<string, number> = {
  'test/ui/browser.test.ts': 20_100,
  'test/agent/chat-cli.test.ts': 17_600,
  'test/cli/startup.test.ts': 11_000,
  'test/cli/bench/bench-cli.test.ts': 10_400,
  'test/agent/service/agent-cli.test.ts': 10_300,
  'test/cli/embed.test.ts': 8_300,
  'test/agent/mcp/manager.test.ts': 7_800,
  'test/src/search/bm25-top-k.test.ts': 7_600,
  'test/mcp/stdio.test.ts': 7_300,
  'test/agent/scheduler/email.test.ts': 6_600,
  'test/agent/chat-approvals.test.ts': 6_100,
  'test/reliability/secrets.test.ts': 6_000,
  'test/agent/mcp/assistant.test.ts': 5_800,
  'test/cli/cli.test.ts': 5_600,
  'test/agent/channels/telegram/turns.test.ts': 4_700,
  'test/src/maintenance.test.ts': 4_300,
  'test/src/search/postings.test.ts': 4_900,
  'test/agent/channels/telegram/agent-process.test.ts': 4_500,
  'test/agent/mcp/servers.test.ts': 4_300,
  'test/reliability/hostile-library.test.ts': 4_300,
  'test/cli/agent-startup.test.ts': 3_400,
  'test/agent/compaction.test.ts': 3_300,
  'test/src/search/rank-function.test.ts': 3_200,
  'test/src/maintenance/idle.test.ts': 3_200,
  'test/agent/mcp/cli.test.ts': 3_200,
  'test/cli/read-lock.test.ts': 3_100,
  'test/reliability/hostile-cli.test.ts': 3_000,
};

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cache = this.ctx.cache;
    const root = this.ctx.config.root;
    const projects = [...new Set(['', ...this.ctx.projects.map((p) => p.name), 'library'])];
    const known = new Map<TestSpecification, { failed: boolean; ms: number; size: number }>();
    for (const spec of files) {
      const path = relative(root, spec.moduleId);
      const last = [spec.project.name, ...projects]
        .map((name) => cache.getFileTestResults(`${name}:${path}`))
        .find((r) => r !== undefined);
      const size = cache.getFileStats(`${spec.project.name}:${path}`)?.size ?? 0;
      const ms = last?.duration ?? USUALLY_LONG[path] ?? -1;
      known.set(spec, { failed: last?.failed ?? false, ms, size });
    }
    return [...files].sort((a, b) => {
      const x = known.get(a)!;
      const y = known.get(b)!;
      if (x.failed !== y.failed) return x.failed ? -1 : 1;
      return y.ms - x.ms || y.size - x.size;
    });
  }
}
