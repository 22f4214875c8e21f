import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { packageRoot } from './package-root.js';

/**
 * The compiled ranking extension (src/native/brain_fts.c and brain_topk.c), built by `npm install`
 * through node-gyp (binding.gyp): brain_topk, the exact top k of a query from its words' posting
 * lists in memory, and brain_bm25, BM25 as FTS5 computes it given each word's row count, for what
 * the lists leave to statements (src/search/rank.ts). Without a C compiler the install leaves it
 * out; search then ranks with FTS5's own bm25() over every match: the same order, slower on words
 * held by many rows (bench/exact-top-k.ts compares the two).
 */
const withRankFunction = new WeakSet<Database>();
/** Connections whose loaded build is from other sources than this JavaScript's (stale). */
const withStaleBuild = new WeakSet<Database>();

/**
 * The version of the compiled functions' arguments and results that this JavaScript calls them
 * with: src/native/brain_fts.c's BRAIN_FTS_ABI, raised with it.
 */
export const RANK_EXTENSION_ABI = 2;

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
  // A build from older sources reads newer calls' arguments in the wrong places: search ranks
  // with bm25() instead, and `brain doctor` says to rebuild.
  let abi: unknown;
  try {
    abi = db.prepare(`SELECT brain_fts_abi()`).pluck().get();
  } catch {
    abi = undefined;
  }
  if (abi !== RANK_EXTENSION_ABI) {
    withStaleBuild.add(db);
    return false;
  }
  withRankFunction.add(db);
  return true;
}

/** Whether the connection loaded a build of the extension from other sources than this code's. */
export function hasStaleRankBuild(db: Database): boolean {
  return withStaleBuild.has(db);
}

/** Whether the compiled ranking functions are loaded on this connection. */
export function hasRankFunction(db: Database): boolean {
  return withRankFunction.has(db);
}
