-- brain schema, version 10: what the assistant keeps besides messages and knowledge.
--
-- New tables only; none of the existing ones is read or changed. Times are milliseconds since
-- 1970, UTC, as everywhere since migration 0009.

-- A session is a name (`chat/default`, `telegram/<chat id>`) pointing at its current thread.
-- `/new` points the name at a fresh thread; the old ones stay, listed in `session_threads`.
CREATE TABLE sessions (
  id          INTEGER PRIMARY KEY,
  name        TEXT NOT NULL UNIQUE,
  agent_id    INTEGER NOT NULL REFERENCES agents(id),  -- the assistant
  owner_id    INTEGER NOT NULL REFERENCES agents(id),  -- the user it serves
  thread_id   INTEGER NOT NULL REFERENCES threads(id), -- the current thread
  created_at  INTEGER NOT NULL CHECK (typeof(created_at) = 'integer')
);

-- Every thread a session has had, the current one included.
CREATE TABLE session_threads (
  session_id  INTEGER NOT NULL REFERENCES sessions(id),
  thread_id   INTEGER NOT NULL UNIQUE REFERENCES threads(id),
  started_at  INTEGER NOT NULL CHECK (typeof(started_at) = 'integer'),
  PRIMARY KEY (session_id, thread_id)
) WITHOUT ROWID;

-- A lease: one holder at a time per key (one turn per session, across processes). The holder is
-- a process (pid on host) and a label telling apart its holders; past `expires_at`, or once the
-- holder's process is gone from this host, another may take it over.
CREATE TABLE leases (
  key          TEXT PRIMARY KEY,
  pid          INTEGER NOT NULL,
  host         TEXT NOT NULL,
  label        TEXT NOT NULL,
  acquired_at  INTEGER NOT NULL CHECK (typeof(acquired_at) = 'integer'),
  expires_at   INTEGER NOT NULL CHECK (typeof(expires_at) = 'integer')
) WITHOUT ROWID;

-- One row per model call: what it cost in tokens, for `brain usage`.
CREATE TABLE model_usage (
  id                  INTEGER PRIMARY KEY,
  at                  INTEGER NOT NULL CHECK (typeof(at) = 'integer'),
  source              TEXT NOT NULL,  -- chat, channel, heartbeat, cron, compaction, …
  session             TEXT,
  model               TEXT NOT NULL,
  endpoint            TEXT NOT NULL,
  input_tokens        INTEGER NOT NULL CHECK (input_tokens >= 0),
  output_tokens       INTEGER NOT NULL CHECK (output_tokens >= 0),
  cache_read_tokens   INTEGER NOT NULL CHECK (cache_read_tokens >= 0),
  cache_write_tokens  INTEGER NOT NULL CHECK (cache_write_tokens >= 0),
  message_id          INTEGER REFERENCES messages(id)
);
CREATE INDEX model_usage_by_time ON model_usage(at);
