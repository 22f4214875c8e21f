-- brain schema, version 5: a message's id and time are integers.
--
-- Measured at 100,000 messages (`brain bench`), the messages table and its indexes cost 368 of the
-- 763 bytes per message, much of it two texts stored three times over: the id (`syn_` + 12 hex,
-- 16 characters, in the row and its UNIQUE index) and the time (24 characters of ISO 8601, in the
-- row and in both time indexes). Now:
--   - `messages.uid` is the 48-bit number the id's 12 hex digits spell (6 bytes); the public id is
--     `'syn_' || printf('%012x', uid)`, made at the edges (src/ids.ts);
--   - `messages.created_at` is milliseconds since 1970, UTC (6 bytes), as `deliveries.read_at`
--     (migration 0004). The library still takes and answers ISO 8601 times.
-- At 100,000 messages: 682 bytes per message instead of 763. Per message, the table 255 → 226
-- bytes, `messages_by_thread` 41.7 → 20.5, `messages_by_time` 37.6 → 16.9, the UNIQUE index of
-- `uid` 27.4 → 17.3. Migrating that brain takes about 2 s.
--
-- The full-text index `messages_fts` is not rebuilt: it keeps the text of `messages_search`, which
-- gives exactly the same words as before for every message (the date in words is made from the
-- milliseconds), so what its triggers remove is what was indexed.
--
-- SQLite cannot change a column's type: the table is made again. Rows keep their `id`, which is
-- what deliveries, acks, STM entries, atoms and replies point at. Migrations run with foreign keys
-- on (src/db/migrate.ts), which cannot be turned off inside the transaction: deferred, dropping the
-- old table counts every row pointing at it as broken, and putting each message back counts the
-- rows pointing at it as mended, so the commit fails unless every one came back. (Rows that already
-- pointed at nothing are left as they were, for `brain doctor` to report.)

PRAGMA defer_foreign_keys = ON;

DROP VIEW messages_context;
DROP VIEW messages_search;

-- The rows, converted. The checks refuse a time SQLite cannot read, and an id that is not
-- `syn_` + 12 lowercase hex digits (the conversion must give it back exactly).
CREATE TEMP TABLE messages_v5 (
  id          INTEGER PRIMARY KEY,
  uid         INTEGER NOT NULL,
  old_uid     TEXT NOT NULL CHECK (old_uid = printf('syn_%012x', uid)),
  thread_id   INTEGER NOT NULL,
  from_agent  INTEGER NOT NULL,
  to_agent    INTEGER,
  reply_to    INTEGER,
  priority    TEXT NOT NULL,
  subject     TEXT,
  body        TEXT NOT NULL,
  metadata    TEXT,
  created_at  INTEGER NOT NULL
);
INSERT INTO messages_v5
SELECT id,
       ((instr('0123456789abcdef', substr(uid, 5, 1)) - 1) << 44) +
       ((instr('0123456789abcdef', substr(uid, 6, 1)) - 1) << 40) +
       ((instr('0123456789abcdef', substr(uid, 7, 1)) - 1) << 36) +
       ((instr('0123456789abcdef', substr(uid, 8, 1)) - 1) << 32) +
       ((instr('0123456789abcdef', substr(uid, 9, 1)) - 1) << 28) +
       ((instr('0123456789abcdef', substr(uid, 10, 1)) - 1) << 24) +
       ((instr('0123456789abcdef', substr(uid, 11, 1)) - 1) << 20) +
       ((instr('0123456789abcdef', substr(uid, 12, 1)) - 1) << 16) +
       ((instr('0123456789abcdef', substr(uid, 13, 1)) - 1) << 12) +
       ((instr('0123456789abcdef', substr(uid, 14, 1)) - 1) << 8) +
       ((instr('0123456789abcdef', substr(uid, 15, 1)) - 1) << 4) +
       (instr('0123456789abcdef', substr(uid, 16, 1)) - 1),
       uid, thread_id, from_agent, to_agent, reply_to, priority, subject, body, metadata,
       CAST(round(unixepoch(created_at, 'subsec') * 1000) AS INTEGER)
FROM messages ORDER BY id;

DROP TABLE messages;

