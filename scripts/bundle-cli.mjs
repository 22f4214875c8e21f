// Bundles the `brain` command that ships (dist/bin/main.js) from tsc's output (dist/cli/main.js).
// A one-shot command such as `brain poll` is mostly node starting up, so the bundle is made for
// the start: rollup puts the code every command loads (the command line, the library's face) in
// main.js, and gives each command group and each brain section a chunk of its own, loaded only
// when asked for; what a chunk needs that main.js has already loaded it takes from there.
//
// The bundle is CommonJS. Node's ES module loader costs per module (it resolves, fetches and
// links asynchronously) and per package it wraps for import (it lexes a CommonJS package's source
// for its names); `require` does neither. Every package brain uses can be required. tsc's ES
// module build stays what the library and the other adapters ship. bench/RESULTS.md has the
// figures.
import { rmSync, writeFileSync } from 'node:fs';
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
  // No package is imported here for what importing it does, so an import of one that binds
  // nothing is dropped rather than kept (with its resolution) in every chunk.
  treeshake: { moduleSideEffects: (_id, external) => !external },
});
await bundle.write({
  dir: outdir,
  format: 'cjs',
  entryFileNames: 'main.js',
  chunkFileNames: 'chunks/[name]-[hash].js',
  // A package's default import is what it exports, as Node's ES module loader gives it to tsc's
  // build, whatever its __esModule flag says.
  interop: 'default',
  // Packages are required, also where the code imports them lazily: one copy of each package
  // (a dual package imported by `import()` would load its other build beside the required one).
  dynamicImportInCjs: false,
  // A chunk requires what it uses, and no more: what it would hoist is loaded already or soon.
  hoistTransitiveImports: false,
});
await bundle.close();
// The package is "type": "module"; this folder's .js files are CommonJS.
writeFileSync(join(outdir, 'package.json'), '{ "type": "commonjs" }\n');
