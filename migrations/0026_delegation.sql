-- brain schema, version 26: delegated tasks, the sub-turns the assistant hands work to.
--
-- A turn may hand a job to a sub-turn in a session of its own (`task/<id>`): with the caller
-- waiting for its answer, or in the background with the answer delivered to the owner when it is
-- done. Each is a row here from start to end, so `/status` and `brain ui` can list what runs; the
-- sub-turn's own messages are its session's thread, its model calls usage rows of that session.

CREATE TABLE delegated_tasks (
  id          INTEGER PRIMARY KEY,
  session     TEXT NOT NULL,                  -- the session of the turn that delegated it
  message_id  INTEGER REFERENCES messages(id), -- that turn's message: where the task came from
  task        TEXT NOT NULL,                  -- what it was asked to do
  tools       TEXT NOT NULL CHECK (json_valid(tools)),  -- the tool names it was given
  wait        INTEGER NOT NULL CHECK (wait IN (0, 1)),  -- 1: the caller waited for the answer
  depth       INTEGER NOT NULL CHECK (depth >= 1),
  status      TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed', 'cancelled', 'budget')),
  started_at  INTEGER NOT NULL CHECK (typeof(started_at) = 'integer'),  -- ms since 1970, UTC
  ended_at    INTEGER CHECK (ended_at IS NULL OR typeof(ended_at) = 'integer'),
  result      TEXT,                           -- the answer (bounded), or what ended it
  tainted_by  TEXT,                           -- foreign content the caller had taken in, if any
  pid         INTEGER,                        -- the process running it
  host        TEXT                            -- … and its host
);
CREATE INDEX delegated_tasks_running ON delegated_tasks(started_at) WHERE status = 'running';
