import { nodeCrypto } from './node-crypto.js';

export type IdKind = 'message' | 'thread' | 'stm' | 'atom';

const PREFIX: Record<IdKind, string> = {
  message: 'syn_',
  thread: 'thr_',
  stm: 'stm_',
  atom: 'atm_',
};

export const ID_PATTERNS: Record<IdKind, RegExp> = {
  message: /^syn_[0-9a-f]{12}$/,
  thread: /^thr_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  stm: /^stm_[0-9a-f]{12}$/,
  atom: /^atm_[0-9a-f]{12}$/,
};

export function newId(kind: IdKind): string {
  if (kind === 'thread') return PREFIX.thread + nodeCrypto().randomUUID();
  return PREFIX[kind] + nodeCrypto().randomBytes(6).toString('hex');
}

/** A stable id derived from a key, so importing the same legacy record twice yields one row. */
export function derivedId(kind: IdKind, key: string): string {
  const hex = nodeCrypto().createHash('sha256').update(`${kind}\0${key}`).digest('hex');
  if (kind !== 'thread') return PREFIX[kind] + hex.slice(0, 12);
  const h = hex.slice(0, 32);
  const uuid = `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
  return PREFIX.thread + uuid;
}

/**
 * A message id as stored: the 48-bit number its 12 hex digits spell (migration 0005), or
 * undefined for a string that is no message id (which then names no message).
 */
export function messageKey(id: string): number | undefined {
  return ID_PATTERNS.message.test(id)
    ? Number.parseInt(id.slice(PREFIX.message.length), 16)
    : undefined;
}

/** SQL giving the public id of a `messages.uid` column; NULL (no message) stays NULL. */
export function messageIdSql(column: string): string {
  return `CASE WHEN ${column} IS NOT NULL THEN printf('syn_%012x', ${column}) END`;
}

/**
 * A thread id as stored: the 16 bytes of its UUID (migration 0006), or undefined for a string that
 * is no thread id (which then names no thread).
 */
export function threadKey(id: string): Buffer | undefined {
  if (!ID_PATTERNS.thread.test(id)) return undefined;
  return Buffer.from(id.slice(PREFIX.thread.length).replaceAll('-', ''), 'hex');
}

/** SQL giving the public id of a `threads.uid` column (`thr_` + the UUID); NULL stays NULL. */
export function threadIdSql(column: string): string {
  const hex = (from: number, length?: number) =>
    `substr(hex(${column}), ${from}${length === undefined ? '' : `, ${length}`})`;
  return `CASE WHEN ${column} IS NOT NULL THEN 'thr_' || lower(${hex(1, 8)} || '-' || ${hex(9, 4)} || '-' || ${hex(13, 4)} || '-' || ${hex(17, 4)} || '-' || ${hex(21)}) END`;
}

export function idKind(id: string): IdKind | undefined {
  for (const kind of Object.keys(ID_PATTERNS) as IdKind[]) {
    if (ID_PATTERNS[kind].test(id)) return kind;
  }
  return undefined;
}
