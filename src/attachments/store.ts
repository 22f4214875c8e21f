import { basename } from 'node:path';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { messageIdSql } from '../ids.js';
import { nodeCrypto } from '../node-crypto.js';
import { extractText, type ExtractedText, type TextSkipped } from './extract.js';
import { readStoredFile, storeFile } from './files.js';
import { sniffMediaType } from './sniff.js';

/** Files up to this size live in the brain file's rows; larger ones in the folder beside it. */
export const INLINE_MAX_BYTES = 256 * 1024;

/** The most files one message carries. */
export const MAX_ATTACHMENTS_PER_MESSAGE = 16;

/** A file to attach, as any caller has it: the bytes, the name, and what the sender says it is. */
export interface AttachmentInput {
  name: string;
  data: Uint8Array;
  /** The sender's claim, kept for the record; the brain serves what it sniffs from the bytes. */
  media_type?: string | undefined;
}

/** A file checked, hashed, read for text and (when large) written to the folder: ready to send. */
export interface PreparedAttachment {
  name: string;
  declared_type: string | null;
  media_type: string;
  size: number;
  sha256: Buffer;
  text: string | undefined;
  /** Why its text was not read, when reading it passed a limit. */
  text_skipped?: TextSkipped | undefined;
  /** The bytes to keep in the row; null when they are in the folder. */
  data: Buffer | null;
}

/** What a message says of one of its files. */
export interface AttachmentInfo {
  name: string;
  media_type: string;
  size: number;
  sha256: string;
  /** Present when its text was not read because reading passed a limit: it is found by its name only. */
  text_skipped?: TextSkipped;
}

/** A name safe to show and to save under: its last path part, without control characters. */
export function cleanName(name: string, path: string): string {
  const cleaned = basename(name.replace(/\\/g, '/'))
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim();
  if (cleaned.length === 0 || cleaned === '.' || cleaned === '..')
    throw new BrainError('INVALID_INPUT', `${path}: is not a file name`);
  return cleaned.length > 255 ? cleaned.slice(0, 255) : cleaned;
}

function brainTotal(ctx: BrainContext): number {
  return ctx.q
    .get<[], { n: number }>(`SELECT coalesce(sum(size), 0) AS n FROM attachment_blobs`)
    .get()!.n;
}

function blobIdOf(ctx: BrainContext, sha: Buffer): number | undefined {
  return ctx.q
    .get<[Buffer], { id: number }>(`SELECT id FROM attachment_blobs WHERE sha256 = ?`)
    .get(sha)?.id;
}

/** The text kept with bytes the brain already has, or undefined for new bytes. */
function keptText(ctx: BrainContext, sha: Buffer): ExtractedText | undefined {
  const row = ctx.q
    .get<[Buffer], { text: string | null; text_skipped: TextSkipped | null }>(
      `SELECT text, text_skipped FROM attachment_blobs WHERE sha256 = ?`,
    )
    .get(sha);
  return row && { text: row.text ?? undefined, skipped: row.text_skipped ?? undefined };
}

/** Refuse files that would take the brain past its total; new bytes only (a copy costs nothing). */
function checkBrainTotal(
  ctx: BrainContext,
  files: readonly { sha256: Buffer; size: number }[],
): void {
  const seen = new Set<string>();
  let adding = 0;
  for (const f of files) {
    const hex = f.sha256.toString('hex');
    if (seen.has(hex) || blobIdOf(ctx, f.sha256) !== undefined) continue;
    seen.add(hex);
    adding += f.size;
  }
  if (adding === 0) return;
  const total = brainTotal(ctx);
  const limit = ctx.limits.maxAttachmentsTotalBytes;
  if (total + adding > limit)
    throw new BrainError(
      'INVALID_INPUT',
      `attachments: would take the brain's attachments to ${total + adding} bytes; the limit is ${limit} (BRAIN_MAX_ATTACHMENTS_TOTAL_BYTES)`,
    );
}

/**
 * Check, hash, sniff and read the files, and write the large ones to the folder beside the brain
 * (before the send's transaction: a failed send leaves at worst an unreferenced file). A file over
 * a limit is refused before anything is written.
 */
