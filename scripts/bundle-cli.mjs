// Bundles the `brain` command that ships (dist/bin/main.js) from tsc's output (dist/cli/main.js).
// Node's ES module loader costs per file: a one-shot command of the unbundled build reads some
// 70 modules of ours, and the bundle cuts `brain poll` by about 15 ms (bench/RESULTS.md). The
// bundle keeps the code's shape: each command group and each brain section stays a chunk of its
// own, loaded only when asked for; packages stay in node_modules, as they were.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'bin');
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: [join(root, 'dist', 'cli', 'main.js')],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  chunkNames: 'chunks/[name]-[hash]',
  legalComments: 'none',
  logLevel: 'warning',
});
