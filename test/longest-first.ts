import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Test files longest first, across projects: with two workers the suite ends when its longest
 * files do, so they start at once. Durations come from vitest's cache of earlier runs (under
 * whichever project a file ran last, so renaming a project keeps them); a file never run goes
 * first, then the rest by their last duration, unknown ones by size. Failed files still go first.
 * (vitest's own order runs project after project, by name, and only then by duration.)
 */
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
      known.set(spec, { failed: last?.failed ?? false, ms: last?.duration ?? -1, size });
    }
    return [...files].sort((a, b) => {
      const x = known.get(a)!;
      const y = known.get(b)!;
      if (x.failed !== y.failed) return x.failed ? -1 : 1;
      if (x.ms < 0 !== y.ms < 0) return x.ms < 0 ? -1 : 1;
      return y.ms - x.ms || y.size - x.size;
    });
  }
}
