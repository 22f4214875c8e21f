// Builds brain's ranking extension (src/native/brain_fts.c, binding.gyp) when npm installs the
// project. Without a C compiler the install still succeeds: search then ranks with FTS5's own
// bm25(), the same order, slower on words held by many rows. `--require` (CI, packaging) fails
// instead.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

/** npm tells its lifecycle scripts where its own node-gyp is; otherwise look beside npm. */
function nodeGyp() {
  if (process.env.npm_config_node_gyp) return process.env.npm_config_node_gyp;
  try {
    return require.resolve('node-gyp/bin/node-gyp.js');
  } catch {
    const npm = process.env.npm_execpath;
    const beside =
      npm && join(dirname(npm), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
    return beside && existsSync(beside) ? beside : undefined;
  }
}

const required = process.argv.includes('--require');
const gyp = nodeGyp();
const result = gyp
  ? spawnSync(process.execPath, [gyp, 'rebuild'], { cwd: root, stdio: 'inherit' })
  : { status: 1, error: new Error('node-gyp not found') };
const built = result.status === 0 && existsSync(join(root, 'build', 'Release', 'brain_fts.node'));
if (!built) {
  const why = result.error ? `: ${result.error.message}` : '';
  console.warn(
    `brain: the ranking extension was not built${why}. Search still works, ranking with ` +
      "FTS5's bm25(), slower on big brains. Install a C compiler and Python, then `npm rebuild`.",
  );
  if (required) process.exit(1);
}
