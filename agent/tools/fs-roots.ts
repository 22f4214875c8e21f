import { constants, promises as fs, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/**
 * The confinement of the file tools: a path the model names is resolved against the workspace,
 * its symlinks followed with realpath, and accepted only when the result lies inside the realpath
 * of one of the roots. A file that does not exist yet is judged by the realpath of its parent.
 *
 * What is left: between this check and the open a directory on the path could be swapped for a
 * symlink by another process. The last component is opened with O_NOFOLLOW, and readers re-check
 * the opened descriptor's path through /proc/self/fd (Linux), which closes the gap for the file
 * itself; a swapped parent directory of a new file is caught by re-checking the temp file's path.
 */
export class PathRefused extends Error {}

export interface Roots {
  /** The workspace: where relative paths start. */
  base: string;
  /** Real paths of the roots. */
  real: string[];
}

export async function makeRoots(workspace: string, roots: readonly string[] = []): Promise<Roots> {
  // A root is relative to the workspace; `~/` is the home folder.
  const all = [
    workspace,
    ...roots.map((r) =>
      r === '~' || r.startsWith('~/') ? join(homedir(), r.slice(1)) : resolve(workspace, r),
    ),
  ];
  const real: string[] = [];
  for (const r of all) {
    try {
      real.push(await fs.realpath(r));
    } catch {
      // A root that does not exist confines nothing; skip it.
    }
  }
  return { base: workspace, real };
}

export function insideRoots(roots: Roots, real: string): boolean {
  return roots.real.some((root) => {
    const rel = relative(root, real);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && !rel.startsWith(sep));
  });
}

function refuse(path: string): never {
  throw new PathRefused(`${path} is outside the allowed folders`);
}

/** The real path of an existing file or folder inside the roots, or PathRefused. */
export async function resolveExisting(roots: Roots, path: string): Promise<string> {
  const wanted = resolve(roots.base, path);
  let real: string;
  try {
    real = await fs.realpath(wanted);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      // A dangling symlink or a missing file: judge the parent first, so a refusal is not a leak.
      await resolveNew(roots, path);
      throw new PathRefused(`${path} does not exist`);
    }
    throw err;
  }
  if (!insideRoots(roots, real)) refuse(path);
  return real;
}

/** Where a new (or replaced) file would be written: its parent's real path, inside the roots. */
export async function resolveNew(roots: Roots, path: string): Promise<string> {
  const wanted = resolve(roots.base, path);
  let parent: string;
  try {
    parent = await fs.realpath(dirname(wanted));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new PathRefused(`${dirname(path)} does not exist`);
    throw err;
  }
  if (!insideRoots(roots, parent)) refuse(path);
  const target = resolve(parent, basename(wanted));
  // An existing symlink at the target is followed by nothing we do (rename replaces the link),
  // but refuse one that points out, so the model is told rather than surprised.
  try {
    const st = await fs.lstat(target);
    if (st.isSymbolicLink()) {
      const real = await fs.realpath(target).catch(() => null);
      if (!real || !insideRoots(roots, real)) refuse(path);
    }
  } catch (err) {
    if (err instanceof PathRefused) throw err;
  }
  return target;
}

/** What a path is when it is neither a file nor a folder, or undefined when it is one of those. */
export function specialKind(st: Stats): string | undefined {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  return undefined;
}

/**
 * Open a file or folder for reading without following a symlink at its last component, and
 * re-check the descriptor's path. A FIFO, socket or device is refused before it is opened (a
 * FIFO's open waits for a writer, /dev/zero never ends); the open is non-blocking so one swapped
 * in after that look cannot hang it, and the descriptor is looked at again before any read.
 */
export async function openConfined(roots: Roots, real: string): Promise<fs.FileHandle> {
  const before = specialKind(await fs.stat(real));
  if (before) throw new PathRefused(`${shown(roots, real)} is ${before}, not a file`);
  const fh = await fs.open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const now = await fs.readlink(`/proc/self/fd/${fh.fd}`).catch(() => real);
    if (!insideRoots(roots, now)) refuse(real);
    const after = specialKind(await fh.stat());
    if (after) throw new PathRefused(`${shown(roots, real)} is ${after}, not a file`);
    return fh;
  } catch (err) {
    await fh.close();
    throw err;
  }
}

/** Shown paths: relative to the workspace when inside it. */
export function shown(roots: Roots, real: string): string {
  const base = roots.real[0];
  if (!base) return real;
  const rel = relative(base, real);
  return rel === '' ? '.' : rel.startsWith('..') ? real : rel;
}
