import { rmSync, statSync } from 'node:fs';
import { attachmentPath, listStoredFiles } from '../attachments/files.js';
import { listed, type DoctorCheck } from './check.js';

/** A file nothing refers to is removed only once it is this old: a send may be about to commit it. */
export const ORPHAN_AGE_MS = 60 * 60 * 1000;

function hasTables(db: Parameters<DoctorCheck['run']>[0]): boolean {
  const row = db
    .prepare(`SELECT count(*) AS n FROM sqlite_schema WHERE name = 'attachment_blobs'`)
    .get() as { n: number };
  return row.n > 0;
}

/** The folder's files nothing refers to (and temporary files left by a crash), older than `age`. */
function orphans(db: Parameters<DoctorCheck['run']>[0], now: number, age: number): string[] {
  const { shas, temporary } = listStoredFiles(db.name);
  const referenced = db.prepare(`SELECT 1 FROM attachment_blobs WHERE sha256 = ? AND data IS NULL`);
  const paths = [
    ...shas
      .filter((sha) => referenced.get(Buffer.from(sha, 'hex')) === undefined)
      .map((sha) => attachmentPath(db.name, sha)),
    ...temporary,
  ];
  return paths.filter((p) => now - statSync(p).mtimeMs >= age);
}

/**
 * Attachments kept in the folder beside the brain (docs/attachments.md): every file a row names
 * is there with its size; files nothing names (a send that failed after writing its file, a
 * crash mid-write) are reported, and removed by a repair once an hour old.
 */
export const attachmentsCheck: DoctorCheck = {
  name: 'attachments',
  description: 'files kept beside the brain: none missing, none left over',
  run(db, at) {
    if (!hasTables(db) || db.name === ':memory:' || db.name === '') return [];
    const problems: string[] = [];
    const rows = db
      .prepare(`SELECT sha256, size FROM attachment_blobs WHERE data IS NULL`)
      .all() as Array<{ sha256: Buffer; size: number }>;
    for (const r of rows) {
      const sha = r.sha256.toString('hex');
      let size: number | undefined;
      try {
        size = statSync(attachmentPath(db.name, sha)).size;
      } catch {
        // Missing: said below.
      }
      if (size === undefined) problems.push(`file ${sha} is missing (restore it from a backup)`);
      else if (size !== r.size) problems.push(`file ${sha} has ${size} bytes, not ${r.size}`);
    }
    const left = orphans(db, at.now, 0);
    if (left.length > 0)
      problems.push(
        `${left.length} file(s) nothing refers to (a repair removes those an hour old)`,
      );
    return listed(problems);
  },
  repair(db, at) {
    if (!hasTables(db)) return [];
    const old = orphans(db, at.now, ORPHAN_AGE_MS);
    for (const p of old) rmSync(p, { force: true });
    return old.length ? [`removed ${old.length} attachment file(s) nothing referred to`] : [];
  },
};
