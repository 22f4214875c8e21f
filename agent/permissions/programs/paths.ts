import { lstat, readFile, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';

/** Where a command runs and what it may read: real paths, the workspace first among the roots. */
export interface Place {
  cwd: string;
  roots: readonly string[];
}

/** Kernel views of processes, devices and the system: never read, whatever the roots say. */
const SYSTEM_TREES = ['/proc', '/sys', '/dev'];

const errno = (err: unknown) => (err as NodeJS.ErrnoException).code;

export function inside(root: string, real: string): boolean {
  const rel = relative(root, real);
  return rel === '' || (rel !== '..' && !rel.startsWith('../') && !isAbsolute(rel));
}

/** Undefined when a real path may be read, else why not. */
export function placeReason(
  real: string,
  roots: readonly string[],
  shown: string,
): string | undefined {
  const tree = SYSTEM_TREES.find((t) => inside(t, real));
  if (tree) return `\`${shown}\` is in ${tree}, which is never read by a command judged safe`;
  if (!roots.some((root) => inside(root, real)))
    return `\`${shown}\` is outside the workspace and the allowed roots`;
  return undefined;
}

/**
 * The real path of the directory or file a path names, as the kernel would find it from `cwd`:
 * symlinks followed, `..` taken after them. A path that does not exist is judged by its nearest
 * existing parent, unless a name after the missing one is `..` (the kernel would fail there, but
 * a directory made in between would change where it leads) or the missing name is a dangling
 * symlink (which points somewhere the judge cannot see).
 */
export async function realPathOf(
  path: string,
  cwd: string,
): Promise<{ real: string } | { reason: string }> {
  // Joined as text, not normalised: `link/..` must go up from where the link leads.
  const full = path.startsWith('/') ? path : `${cwd}/${path}`;
  try {
    return { real: await realpath(full) };
  } catch (err) {
    const code = errno(err);
    if (code !== 'ENOENT' && code !== 'ENOTDIR')
      return { reason: `\`${path}\` cannot be resolved (${code ?? String(err)})` };
  }
  const parts = full.split('/');
  for (let k = parts.length - 1; k >= 1; k--) {
    let real: string;
    try {
      real = await realpath(parts.slice(0, k).join('/') || '/');
    } catch (err) {
      const code = errno(err);
      if (code === 'ENOENT' || code === 'ENOTDIR') continue;
      return { reason: `\`${path}\` cannot be resolved (${code ?? String(err)})` };
    }
    const rest = parts.slice(k).filter((p) => p !== '' && p !== '.');
    if (rest.includes('..'))
      return { reason: `\`${path}\` has \`..\` after a name that does not exist` };
    const missing = rest[0];
    if (missing !== undefined) {
      try {
        await lstat(`${real === '/' ? '' : real}/${missing}`);
        return { reason: `\`${path}\` passes through a symlink that points nowhere` };
      } catch (err) {
        const code = errno(err);
        if (code !== 'ENOENT' && code !== 'ENOTDIR')
          return { reason: `\`${path}\` cannot be resolved (${code ?? String(err)})` };
      }
    }
    return { real };
  }
  return { reason: `\`${path}\` cannot be resolved` };
}

/** Undefined when the path resolves inside a root and outside the system trees, else why not. */
export async function confinePath(path: string, place: Place): Promise<string | undefined> {
  const found = await realPathOf(path, place.cwd);
  if ('reason' in found) return found.reason;
  return placeReason(found.real, place.roots, path);
}

/** Undefined when the path is not a directory (or does not exist), else why it must not be. */
export async function notDirectory(path: string, place: Place): Promise<string | undefined> {
  const found = await realPathOf(path, place.cwd);
  if ('reason' in found) return found.reason;
  const isDir = await stat(found.real).then(
    (s) => s.isDirectory(),
    () => false,
  );
  return isDir ? `\`${path}\` is a directory: the files in it are not judged` : undefined;
}

/**
 * git finds its repository by walking up from its cwd (a `.git` folder or file, or a bare
 * repository), and a `.git` file, a `commondir` or an `alternates` file can lead anywhere: every
 * one of them must lie inside a root, or git reads history and objects from outside. No
 * repository at all is fine: git then works only on the operands, which are confined.
 */
export async function gitRepositoryReason(place: Place): Promise<string | undefined> {
  for (let dir = place.cwd; ; dir = dirname(dir)) {
    const dotGit = `${dir === '/' ? '' : dir}/.git`;
    const entry = await lstat(dotGit).catch(() => undefined);
    if (entry) return gitDirReason(dotGit, entry.isFile(), place);
    const bare = await Promise.all(
      ['HEAD', 'objects', 'refs'].map((n) =>
        lstat(`${dir === '/' ? '' : dir}/${n}`).then(
          () => true,
          () => false,
        ),
      ),
    );
    if (bare.every(Boolean)) return gitDirReason(dir, false, place);
    if (dir === '/') return undefined;
  }
}

async function gitDirReason(
  found: string,
  isFile: boolean,
  place: Place,
): Promise<string | undefined> {
  let gitDir = found;
  if (isFile) {
    const text = await readFile(found, 'utf8').catch(() => '');
    const target = /^gitdir: (.+)$/m.exec(text)?.[1]?.trim();
    if (!target) return `\`${found}\` is not a readable git link`;
    gitDir = resolve(dirname(found), target);
  }
  const dirs = [gitDir];
  const common = await readFile(`${gitDir}/commondir`, 'utf8').catch(() => undefined);
  if (common !== undefined) dirs.push(resolve(gitDir, common.trim()));
  for (const dir of [...dirs]) {
    const alternates = await readFile(`${dir}/objects/info/alternates`, 'utf8').catch(() => '');
    for (const line of alternates.split('\n')) {
      const alt = line.trim();
      if (alt !== '' && !alt.startsWith('#')) dirs.push(resolve(`${dir}/objects`, alt));
    }
  }
  for (const dir of dirs) {
    const real = await realpath(dir).catch(() => undefined);
    if (real === undefined) return `the git repository at \`${dir}\` cannot be resolved`;
    const reason = placeReason(real, place.roots, dir);
    if (reason) return `git's repository: ${reason}`;
  }
  return undefined;
}
