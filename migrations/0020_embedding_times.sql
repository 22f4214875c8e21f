-- brain schema, version 20: the embedding tables' times are integers.
--
-- `embed_queue.enqueued_at`, `embed_queue.retry_at`, `embedding_space.created_at` and
-- `embeddings.embedded_at` were ISO 8601 text; now they are milliseconds since 1970, UTC, as every
-- other time in the brain. The library still answers ISO 8601 where it returns one of them.
--
-- Each table is made again with its rows keeping their `id` (`embeddings.id` is the rowid of the
-- item's row in `vec_index`; the queue's id is its enqueue order). A time brain did not write (one
-- that is not a time) becomes 0, the epoch: a queued item is then due at once. The triggers that
-- queue a changed item are made again to write milliseconds.

DROP TRIGGER messages_embed_update;
DROP TRIGGER stm_embed_update;
DROP TRIGGER atoms_embed_update;

CREATE TEMP TABLE embed_queue_v20 AS
SELECT id, item_type, item_id,
       coalesce(CAST(round(unixepoch(enqueued_at, 'subsec') * 1000) AS INTEGER), 0) AS enqueued_at,
       attempts,
       CASE WHEN retry_at IS NOT NULL
            THEN coalesce(CAST(round(unixepoch(retry_at, 'subsec') * 1000) AS INTEGER), 0) END AS retry_at,
       last_error
FROM embed_queue ORDER BY id;
DROP TABLE embed_queue;
CREATE TABLE embed_queue (
  id           INTEGER PRIMARY KEY,  -- enqueue order; a re-enqueue after a change gets a new id
  item_type    TEXT NOT NULL CHECK (item_type IN ('message', 'stm', 'atom')),
  item_id      INTEGER NOT NULL,
  enqueued_at  INTEGER NOT NULL CHECK (typeof(enqueued_at) = 'integer'),  -- ms since 1970, UTC
  attempts     INTEGER NOT NULL DEFAULT 0,  -- failed tries so far; > 0 counts as "failed"
  retry_at     INTEGER CHECK (retry_at IS NULL OR typeof(retry_at) = 'integer'),  -- NULL: ready; else not before then (backoff or a drainer's lease)
  last_error   TEXT,
  UNIQUE (item_type, item_id)
);
INSERT INTO embed_queue (id, item_type, item_id, enqueued_at, attempts, retry_at, last_error)
SELECT id, item_type, item_id, enqueued_at, attempts, retry_at, last_error
FROM embed_queue_v20 ORDER BY id;
DROP TABLE embed_queue_v20;
-- Drainers take fresh rows (retry_at NULL) in id order and due ones by retry_at.
CREATE INDEX embed_queue_by_retry ON embed_queue(retry_at);

CREATE TEMP TABLE embedding_space_v20 AS
SELECT id, model, dimension,
       coalesce(CAST(round(unixepoch(created_at, 'subsec') * 1000) AS INTEGER), 0) AS created_at
FROM embedding_space;
DROP TABLE embedding_space;
CREATE TABLE embedding_space (
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  model       TEXT NOT NULL,
  dimension   INTEGER NOT NULL CHECK (dimension > 0),
  created_at  INTEGER NOT NULL CHECK (typeof(created_at) = 'integer')  -- ms since 1970, UTC
);
INSERT INTO embedding_space (id, model, dimension, created_at)
SELECT id, model, dimension, created_at FROM embedding_space_v20;
DROP TABLE embedding_space_v20;

CREATE TEMP TABLE embeddings_v20 AS
SELECT id, item_type, item_id, model, dimension, content_hash, vector,
       coalesce(CAST(round(unixepoch(embedded_at, 'subsec') * 1000) AS INTEGER), 0) AS embedded_at
FROM embeddings ORDER BY id;
DROP TABLE embeddings;
CREATE TABLE embeddings (
  id            INTEGER PRIMARY KEY,  -- = rowid of the item's row in vec_index
  item_type     TEXT NOT NULL CHECK (item_type IN ('message', 'stm', 'atom')),
  item_id       INTEGER NOT NULL,
  model         TEXT NOT NULL,
  dimension     INTEGER NOT NULL,
  content_hash  TEXT NOT NULL,        -- sha256 (hex, 32 chars) of the text that was embedded
  vector        BLOB NOT NULL,        -- float32 little-endian, unit length
  embedded_at   INTEGER NOT NULL CHECK (typeof(embedded_at) = 'integer'),  -- ms since 1970, UTC
  UNIQUE (item_type, item_id)
);
INSERT INTO embeddings (id, item_type, item_id, model, dimension, content_hash, vector, embedded_at)
SELECT id, item_type, item_id, model, dimension, content_hash, vector, embedded_at
FROM embeddings_v20 ORDER BY id;
DROP TABLE embeddings_v20;

-- A change to an item the cursor has passed queues it again, at SQLite's time.
CREATE TRIGGER messages_embed_update AFTER UPDATE OF subject, body ON messages
WHEN new.id <= (SELECT last_id FROM embed_cursor WHERE item_type = 'message') BEGIN
  INSERT OR REPLACE INTO embed_queue (item_type, item_id, enqueued_at)
  VALUES ('message', new.id, CAST(round(unixepoch('now', 'subsec') * 1000) AS INTEGER));
END;
CREATE TRIGGER stm_embed_update AFTER UPDATE OF content ON stm
WHEN new.id <= (SELECT last_id FROM embed_cursor WHERE item_type = 'stm') BEGIN
  INSERT OR REPLACE INTO embed_queue (item_type, item_id, enqueued_at)
  VALUES ('stm', new.id, CAST(round(unixepoch('now', 'subsec') * 1000) AS INTEGER));
END;
CREATE TRIGGER atoms_embed_update AFTER UPDATE OF subject, action, outcome, consequences ON atoms
WHEN new.id <= (SELECT last_id FROM embed_cursor WHERE item_type = 'atom') BEGIN
  INSERT OR REPLACE INTO embed_queue (item_type, item_id, enqueued_at)
  VALUES ('atom', new.id, CAST(round(unixepoch('now', 'subsec') * 1000) AS INTEGER));
END;
