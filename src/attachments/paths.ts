import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { basename, isAbsolute, relative, resolve } from 'node:path';
import { BrainError } from '../errors.js';
import type { AttachmentInput } from './store.js';

/*
 * Reading a file to attach by its path. A caller that is not the owner at a terminal (an MCP
 * client) names a path the server may read only under its configured roots: the path and each
 * root are resolved (symlinks followed) and the file must lie inside a root after that. Only
 * regular files are read (a FIFO would hang the reader, a device never ends), from one opened
 * descriptor, so what was checked is what is read.
 */

export interface ReadAttachmentOptions {
  /** Folders the file must be inside; undefined: any path (the owner's own command line). */
  roots?: readonly string[] | undefined;
  /** The most bytes read; a larger file is refused before it is read. */
  maxBytes: number;
  /** The input's field, for errors ("attachments.0.path"). */
  field: string;
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

export function readAttachmentFile(path: string, options: ReadAttachmentOptions): AttachmentInput {
  const { field } = options;
  let real: string;
  try {
    real = realpathSync(resolve(path));
  } catch {
    throw new BrainError('NOT_FOUND', `${field}: no file ${path}`);
  }
  if (options.roots !== undefined) {
    if (options.roots.length === 0)
      throw new BrainError(
        'INVALID_INPUT',
        `${field}: this server reads no files by path (BRAIN_ATTACH_ROOTS is not set); send the bytes inline`,
      );
    const roots = options.roots.flatMap((r) => {
      try {
        return [realpathSync(resolve(r))];
      } catch {
        // A root that does not exist holds no file.
        return [];
      }
    });
    if (!roots.some((root) => inside(root, real)))
      throw new BrainError(
        'INVALID_INPUT',
        `${field}: ${path} is outside the folders this server may read`,
      );
  }
  let fd: number;
  try {
    fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    throw new BrainError('INVALID_INPUT', `${field}: cannot open ${path}`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile())
      throw new BrainError('INVALID_INPUT', `${field}: ${path} is not a regular file`);
    if (stat.size > options.maxBytes)
      throw new BrainError(
        'INVALID_INPUT',
        `${field} (${basename(real)}): is ${stat.size} bytes; the limit is ${options.maxBytes} (BRAIN_MAX_ATTACHMENT_BYTES)`,
      );
    const data = Buffer.alloc(stat.size);
    let at = 0;
    while (at < data.length) {
      const n = readSync(fd, data, at, data.length - at, at);
      if (n === 0) break;
      at += n;
    }
    return { name: basename(path), data: data.subarray(0, at) };
  } finally {
    closeSync(fd);
  }
}
