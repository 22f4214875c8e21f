// Builds brain's ranking extension (src/native/brain_fts.c, binding.gyp) when npm installs the
// project. Without a C compiler the install still succeeds: search then ranks with FTS5's own
// bm25(), slower on words held by many rows (and, for those words, in a slightly different order:
// src/db/rank-extension.ts). `--require` (CI, packaging) fails instead.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const required = process.argv.includes('--require');
// npm tells the scripts it runs where its own node-gyp is (`npm install`, `npm run build:native`).
const gyp = process.env.npm_config_node_gyp;
const result = gyp
  ? spawnSync(process.execPath, [gyp, 'rebuild'], { cwd: root, stdio: 'inherit' })
  : { status: 1, error: new Error('run it through npm: npm run build:native') };
const built = result.status === 0 && existsSync(join(root, 'build', 'Release', 'brain_fts.node'));
if (!built) {
  const why = result.error ? `: ${result.error.message}` : '';
  console.warn(
    `brain: the ranking extension was not built${why}. Search still works, ranking with ` +
      "FTS5's bm25(), slower on big brains. Install a C compiler and Python, then run `npm run build:native`.",
  );
  if (required) process.exit(1);
}
