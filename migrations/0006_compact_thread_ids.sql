-- brain schema, version 6: a thread's id is its 16 bytes.
--
-- A thread id is `thr_` + a UUID: 40 characters, stored in the row and in its UNIQUE index. Now
-- `threads.uid` holds the UUID's 16 bytes; the public id is made at the edges (src/ids.ts).
-- At 100,000 messages (26,193 threads, `brain bench`): 668 bytes per message instead of 682; per
-- message, the table 35.0 → 28.1 bytes and its UNIQUE index 13.6 → 6.8. Migrating that brain takes
-- well under a second.
--
-- Made again as `messages` was in migration 0005: rows keep their `id`, which is what messages and
-- thread tags point at; dropping the old table counts every row pointing at it as broken (deferred
-- to the commit), and putting each thread back counts the rows pointing at it as mended. The views
-- that read `threads` (`messages_search`, `messages_context`) are not touched: their text is the
-- same, and so is what the full-text index holds.

PRAGMA defer_foreign_keys = ON;

-- The rows, converted. The check refuses an id that is not `thr_` + a lowercase UUID (the
-- conversion must give it back exactly).
CREATE TEMP TABLE threads_v6 (
  id               INTEGER PRIMARY KEY,
  uid              BLOB NOT NULL,
  old_uid          TEXT NOT NULL CHECK (old_uid = 'thr_' || lower(
    substr(hex(uid), 1, 8) || '-' || substr(hex(uid), 9, 4) || '-' || substr(hex(uid), 13, 4) || '-' ||
    substr(hex(uid), 17, 4) || '-' || substr(hex(uid), 21))),
  subject          TEXT NOT NULL,
  status           TEXT NOT NULL,
  created_by       INTEGER NOT NULL,
  created_at       TEXT NOT NULL,
  last_message_at  TEXT NOT NULL,
  message_count    INTEGER NOT NULL
);
INSERT INTO threads_v6
SELECT id, coalesce(unhex(replace(substr(uid, 5), '-', '')), x''), uid, subject, status, created_by,
       created_at, last_message_at, message_count
FROM threads ORDER BY id;

DROP TABLE threads;

CREATE TABLE threads (
  id               INTEGER PRIMARY KEY,
  uid              BLOB NOT NULL UNIQUE CHECK (typeof(uid) = 'blob' AND length(uid) = 16),  -- the UUID of thr_…
  subject          TEXT NOT NULL,
  status           TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived', 'closed')),
  created_by       INTEGER NOT NULL REFERENCES agents(id),
  created_at       TEXT NOT NULL,
  last_message_at  TEXT NOT NULL,
  message_count    INTEGER NOT NULL DEFAULT 0
);
INSERT INTO threads (id, uid, subject, status, created_by, created_at, last_message_at, message_count)
SELECT id, uid, subject, status, created_by, created_at, last_message_at, message_count
FROM threads_v6 ORDER BY id;
DROP TABLE threads_v6;

CREATE INDEX threads_by_status ON threads(status, last_message_at);
