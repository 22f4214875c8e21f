-- brain schema, version 25: webhooks out, and what retention changed.
--
-- A server with webhooks configured notices events (a message to an agent, a mention, a thread
-- closed, knowledge added) past each hook's high-water marks in webhook_marks, queues one row of
-- webhook_deliveries per hook and event, and posts them from a worker: sends never wait on a hook.
-- A delivery's status is pending until the receiver answers 2xx (delivered) or it has failed
-- `maxAttempts` times (dead, the dead-letter list); `brain webhooks replay` queues it again.
--
-- Closing a thread is an update, not an insert, so a trigger logs it in thread_closures: the one
-- write it adds is to a thread's close, which is rare.

CREATE TABLE webhook_marks (
  hook     TEXT NOT NULL,  -- a hook's name in the config: each hook keeps its own place
  source   TEXT NOT NULL CHECK (source IN ('messages', 'stm', 'atoms', 'thread_closures')),
  last_id  INTEGER NOT NULL,
  PRIMARY KEY (hook, source)
) WITHOUT ROWID;

CREATE TABLE thread_closures (
  id         INTEGER PRIMARY KEY,
  thread_id  INTEGER NOT NULL REFERENCES threads(id),
  closed_at  INTEGER NOT NULL CHECK (typeof(closed_at) = 'integer')  -- ms since 1970, UTC
);

CREATE TRIGGER threads_closed AFTER UPDATE OF status ON threads
WHEN new.status = 'closed' AND old.status <> 'closed'
BEGIN
  INSERT INTO thread_closures (thread_id, closed_at)
  VALUES (new.id, CAST(round(unixepoch('subsec') * 1000) AS INTEGER));
END;

CREATE TABLE webhook_deliveries (
  id               INTEGER PRIMARY KEY,
  hook             TEXT NOT NULL,  -- the hook's name in the config
  event            TEXT NOT NULL CHECK (event IN ('message', 'mention', 'thread.closed', 'knowledge')),
  payload          TEXT NOT NULL CHECK (json_valid(payload)),  -- the JSON body posted, as signed
  status           TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'dead')),
  attempts         INTEGER NOT NULL DEFAULT 0,
  next_attempt_at  INTEGER CHECK (next_attempt_at IS NULL OR typeof(next_attempt_at) = 'integer'),
  last_code        INTEGER,  -- the receiver's HTTP status, NULL when none answered
  last_error       TEXT,
  created_at       INTEGER NOT NULL CHECK (typeof(created_at) = 'integer'),
  delivered_at     INTEGER CHECK (delivered_at IS NULL OR typeof(delivered_at) = 'integer')
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_by_status ON webhook_deliveries(status, id);
