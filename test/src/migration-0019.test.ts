import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectionOf } from '../../src/brain.js';
import { registerIndexText } from '../../src/db/index-text.js';
import { loadMigrations } from '../../src/db/migrate.js';
import { APPLICATION_ID, openBrain } from '../../src/index.js';
import { tempDir } from '../helpers.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

/** A brain as version 18 left it, with a cron run still running and an ask still pending. */
function versionEighteen(path: string): void {
  const old = new BetterSqlite3(path);
  sqliteVec.load(old);
  registerIndexText(old);
  for (const m of loadMigrations().slice(0, 18)) old.exec(m.sql);
  old.pragma(`application_id = ${APPLICATION_ID}`);
  old.pragma('user_version = 18');
  old.exec(`
    INSERT INTO cron_runs (job, due_at, started_at, outcome, detail) VALUES ('daily', 1000, 1001, 'running', '');
    INSERT INTO cron_runs (job, due_at, started_at, ended_at, outcome, delivered, late, detail)
      VALUES ('daily', 2000, 2001, 2002, 'ok', 1, 1, 'fine');
    INSERT INTO approvals (tool, args_digest, summary, decision, reason, asked_at)
      VALUES ('run_command', 'abc', 'git push', 'pending', 'writes', 3000);`);
  old.close();
}

describe('migration 0019: the owners of work under way', () => {
  it('keeps every cron run and approval, with no owner known for the old rows', async () => {
    const path = join(dir, 'brain.db');
    versionEighteen(path);
    const brain = await openBrain({ dbPath: path });
    try {
      expect(
        brain.assistant.cronRuns({ job: 'daily' }).map((r) => [r.outcome, r.delivered, r.detail]),
      ).toEqual([
        ['ok', true, 'fine'],
        ['running', false, ''],
      ]);
      const db = connectionOf(brain);
      expect(db.prepare(`SELECT pid, host FROM cron_runs`).all()).toEqual([
        { pid: null, host: null },
        { pid: null, host: null },
      ]);
      expect(brain.assistant.approvals({ pending: true }).map((a) => a.summary)).toEqual([
        'git push',
      ]);
      // `interrupted` is an outcome now; others still are not.
      db.prepare(`UPDATE cron_runs SET outcome = 'interrupted' WHERE due_at = 1000`).run();
      expect(() => db.prepare(`UPDATE cron_runs SET outcome = 'lost'`).run()).toThrow(/CHECK/);
      expect(() =>
        db
          .prepare(
            `INSERT INTO cron_runs (job, due_at, started_at, outcome) VALUES ('daily', 1000, 1, 'ok')`,
          )
          .run(),
      ).toThrow(/UNIQUE/);
    } finally {
      brain.close();
    }
  });

  it('records the process that claims a run or waits on an ask, and none for settled rows', async () => {
    const brain = await openBrain({ dbPath: join(dir, 'new.db') });
    try {
      brain.assistant.claimCronRun({ job: 'a', due_at: '2026-01-01T00:00:00.000Z' });
      brain.assistant.claimCronRun({
        job: 'a',
        due_at: '2026-01-02T00:00:00.000Z',
        outcome: 'skipped',
      });
      const args = { tool: 't', args: {}, reason: 'r' };
      brain.assistant.recordApproval({ ...args, decision: 'pending' });
      brain.assistant.recordApproval({ ...args, decision: 'allow', decided_by: 'policy' });
      const db = connectionOf(brain);
      const owners = (table: string) =>
        db.prepare(`SELECT pid, host IS NOT NULL AS has_host FROM ${table} ORDER BY id`).all();
      expect(owners('cron_runs')).toEqual([
        { pid: process.pid, has_host: 1 },
        { pid: null, has_host: 0 },
      ]);
      expect(owners('approvals')).toEqual([
        { pid: process.pid, has_host: 1 },
        { pid: null, has_host: 0 },
      ]);
    } finally {
      brain.close();
    }
  });
});
