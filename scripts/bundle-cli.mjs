// Bundles the `brain` command that ships (dist/bin/main.js) from tsc's output (dist/cli/main.js).
// Node's ES module loader costs per file, so a one-shot command should read few. Rollup puts the
// code every command loads (the command line, the library's face) in main.js, and gives each
// command group and each brain section a chunk of its own, loaded only when asked for; what a
// chunk needs that main.js has already loaded it takes from there instead of a file of its own.
// Packages stay in node_modules, as they were. bench/RESULTS.md has the figures.
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rollup } from 'rollup';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'bin');
rmSync(outdir, { recursive: true, force: true });
const bundle = await rollup({
  input: join(root, 'dist', 'cli', 'main.js'),
  // Every bare specifier is a package (or a Node built-in): left to Node to resolve at run time.
  external: (id) => !id.startsWith('.') && !id.startsWith('/'),
});
await bundle.write({
  dir: outdir,
  format: 'es',
  entryFileNames: 'main.js',
  chunkFileNames: 'chunks/[name]-[hash].js',
});
await bundle.close();
