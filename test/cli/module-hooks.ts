import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Write module resolution hooks into `dir` and return the node arguments that install them: a
 * process started with them writes `loaded <url>` to stderr for every module it resolves, by
 * `import` (a hook of the ES module loader) or by `require` (the shipped bundle is CommonJS).
 * Written synchronously: the import hooks run on their own thread, whose buffered writes a
 * process that exits soon after its last import could lose.
 */
export function moduleHookArgs(dir: string): string[] {
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { writeSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  writeSync(2, 'loaded ' + resolved.url + '\\n');
  return resolved;
}\n`,
  );
  const register = join(dir, 'register.mjs');
  writeFileSync(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  const required = join(dir, 'required.cjs');
  writeFileSync(
    required,
    `const Module = require('node:module');
const { writeSync } = require('node:fs');
const { pathToFileURL } = require('node:url');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (...args) {
  const file = resolve.apply(this, args);
  writeSync(2, 'loaded ' + (file.startsWith('/') ? pathToFileURL(file).href : 'node:' + file.replace(/^node:/, '')) + '\\n');
  return file;
};\n`,
  );
  return ['--require', required, '--import', pathToFileURL(register).href];
}

/** The module URLs a process started with moduleHookArgs reported on its stderr. */
export function loadedModules(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('loaded '))
    .map((line) => line.slice('loaded '.length));
}
