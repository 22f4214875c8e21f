-- brain schema, version 8: a thread's times are integers.
--
-- `threads.created_at` and `threads.last_message_at` were ISO 8601 text (24 characters), the
-- second stored again in `threads_by_status`. Now both are milliseconds since 1970, UTC (6 bytes),
-- as `messages.created_at` (migration 0005); the library still takes and answers ISO 8601. At
-- 1,000,000 messages (262,257 threads, `brain bench`) that is about 14 bytes per message.
--
-- Made again as in migration 0006: rows keep their `id`, which messages and thread tags point at;
-- with foreign keys deferred, dropping the old table counts every row pointing at it as broken and
-- putting each thread back counts them as mended. The views that read `threads` read its subject
-- only. A time brain did not write (one that is not a time) becomes that of the thread's messages,
-- or 0 when it has none.

PRAGMA defer_foreign_keys = ON;

CREATE TEMP TABLE threads_v8 AS
SELECT t.id, t.uid, t.subject, t.status, t.created_by,
       coalesce(CAST(round(unixepoch(t.created_at, 'subsec') * 1000) AS INTEGER),
                (SELECT min(m.created_at) FROM messages m WHERE m.thread_id = t.id), 0) AS created_at,
       coalesce(CAST(round(unixepoch(t.last_message_at, 'subsec') * 1000) AS INTEGER),
                (SELECT max(m.created_at) FROM messages m WHERE m.thread_id = t.id), 0) AS last_message_at,
       t.message_count
FROM threads t ORDER BY t.id;

DROP TABLE threads;

CREATE TABLE threads (
  id               INTEGER PRIMARY KEY,
  uid              BLOB NOT NULL UNIQUE CHECK (typeof(uid) = 'blob' AND length(uid) = 16),  -- the UUID of thr_…
  subject          TEXT NOT NULL,
  status           TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived', 'closed')),
  created_by       INTEGER NOT NULL REFERENCES agents(id),
  created_at       INTEGER NOT NULL CHECK (typeof(created_at) = 'integer'),  -- ms since 1970, UTC
  last_message_at  INTEGER NOT NULL CHECK (typeof(last_message_at) = 'integer'),
  message_count    INTEGER NOT NULL DEFAULT 0
);
INSERT INTO threads (id, uid, subject, status, created_by, created_at, last_message_at, message_count)
SELECT id, uid, subject, status, created_by, created_at, last_message_at, message_count
FROM threads_v8 ORDER BY id;
DROP TABLE threads_v8;

CREATE INDEX threads_by_status ON threads(status, last_message_at);
