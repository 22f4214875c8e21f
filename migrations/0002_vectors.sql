-- brain schema, version 2: embeddings.
--
-- How vectors flow:
--   1. Triggers below put every new or changed message, STM entry and atom on `embed_queue`, in the
--      same transaction as the write (so nothing is ever missed, whichever process wrote it).
--   2. A drainer (`brain embed`, or the background worker of a long-running server) takes ready
--      rows in batches, builds each item's text, embeds it OUTSIDE any transaction, then in one short
--      transaction stores the vector in `embeddings` + the vec0 index and deletes the queue row.
--   3. A failure leaves the row on the queue with attempts + 1, the error and a backoff `retry_at`.
--      Rows are deleted only when their vector is stored: nothing is lost.
--
-- Invariants (what `brain doctor` may check):
--   - every message/stm/atom has either a row in `embeddings` (with the model of `embedding_space`)
--     or a row in `embed_queue`, or both (changed since it was embedded);
--   - every `embeddings` row has a row in the vec0 table `vec_index` with rowid = embeddings.id.
-- `vec_index` is created by the drainer, not here, because its dimension depends on the model:
--   CREATE VIRTUAL TABLE vec_index USING vec0(item_type text partition key, embedding bit[DIM],
--     created_ms integer, agent_id integer, thread_id integer, expires_ms integer)
-- It holds a 1-bit quantization of each vector plus the columns search filters on (so filters are
-- applied inside the k-nearest-neighbour scan, never after it); the exact float vectors for
-- re-scoring live in `embeddings.vector`.

