-- brain schema, version 19: which process started a cron run or asked an approval, and a run
-- that ended without finishing.
--
-- A `running` cron run and a `pending` approval are under way only while the process that started
-- them lives. Each now keeps that process (pid on host, as leases do), so `brain doctor` can tell
-- work cut short by a crash from work in progress. Rows written before have none (NULL): only
-- their age can tell. A run whose process ended without finishing it becomes `interrupted`.

-- The outcome's CHECK gains `interrupted`: SQLite changes a CHECK only by rebuilding the table.
-- Nothing refers to cron_runs, and it has no trigger or index of its own besides its keys.
CREATE TABLE cron_runs_v19 (
  id          INTEGER PRIMARY KEY,
  job         TEXT NOT NULL,
  due_at      INTEGER NOT NULL CHECK (typeof(due_at) = 'integer'),
  started_at  INTEGER NOT NULL CHECK (typeof(started_at) = 'integer'),
  ended_at    INTEGER CHECK (ended_at IS NULL OR typeof(ended_at) = 'integer'),
  outcome     TEXT NOT NULL CHECK (outcome IN ('running', 'ok', 'error', 'skipped', 'interrupted')),
  delivered   INTEGER NOT NULL DEFAULT 0 CHECK (delivered IN (0, 1)),
  late        INTEGER NOT NULL DEFAULT 0 CHECK (late IN (0, 1)),  -- caught up after downtime
  detail      TEXT NOT NULL DEFAULT '',
  pid         INTEGER,                                -- the process that claimed it to run it
  host        TEXT,                                   -- … and its host; both NULL when unknown
  UNIQUE (job, due_at)
);
INSERT INTO cron_runs_v19 (id, job, due_at, started_at, ended_at, outcome, delivered, late, detail)
  SELECT id, job, due_at, started_at, ended_at, outcome, delivered, late, detail FROM cron_runs;
DROP TABLE cron_runs;
ALTER TABLE cron_runs_v19 RENAME TO cron_runs;

-- The process that waits for the owner's answer to a pending ask (NULL once settled at once).
ALTER TABLE approvals ADD COLUMN pid INTEGER;
ALTER TABLE approvals ADD COLUMN host TEXT;
