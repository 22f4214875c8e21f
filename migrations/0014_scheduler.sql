-- brain schema, version 14: what the assistant's scheduler keeps (agent/scheduler/).
--
-- New tables only. Times are milliseconds since 1970, UTC.

-- One row per due time of a cron job. The row is written (outcome `running`) in a short
-- transaction before the run starts: the UNIQUE key is the claim that stops a due time from
-- running twice, in one process or across a restart. A due time missed beyond the catch-up
-- window is written as `skipped`.
CREATE TABLE cron_runs (
  id          INTEGER PRIMARY KEY,
  job         TEXT NOT NULL,
  due_at      INTEGER NOT NULL CHECK (typeof(due_at) = 'integer'),
  started_at  INTEGER NOT NULL CHECK (typeof(started_at) = 'integer'),
  ended_at    INTEGER CHECK (ended_at IS NULL OR typeof(ended_at) = 'integer'),
  outcome     TEXT NOT NULL CHECK (outcome IN ('running', 'ok', 'error', 'skipped')),
  delivered   INTEGER NOT NULL DEFAULT 0 CHECK (delivered IN (0, 1)),
  late        INTEGER NOT NULL DEFAULT 0 CHECK (late IN (0, 1)),  -- caught up after downtime
  detail      TEXT NOT NULL DEFAULT '',
  UNIQUE (job, due_at)
);

-- Reminders set by the model (set_reminder). `notify` sends the text; `prompt` runs a turn with
-- it. A repeating one moves `due_at` to its next time after each firing.
CREATE TABLE reminders (
  id          INTEGER PRIMARY KEY,
  text        TEXT NOT NULL,
  mode        TEXT NOT NULL CHECK (mode IN ('notify', 'prompt')),
  due_at      INTEGER NOT NULL CHECK (typeof(due_at) = 'integer'),
  repeat      TEXT,                                   -- a cron expression, or NULL
  time_zone   TEXT,                                   -- the zone `repeat` is read in
  status      TEXT NOT NULL CHECK (status IN ('pending', 'done', 'cancelled')),
  created_at  INTEGER NOT NULL CHECK (typeof(created_at) = 'integer'),
  fired_at    INTEGER CHECK (fired_at IS NULL OR typeof(fired_at) = 'integer'),
  late        INTEGER NOT NULL DEFAULT 0 CHECK (late IN (0, 1)),
  message_id  INTEGER REFERENCES messages(id)         -- the turn that asked for it
);
CREATE INDEX reminders_due ON reminders(due_at) WHERE status = 'pending';

-- The owner's tasks (add_task), with the message that asked for each.
CREATE TABLE tasks (
  id            INTEGER PRIMARY KEY,
  title         TEXT NOT NULL,
  priority      TEXT NOT NULL CHECK (priority IN ('low', 'normal', 'high')),
  due_at        INTEGER CHECK (due_at IS NULL OR typeof(due_at) = 'integer'),
  status        TEXT NOT NULL CHECK (status IN ('pending', 'done')),
  created_at    INTEGER NOT NULL CHECK (typeof(created_at) = 'integer'),
  completed_at  INTEGER CHECK (completed_at IS NULL OR typeof(completed_at) = 'integer'),
  message_id    INTEGER REFERENCES messages(id)
);

-- Small named values the scheduler carries across restarts: an email watcher's last seen UID
-- (`email:<name>`), the heartbeat's last delivery (`heartbeat:last`), when a cron job was first
-- scheduled (`cron-since:<name>`). The value is JSON.
CREATE TABLE scheduler_state (
  key         TEXT PRIMARY KEY,
  value       TEXT NOT NULL,
  updated_at  INTEGER NOT NULL CHECK (typeof(updated_at) = 'integer')
);
