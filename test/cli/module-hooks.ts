import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Write a module resolution hook into `dir` and return the `--import` argument that registers it:
 * a node process started with it writes `loaded <url>` to stderr for every module it resolves.
 * Written synchronously: the hooks run on their own thread, whose buffered writes a process that
 * exits soon after its last import could lose.
 */
export function moduleHookImport(dir: string): string {
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
  return pathToFileURL(register).href;
}

/** The module URLs a process started with moduleHookImport reported on its stderr. */
export function loadedModules(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('loaded '))
    .map((line) => line.slice('loaded '.length));
}
