import type { Database } from 'better-sqlite3';
import { FTS_TABLES, type FtsTable } from '../search/fts-tables.js';
import { readVarint } from '../search/word-counts.js';

/** The brain's full-text indexes: one per searchable kind. */
export const FTS_INDEXES: readonly FtsTable[] = Object.values(FTS_TABLES);
export type FtsIndex = FtsTable;

/** One level of an FTS5 index: its segments' sizes in leaf pages, oldest first. */
export interface FtsLevel {
  /** How many of its (oldest) segments an unfinished merge is reading; 0 when none is under way. */
  merging: number;
  segments: number[];
}

export interface FtsStructure {
  levels: FtsLevel[];
  segments: number;
}

/** The structure record's rowid in `<index>_data` (fts5_index.c's FTS5_STRUCTURE_ROWID). */
export const STRUCTURE_ROWID = 10;
/** The marker after the cookie of a structure record that carries per-segment origins (V2). */
const V2_MARKER = Buffer.from([0xff, 0x00, 0x00, 0x01]);

/**
 * An FTS5 index's b-trees ("segments") by level, read from its structure record: a plain read of
 * `<index>_data`, so it takes no lock that a writer would wait on. FTS5's own `fts5_structure`
 * function exists only in debug builds, hence this reader.
 */
export function readFtsStructure(db: Database, index: FtsIndex): FtsStructure {
  const row = db.prepare(`SELECT block FROM ${index}_data WHERE id = ?`).get(STRUCTURE_ROWID) as
    { block: Buffer } | undefined;
  return row ? decodeStructure(row.block) : { levels: [], segments: 0 };
}

/**
 * The record's layout (fts5StructureDecode): a 4-byte cookie, the V2 marker when present, then
 * varints: levels, segments, the write counter; per level its merge count and segment count; per
 * segment its id, first and last leaf page (and five more varints in V2).
 */
export function decodeStructure(block: Buffer): FtsStructure {
  let at = 4;
  const v2 = block.length >= 8 && block.subarray(4, 8).equals(V2_MARKER);
  if (v2) at = 8;
  const next = (): number => {
    const [value, after] = readVarint(block, at);
    at = after;
    return value;
  };
  const levelCount = next();
  const segments = next();
  next(); // the write counter
  const levels: FtsLevel[] = [];
  for (let l = 0; l < levelCount && at < block.length; l++) {
    const merging = next();
    const count = next();
    const sizes: number[] = [];
    for (let s = 0; s < count; s++) {
      next(); // segment id
      const first = next();
      const last = next();
      if (v2) for (let k = 0; k < 5; k++) next();
      sizes.push(last - first + 1);
    }
    levels.push({ merging, segments: sizes });
  }
  return { levels, segments };
}

/**
 * Whether a `merge` command with `minSegments` (FTS5's usermerge) would find work: a merge under
 * way, or a level holding that many segments.
 */
export function needsMerge(structure: FtsStructure, minSegments: number): boolean {
  return structure.levels.some((l) => l.merging > 0 || l.segments.length >= minSegments);
}