CREATE TABLE embed_queue (
  id           INTEGER PRIMARY KEY,  -- enqueue order; a re-enqueue after a change gets a new id
  item_type    TEXT NOT NULL CHECK (item_type IN ('message', 'stm', 'atom')),
  item_id      INTEGER NOT NULL,
  enqueued_at  TEXT NOT NULL,
  attempts     INTEGER NOT NULL DEFAULT 0,  -- failed tries so far; > 0 counts as "failed"
  retry_at     TEXT,                        -- NULL: ready; else not before then (backoff or a drainer's lease)
  last_error   TEXT,
  UNIQUE (item_type, item_id)
);
-- Drainers take fresh rows (retry_at NULL) in id order and due ones by retry_at.
CREATE INDEX embed_queue_by_retry ON embed_queue(retry_at);

-- The one embedding space in use: which model made the vectors, and their dimension.
-- Changing the model empties `embeddings`/`vec_index` and re-queues every item.
CREATE TABLE embedding_space (
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  model       TEXT NOT NULL,
  dimension   INTEGER NOT NULL CHECK (dimension > 0),
  created_at  TEXT NOT NULL
);

-- One vector per item.
CREATE TABLE embeddings (
  id            INTEGER PRIMARY KEY,  -- = rowid of the item's row in vec_index
  item_type     TEXT NOT NULL CHECK (item_type IN ('message', 'stm', 'atom')),
  item_id       INTEGER NOT NULL,
  model         TEXT NOT NULL,
  dimension     INTEGER NOT NULL,
  content_hash  TEXT NOT NULL,        -- sha256 (hex, 32 chars) of the text that was embedded
  vector        BLOB NOT NULL,        -- float32 little-endian, unit length
  embedded_at   TEXT NOT NULL,
  UNIQUE (item_type, item_id)
);

CREATE TRIGGER messages_embed_insert AFTER INSERT ON messages BEGIN
  INSERT OR IGNORE INTO embed_queue (item_type, item_id, enqueued_at)
  VALUES ('message', new.id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
CREATE TRIGGER messages_embed_update AFTER UPDATE OF subject, body ON messages BEGIN
  INSERT OR REPLACE INTO embed_queue (item_type, item_id, enqueued_at)
  VALUES ('message', new.id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
CREATE TRIGGER stm_embed_insert AFTER INSERT ON stm BEGIN
  INSERT OR IGNORE INTO embed_queue (item_type, item_id, enqueued_at)
  VALUES ('stm', new.id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
CREATE TRIGGER stm_embed_update AFTER UPDATE OF content ON stm BEGIN
  INSERT OR REPLACE INTO embed_queue (item_type, item_id, enqueued_at)
  VALUES ('stm', new.id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
CREATE TRIGGER atoms_embed_insert AFTER INSERT ON atoms BEGIN
  INSERT OR IGNORE INTO embed_queue (item_type, item_id, enqueued_at)
  VALUES ('atom', new.id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
CREATE TRIGGER atoms_embed_update AFTER UPDATE OF subject, action, outcome, consequences ON atoms BEGIN
  INSERT OR REPLACE INTO embed_queue (item_type, item_id, enqueued_at)
  VALUES ('atom', new.id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;

-- Brains made before this migration: everything they hold waits for a vector.
INSERT INTO embed_queue (item_type, item_id, enqueued_at)
  SELECT 'message', id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM messages ORDER BY id;
INSERT INTO embed_queue (item_type, item_id, enqueued_at)
  SELECT 'stm', id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM stm ORDER BY id;
INSERT INTO embed_queue (item_type, item_id, enqueued_at)
  SELECT 'atom', id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM atoms ORDER BY id;

-- What search ranks messages by: each message read in its context (DESIGN: "a message is found
-- through its context"). Besides its own subject and body: who said it to whom, its neighbours in
-- the thread (the message it follows and the one that answers it: "yes, last week" means little
-- alone, and neither does the question it answers), and its date in words ("8 May 2023").
-- Contentless (the text lives in `messages`; `messages_fts` gives snippets), kept by the triggers
-- below: a new message also re-indexes the one before it, which now has a next.
CREATE VIRTUAL TABLE messages_context_fts USING fts5(
  subject, body, sender, previous, next, date,
  content = '', contentless_delete = 1,
  tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE VIEW messages_context AS
SELECT m.id AS id,
       coalesce(m.subject, t.subject) AS subject,
       m.body AS body,
       fa.name || ' to ' || coalesce(ta.name, 'everyone') AS sender,
       coalesce((SELECT substr(p.body, 1, 1000) FROM messages p
                 WHERE p.thread_id = m.thread_id AND p.created_at <= m.created_at
                   AND (p.created_at < m.created_at OR p.id < m.id)
                 ORDER BY p.created_at DESC, p.id DESC LIMIT 1), '') AS previous,
       coalesce((SELECT substr(n.body, 1, 1000) FROM messages n
                 WHERE n.thread_id = m.thread_id AND n.created_at >= m.created_at
                   AND (n.created_at > m.created_at OR n.id > m.id)
                 ORDER BY n.created_at, n.id LIMIT 1), '') AS next,
       CAST(strftime('%d', m.created_at) AS INTEGER) || ' ' ||
       CASE strftime('%m', m.created_at)
         WHEN '01' THEN 'January' WHEN '02' THEN 'February' WHEN '03' THEN 'March'
         WHEN '04' THEN 'April' WHEN '05' THEN 'May' WHEN '06' THEN 'June'
         WHEN '07' THEN 'July' WHEN '08' THEN 'August' WHEN '09' THEN 'September'
         WHEN '10' THEN 'October' WHEN '11' THEN 'November' ELSE 'December' END || ' ' ||
       strftime('%Y', m.created_at) AS date
FROM messages m
JOIN threads t ON t.id = m.thread_id
JOIN agents fa ON fa.id = m.from_agent
LEFT JOIN agents ta ON ta.id = m.to_agent;

-- A new message is indexed, and so again is the one just before it in its thread (its `next`).
CREATE TRIGGER messages_context_insert AFTER INSERT ON messages BEGIN
  INSERT INTO messages_context_fts (rowid, subject, body, sender, previous, next, date)
  SELECT id, subject, body, sender, previous, next, date FROM messages_context WHERE id = new.id;
  DELETE FROM messages_context_fts WHERE rowid = (
    SELECT p.id FROM messages p
    WHERE p.thread_id = new.thread_id AND p.created_at <= new.created_at
      AND (p.created_at < new.created_at OR p.id < new.id)
    ORDER BY p.created_at DESC, p.id DESC LIMIT 1);
  INSERT INTO messages_context_fts (rowid, subject, body, sender, previous, next, date)
  SELECT id, subject, body, sender, previous, next, date FROM messages_context WHERE id = (
    SELECT p.id FROM messages p
    WHERE p.thread_id = new.thread_id AND p.created_at <= new.created_at
      AND (p.created_at < new.created_at OR p.id < new.id)
    ORDER BY p.created_at DESC, p.id DESC LIMIT 1);
END;
CREATE TRIGGER messages_context_update AFTER UPDATE OF subject, body ON messages BEGIN
  DELETE FROM messages_context_fts WHERE rowid = new.id;
  INSERT INTO messages_context_fts (rowid, subject, body, sender, previous, next, date)
  SELECT id, subject, body, sender, previous, next, date FROM messages_context WHERE id = new.id;
END;
CREATE TRIGGER messages_context_delete AFTER DELETE ON messages BEGIN
  DELETE FROM messages_context_fts WHERE rowid = old.id;
END;

INSERT INTO messages_context_fts (rowid, subject, body, sender, previous, next, date)
  SELECT id, subject, body, sender, previous, next, date FROM messages_context ORDER BY id;
