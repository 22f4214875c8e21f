import { createHash } from 'node:crypto';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { attachmentBytes, INLINE_MAX_BYTES, type PreparedAttachment } from './store.js';
import { MAX_INDEXED_TEXT_CHARS, type TextSkipped } from './extract.js';
import { storeFile } from './files.js';
import { sniffMediaType } from './sniff.js';

/** A file as an export carries it: its record and its bytes in base64. */
export interface ExportedAttachment {
  name: string;
  media_type: string;
  declared_type: string | null;
  size: number;
  sha256: string;
  text: string | null;
  /** Present only when reading the file's text passed a limit. */
  text_skipped?: TextSkipped;
  data: string;
}

/** The files of each message (by row id) with their bytes, for an export. */
export function exportAttachments(
  ctx: BrainContext,
  dbPath: string,
  rowid: number,
): ExportedAttachment[] | undefined {
  const has = ctx.q
    .get<[], { n: number }>(
      `SELECT count(*) AS n FROM sqlite_schema WHERE name = 'message_attachments'`,
    )
    .get()!.n;
  if (has === 0) return undefined;
  const rows = ctx.q
    .get<
      [number],
      {
        name: string;
        media_type: string;
        declared_type: string | null;
        size: number;
        sha256: Buffer;
        text: string | null;
        text_skipped: TextSkipped | null;
      }
    >(
      `SELECT a.name, b.media_type, a.declared_type, b.size, b.sha256, b.text, b.text_skipped
       FROM message_attachments a JOIN attachment_blobs b ON b.id = a.blob_id
       WHERE a.message_id = ? ORDER BY a.position`,
    )
    .all(rowid);
  if (rows.length === 0) return undefined;
  return rows.map((r) => {
    const sha256 = r.sha256.toString('hex');
    return {
      name: r.name,
      media_type: r.media_type,
      declared_type: r.declared_type,
      size: r.size,
      sha256,
      text: r.text,
      ...(r.text_skipped ? { text_skipped: r.text_skipped } : {}),
      data: attachmentBytes(ctx, dbPath, sha256).toString('base64'),
    };
  });
}

/**
 * An export's files made ready to import: bytes decoded and checked against their sha256 and the
 * size limit, large ones written to the folder (before the import's transaction, as a send does).
 */
export function importedAttachments(
  ctx: BrainContext,
  dbPath: string,
  files: readonly ExportedAttachment[],
  where: string,
): PreparedAttachment[] {
  return files.map((f, i) => {
    const path = `${where}.attachments.${i}`;
    const data = Buffer.from(f.data, 'base64');
    if (data.length > ctx.limits.maxAttachmentBytes)
      throw new BrainError(
        'INVALID_INPUT',
        `import: ${path}: is ${data.length} bytes; the limit is ${ctx.limits.maxAttachmentBytes} (BRAIN_MAX_ATTACHMENT_BYTES)`,
      );
    const sha256 = createHash('sha256').update(data).digest();
    if (sha256.toString('hex') !== f.sha256 || data.length !== f.size)
      throw new BrainError(
        'INVALID_INPUT',
        `import: ${path}: the bytes do not match its sha256 and size`,
      );
    const inline = data.length <= INLINE_MAX_BYTES;
    if (!inline) storeFile(dbPath, f.sha256, data);
    return {
      name: f.name,
      declared_type: f.declared_type,
      // Sniffed again from the bytes: the file's claim is never what the brain serves it as.
      media_type: sniffMediaType(data, f.name),
      size: f.size,
      sha256,
      // The file's text as an export gives it, held to what a send would index.
      text: f.text === null ? undefined : f.text.slice(0, MAX_INDEXED_TEXT_CHARS),
      text_skipped: f.text_skipped,
      data: inline ? data : null,
    };
  });
}
