import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { packageRoot } from './package-root.js';

/**
 * brain_bm25 (src/native/brain_fts.c), built by `npm install` through node-gyp (binding.gyp):
 * BM25 as FTS5 computes it, given each word's document frequency instead of counting it again in
 * every statement. Without a C compiler the install leaves it out; search then ranks with FTS5's
 * own bm25(), slower on words held by many rows, and in the same order while every word of the
 * query is held by fewer than RANK_WINDOW rows of its index. Past that, brain_bm25 weighs the
 * word by an estimate (src/search/fts.ts) where bm25() counts every row, which can reorder hits
 * (bench/rank-agreement.ts: 45 of the bench's 50 queries give the same top 10 at 100,000 messages).
 */
const withRankFunction = new WeakSet<Database>();

export function rankExtensionPath(): string {
  return join(packageRoot(), 'build', 'Release', 'brain_fts.node');
}

/** Load the ranking function into the connection if it was built; whether it now has it. */
export function loadRankExtension(db: Database): boolean {
  return loadRankExtensionFrom(db, rankExtensionPath());
}

/** The same, from a given file (tests). */
export function loadRankExtensionFrom(db: Database, path: string): boolean {
  if (!existsSync(path)) return false;
  try {
    // SQLite finds the entry point from the file's name: sqlite3_brainfts_init.
    db.loadExtension(path);
  } catch {
    // Built for another machine or another SQLite (a copied folder): rank with bm25(), and let
    // `brain doctor` say that the function is missing.
    return false;
  }
  withRankFunction.add(db);
  return true;
}

/** Whether brain_bm25 ranks on this connection. */
export function hasRankFunction(db: Database): boolean {
  return withRankFunction.has(db);
}