export async function prepareAttachments(
  ctx: BrainContext,
  dbPath: string,
  inputs: readonly AttachmentInput[],
): Promise<PreparedAttachment[]> {
  if (inputs.length > MAX_ATTACHMENTS_PER_MESSAGE)
    throw new BrainError(
      'INVALID_INPUT',
      `attachments: ${inputs.length} files; a message carries at most ${MAX_ATTACHMENTS_PER_MESSAGE}`,
    );
  const max = ctx.limits.maxAttachmentBytes;
  const checked = inputs.map((input, i) => {
    const path = `attachments.${i}`;
    const name = cleanName(input.name, `${path}.name`);
    if (!(input.data instanceof Uint8Array))
      throw new BrainError('INVALID_INPUT', `${path}.data: must be bytes`);
    if (input.data.length > max)
      throw new BrainError(
        'INVALID_INPUT',
        `${path} (${name}): is ${input.data.length} bytes; the limit is ${max} (BRAIN_MAX_ATTACHMENT_BYTES)`,
      );
    const data = Buffer.from(input.data.buffer, input.data.byteOffset, input.data.length);
    const sha256 = nodeCrypto().createHash('sha256').update(data).digest();
    return { name, data, sha256, size: data.length, declared: input.media_type?.slice(0, 255) };
  });
  checkBrainTotal(ctx, checked);
  // One time budget for the send's files: sixteen crafted PDFs cost it once, not sixteen times.
  const deadline = ctx.clock().getTime() + ctx.limits.attachmentTextTimeoutMs;
  const prepared: PreparedAttachment[] = [];
  for (const c of checked) {
    const media_type = sniffMediaType(c.data, c.name);
    // Bytes the brain keeps already have the text read from them then: not read again.
    const { text, skipped } =
      keptText(ctx, c.sha256) ??
      (await extractText(c.data, media_type, deadline - ctx.clock().getTime()));
    const inline = c.size <= INLINE_MAX_BYTES;
    if (!inline) {
      if (dbPath === ':memory:' || dbPath === '')
        throw new BrainError(
          'INVALID_INPUT',
          `attachments: a brain in memory keeps files up to ${INLINE_MAX_BYTES} bytes`,
        );
      storeFile(dbPath, c.sha256.toString('hex'), c.data);
    }
    prepared.push({
      name: c.name,
      declared_type: c.declared ?? null,
      media_type,
      size: c.size,
      sha256: c.sha256,
      text,
      text_skipped: skipped,
      data: inline ? c.data : null,
    });
  }
  return prepared;
}

/** Store a message's files (inside its write transaction), after the message row. */
export function writeAttachments(
  ctx: BrainContext,
  messageRow: number,
  files: readonly PreparedAttachment[],
  at: number,
): void {
  if (files.length === 0) return;
  checkBrainTotal(ctx, files);
  const addBlob = ctx.q.get(
    `INSERT INTO attachment_blobs (sha256, size, media_type, data, text, text_skipped, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(sha256) DO NOTHING`,
  );
  const link = ctx.q.get(
    `INSERT INTO message_attachments (message_id, position, blob_id, name, declared_type) VALUES (?, ?, ?, ?, ?)`,
  );
  files.forEach((f, position) => {
    addBlob.run(f.sha256, f.size, f.media_type, f.data, f.text ?? null, f.text_skipped ?? null, at);
    link.run(messageRow, position, blobIdOf(ctx, f.sha256)!, f.name, f.declared_type);
  });
}

interface InfoRow {
  message_id: number;
  name: string;
  media_type: string;
  size: number;
  sha256: Buffer;
  text_skipped: TextSkipped | null;
}

/** The files of each given message (by row id), in order; messages without files are absent. */
export function attachmentsOf(
  ctx: BrainContext,
  rowids: readonly number[],
): Map<number, AttachmentInfo[]> {
  const out = new Map<number, AttachmentInfo[]>();
  if (rowids.length === 0 || !hasAttachments(ctx)) return out;
  const rows = ctx.q
    .get<[string], InfoRow>(
      `SELECT a.message_id, a.name, b.media_type, b.size, b.sha256, ${skippedSql(ctx)} AS text_skipped
       FROM json_each(?) c JOIN message_attachments a ON a.message_id = c.value
       JOIN attachment_blobs b ON b.id = a.blob_id ORDER BY a.message_id, a.position`,
    )
    .all(JSON.stringify(rowids));
  for (const r of rows) {
    let list = out.get(r.message_id);
    if (!list) out.set(r.message_id, (list = []));
    const info: AttachmentInfo = {
      name: r.name,
      media_type: r.media_type,
      size: r.size,
      sha256: r.sha256.toString('hex'),
    };
    if (r.text_skipped) info.text_skipped = r.text_skipped;
    list.push(info);
  }
  return out;
}

/** Whether the brain has the tables (a read-only connection to an older file may lack them). */
function hasAttachments(ctx: BrainContext): boolean {
  let has = ctx.ranking.schema.get('attachments');
  if (has === undefined) {
    has =
      ctx.q
        .get<[], { n: number }>(
          `SELECT count(*) AS n FROM sqlite_schema WHERE name = 'message_attachments'`,
        )
        .get()!.n > 0;
    ctx.ranking.schema.set('attachments', has);
  }
  return has;
}

/**
 * The column saying why a file's text was not read, or NULL on a read-only connection to a brain
 * older than it (the column comes after the tables).
 */
