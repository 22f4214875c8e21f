-- brain schema, version 4: new items wait for their vectors without a queue row; read times are
-- integers; poll reads only its index.
--
-- Measured at 100,000 messages (`brain bench`), version 3 spent 95 of its 913 bytes per message on
-- the embedding queue (a row, its UNIQUE index and its retry index per new item, kept until a model
-- embeds it, and forever on a brain without one) and 98 on delivery rows, most of it the ISO text
-- of `read_at`. Now:
--   - `embed_cursor` holds, per kind, the last id handed to a drainer: every message, memory or
--     atom above it waits to be embedded, as if queued. A drainer claims new items by moving the
--     cursor and writing queue rows for just the batch it leases (src/embed/queue.ts). Rows remain
--     for what changed after it was embedded, what failed, and what a repair queued again.
--   - `deliveries.read_at` is milliseconds since 1970 (UTC), 6 bytes instead of 24; the library
--     still answers ISO 8601 times.
--   - the partial index of unread deliveries carries `read_at`, so counting an agent's unread mail
--     never reads the table.

CREATE TABLE embed_cursor (
  item_type  TEXT PRIMARY KEY CHECK (item_type IN ('message', 'stm', 'atom')),
  last_id    INTEGER NOT NULL  -- every item of this kind with a larger id waits to be embedded
) WITHOUT ROWID;

-- Where each kind's cursor starts: below the run of newest items that all wait for a first try
-- (their queue rows go), else at the newest item (every queue row stays).
WITH fresh AS (
       SELECT q.item_id FROM embed_queue q JOIN messages t ON t.id = q.item_id
       WHERE q.item_type = 'message' AND q.attempts = 0 AND q.retry_at IS NULL),
     run AS (
       SELECT coalesce((SELECT min(item_id) FROM fresh), (SELECT coalesce(max(id), 0) + 1 FROM messages)) AS lo)
INSERT INTO embed_cursor (item_type, last_id)
SELECT 'message', CASE
    WHEN (SELECT count(*) FROM fresh WHERE item_id >= run.lo) = (SELECT count(*) FROM messages WHERE id >= run.lo)
    THEN run.lo - 1
    ELSE (SELECT coalesce(max(id), 0) FROM messages) END
FROM run;

WITH fresh AS (
       SELECT q.item_id FROM embed_queue q JOIN stm t ON t.id = q.item_id
       WHERE q.item_type = 'stm' AND q.attempts = 0 AND q.retry_at IS NULL),
     run AS (
       SELECT coalesce((SELECT min(item_id) FROM fresh), (SELECT coalesce(max(id), 0) + 1 FROM stm)) AS lo)
INSERT INTO embed_cursor (item_type, last_id)
SELECT 'stm', CASE
    WHEN (SELECT count(*) FROM fresh WHERE item_id >= run.lo) = (SELECT count(*) FROM stm WHERE id >= run.lo)
    THEN run.lo - 1
    ELSE (SELECT coalesce(max(id), 0) FROM stm) END
FROM run;

WITH fresh AS (
       SELECT q.item_id FROM embed_queue q JOIN atoms t ON t.id = q.item_id
       WHERE q.item_type = 'atom' AND q.attempts = 0 AND q.retry_at IS NULL),
     run AS (
       SELECT coalesce((SELECT min(item_id) FROM fresh), (SELECT coalesce(max(id), 0) + 1 FROM atoms)) AS lo)
INSERT INTO embed_cursor (item_type, last_id)
SELECT 'atom', CASE
    WHEN (SELECT count(*) FROM fresh WHERE item_id >= run.lo) = (SELECT count(*) FROM atoms WHERE id >= run.lo)
    THEN run.lo - 1
    ELSE (SELECT coalesce(max(id), 0) FROM atoms) END
FROM run;

DELETE FROM embed_queue
WHERE attempts = 0 AND retry_at IS NULL
  AND item_id > (SELECT c.last_id FROM embed_cursor c WHERE c.item_type = embed_queue.item_type);

-- New items need no trigger: the cursor covers them. A change to an item the cursor has passed
-- queues it again (one above the cursor is still waiting, and will be embedded as it is then).
DROP TRIGGER messages_embed_insert;
DROP TRIGGER messages_embed_update;
CREATE TRIGGER messages_embed_update AFTER UPDATE OF subject, body ON messages
WHEN new.id <= (SELECT last_id FROM embed_cursor WHERE item_type = 'message') BEGIN
  INSERT OR REPLACE INTO embed_queue (item_type, item_id, enqueued_at)
  VALUES ('message', new.id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;

DROP TRIGGER stm_embed_insert;
DROP TRIGGER stm_embed_update;
CREATE TRIGGER stm_embed_update AFTER UPDATE OF content ON stm
WHEN new.id <= (SELECT last_id FROM embed_cursor WHERE item_type = 'stm') BEGIN
  INSERT OR REPLACE INTO embed_queue (item_type, item_id, enqueued_at)
  VALUES ('stm', new.id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;

DROP TRIGGER atoms_embed_insert;
DROP TRIGGER atoms_embed_update;
CREATE TRIGGER atoms_embed_update AFTER UPDATE OF subject, action, outcome, consequences ON atoms
WHEN new.id <= (SELECT last_id FROM embed_cursor WHERE item_type = 'atom') BEGIN
  INSERT OR REPLACE INTO embed_queue (item_type, item_id, enqueued_at)
  VALUES ('atom', new.id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;

-- Delivery rows again, with integer read times.
CREATE TABLE deliveries_v4 (
  message_id  INTEGER NOT NULL REFERENCES messages(id),
  agent_id    INTEGER NOT NULL REFERENCES agents(id),
  read_at     INTEGER CHECK (read_at IS NULL OR typeof(read_at) = 'integer'),  -- ms since 1970, UTC
  PRIMARY KEY (message_id, agent_id)
) WITHOUT ROWID;
INSERT INTO deliveries_v4 (message_id, agent_id, read_at)
SELECT message_id, agent_id, CAST(round(unixepoch(read_at, 'subsec') * 1000) AS INTEGER)
FROM deliveries ORDER BY message_id, agent_id;
DROP TABLE deliveries;
ALTER TABLE deliveries_v4 RENAME TO deliveries;
CREATE INDEX deliveries_unread ON deliveries(agent_id, message_id, read_at) WHERE read_at IS NULL;