CREATE TABLE messages (
  id          INTEGER PRIMARY KEY,
  uid         INTEGER NOT NULL UNIQUE CHECK (typeof(uid) = 'integer' AND uid BETWEEN 0 AND 0xffffffffffff),  -- the 12 hex digits of syn_…
  thread_id   INTEGER NOT NULL REFERENCES threads(id),
  from_agent  INTEGER NOT NULL REFERENCES agents(id),
  to_agent    INTEGER REFERENCES agents(id),
  reply_to    INTEGER REFERENCES messages(id),
  priority    TEXT NOT NULL DEFAULT 'normal' CHECK (priority IN ('info', 'normal', 'action', 'urgent')),
  subject     TEXT,
  body        TEXT NOT NULL,
  metadata    TEXT CHECK (metadata IS NULL OR (json_valid(metadata) AND json_type(metadata) = 'object')),
  created_at  INTEGER NOT NULL CHECK (typeof(created_at) = 'integer')  -- ms since 1970, UTC
);
-- Before the rows come back: each row put back looks for the replies that point at it.
CREATE INDEX messages_by_reply ON messages(reply_to) WHERE reply_to IS NOT NULL;

INSERT INTO messages (id, uid, thread_id, from_agent, to_agent, reply_to, priority, subject, body, metadata, created_at)
SELECT id, uid, thread_id, from_agent, to_agent, reply_to, priority, subject, body, metadata, created_at
FROM messages_v5 ORDER BY id;
DROP TABLE messages_v5;

CREATE INDEX messages_by_thread ON messages(thread_id, created_at);
CREATE INDEX messages_by_time ON messages(created_at);

-- As in migration 0003, the date in words now made from milliseconds: the same text.
CREATE VIEW messages_search AS
SELECT m.id AS id,
       coalesce(m.subject, t.subject) AS subject,
       m.body AS body,
       fa.name || ' to ' || coalesce(ta.name, 'everyone') AS sender,
       CAST(strftime('%d', m.created_at / 1000.0, 'unixepoch') AS INTEGER) || ' ' ||
       CASE strftime('%m', m.created_at / 1000.0, 'unixepoch')
         WHEN '01' THEN 'January' WHEN '02' THEN 'February' WHEN '03' THEN 'March'
         WHEN '04' THEN 'April' WHEN '05' THEN 'May' WHEN '06' THEN 'June'
         WHEN '07' THEN 'July' WHEN '08' THEN 'August' WHEN '09' THEN 'September'
         WHEN '10' THEN 'October' WHEN '11' THEN 'November' ELSE 'December' END || ' ' ||
       strftime('%Y', m.created_at / 1000.0, 'unixepoch') AS date
FROM messages m
JOIN threads t ON t.id = m.thread_id
JOIN agents fa ON fa.id = m.from_agent
LEFT JOIN agents ta ON ta.id = m.to_agent;

-- As in migration 0003 (times compared with times: unchanged).
CREATE VIEW messages_context AS
SELECT s.id, s.subject, s.body, s.sender, s.date,
       coalesce((SELECT substr(p.body, 1, 1000) FROM messages p
                 WHERE p.thread_id = m.thread_id AND p.created_at <= m.created_at
                   AND (p.created_at < m.created_at OR p.id < m.id)
                 ORDER BY p.created_at DESC, p.id DESC LIMIT 1), '') AS previous
FROM messages_search s JOIN messages m ON m.id = s.id;

-- The triggers went with the old table; as in migrations 0003 and 0004.
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts (rowid, subject, body, sender, date)
  SELECT id, subject, body, sender, date FROM messages_search WHERE id = new.id;
END;
-- Before: the row must still be there for the view to give the values to remove.
CREATE TRIGGER messages_fts_delete BEFORE DELETE ON messages BEGIN
  INSERT INTO messages_fts (messages_fts, rowid, subject, body, sender, date)
  SELECT 'delete', id, subject, body, sender, date FROM messages_search WHERE id = old.id;
END;
CREATE TRIGGER messages_fts_unindex BEFORE UPDATE OF subject, body ON messages BEGIN
  INSERT INTO messages_fts (messages_fts, rowid, subject, body, sender, date)
  SELECT 'delete', id, subject, body, sender, date FROM messages_search WHERE id = old.id;
END;
CREATE TRIGGER messages_fts_reindex AFTER UPDATE OF subject, body ON messages BEGIN
  INSERT INTO messages_fts (rowid, subject, body, sender, date)
  SELECT id, subject, body, sender, date FROM messages_search WHERE id = new.id;
END;

CREATE TRIGGER messages_embed_update AFTER UPDATE OF subject, body ON messages
WHEN new.id <= (SELECT last_id FROM embed_cursor WHERE item_type = 'message') BEGIN
  INSERT OR REPLACE INTO embed_queue (item_type, item_id, enqueued_at)
  VALUES ('message', new.id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