function skippedSql(ctx: BrainContext, table = 'b'): string {
  let has = ctx.ranking.schema.get('attachments.text_skipped');
  if (has === undefined) {
    has =
      ctx.q
        .get<[], { n: number }>(
          `SELECT count(*) AS n FROM pragma_table_info('attachment_blobs') WHERE name = 'text_skipped'`,
        )
        .get()!.n > 0;
    ctx.ranking.schema.set('attachments.text_skipped', has);
  }
  return has ? `${table}.text_skipped` : 'NULL';
}

/** A stored file: what it is, the names it was sent under, and the messages that carry it. */
export interface StoredAttachment {
  sha256: string;
  size: number;
  media_type: string;
  name: string;
  /** Whether its bytes are in the brain file (else in the folder beside it). */
  inline: boolean;
  /** The text read from it (bounded), as the index holds it; null when it has none. */
  text: string | null;
  /** Why its text was not read, when reading it passed a limit; null otherwise. */
  text_skipped: TextSkipped | null;
  messages: string[];
}

interface BlobRow {
  id: number;
  sha256: Buffer;
  size: number;
  media_type: string;
  inline: number;
  text: string | null;
  text_skipped: TextSkipped | null;
}

function findBlob(ctx: BrainContext, ref: string): BlobRow | undefined {
  const hex = ref
    .trim()
    .toLowerCase()
    .replace(/^sha256:/, '');
  if (!/^[0-9a-f]{8,64}$/.test(hex))
    throw new BrainError(
      'INVALID_INPUT',
      `attachment: "${ref.slice(0, 80)}" is not a sha256 (8 to 64 hex digits)`,
    );
  const select = `SELECT id, sha256, size, media_type, data IS NOT NULL AS inline, text,
    ${skippedSql(ctx, 'attachment_blobs')} AS text_skipped FROM attachment_blobs`;
  if (hex.length === 64)
    return ctx.q.get<[Buffer], BlobRow>(`${select} WHERE sha256 = ?`).get(Buffer.from(hex, 'hex'));
  // A prefix: the blobs whose hash lies between the prefix padded with 0s and with fs.
  const low = Buffer.from(hex.padEnd(64, '0'), 'hex');
  const high = Buffer.from(hex.padEnd(64, 'f'), 'hex');
  const rows = ctx.q
    .get<[Buffer, Buffer], BlobRow>(`${select} WHERE sha256 BETWEEN ? AND ? LIMIT 2`)
    .all(low, high);
  if (rows.length > 1)
    throw new BrainError(
      'INVALID_INPUT',
      `attachment: ${hex} names several files; give more of the sha256`,
    );
  return rows[0];
}

/** A stored file by its sha256 (or a prefix of 8 or more hex digits), or undefined. */
export function getAttachment(ctx: BrainContext, ref: string): StoredAttachment | undefined {
  if (!hasAttachments(ctx)) return undefined;
  const blob = findBlob(ctx, ref);
  if (!blob) return undefined;
  const links = ctx.q
    .get<[number], { name: string; uid: string }>(
      `SELECT a.name, ${messageIdSql('m.uid')} AS uid FROM message_attachments a
       JOIN messages m ON m.id = a.message_id WHERE a.blob_id = ? ORDER BY m.id`,
    )
    .all(blob.id);
  return {
    sha256: blob.sha256.toString('hex'),
    size: blob.size,
    media_type: blob.media_type,
    name: links[0]?.name ?? blob.sha256.toString('hex').slice(0, 12),
    inline: blob.inline === 1,
    text: blob.text,
    text_skipped: blob.text_skipped,
    messages: links.map((l) => l.uid),
  };
}

/** A stored file's bytes; NOT_FOUND when its file is missing from the folder. */
export function attachmentBytes(ctx: BrainContext, dbPath: string, sha256: string): Buffer {
  const row = ctx.q
    .get<[Buffer], { data: Buffer | null }>(`SELECT data FROM attachment_blobs WHERE sha256 = ?`)
    .get(Buffer.from(sha256, 'hex'));
  if (!row) throw new BrainError('NOT_FOUND', `attachment: no file ${sha256}`);
  if (row.data) return row.data;
  const bytes = readStoredFile(dbPath, sha256);
  if (!bytes)
    throw new BrainError(
      'NOT_FOUND',
      `attachment: the file ${sha256} is missing from the folder beside the brain`,
    );
  return bytes;
}

/** Records of message rows, each with its files when it has some (one query for all of them). */
export function recordsWithAttachments<R extends { rowid: number }, T extends object>(
  ctx: BrainContext,
  rows: readonly R[],
  toRecord: (row: R) => T,
): Array<T & { attachments?: AttachmentInfo[] }> {
  const files = attachmentsOf(
    ctx,
    rows.map((r) => r.rowid),
  );
  return rows.map((r) => {
    const attachments = files.get(r.rowid);
    return attachments ? { ...toRecord(r), attachments } : toRecord(r);
  });
}
