-- brain schema, version 21: knowledge that arrives on its own.
--
-- Extractors read messages in the background and store what they learn as STM entries. An entry
-- knows the extractor that made it (`stm.extractor`, `name@version`; NULL for one an agent stated
-- itself) and every message it was learned from (`stm_sources`); `stm.source_message_id` stays the
-- first of them. An entry that a later one contradicts points to it (`stm.superseded_by`).
--
-- Each extractor reads messages in id order past its cursor (`extract_cursor`), storing what it
-- learned and moving its cursor in one transaction: a pass cut short by a crash is resumed where
-- it stopped, and no message is read twice by one version of an extractor. A message edited after
-- it was read waits in `extract_queue` to be read again, as do reads that failed.

ALTER TABLE stm ADD COLUMN extractor TEXT;
ALTER TABLE stm ADD COLUMN superseded_by INTEGER REFERENCES stm(id);
-- What the entry is about, as its extractor names it: a newer entry of the same key supersedes it.
ALTER TABLE stm ADD COLUMN about TEXT;

CREATE TABLE stm_sources (
  stm_id      INTEGER NOT NULL REFERENCES stm(id),
  message_id  INTEGER NOT NULL REFERENCES messages(id),
  extractor   TEXT,  -- the extractor that saw it there (name@version); NULL: the agent that said so
  read_from   INTEGER,  -- the message whose reading cited it (itself, or a later turn answering it)
  added_at    INTEGER NOT NULL CHECK (typeof(added_at) = 'integer'),  -- ms since 1970, UTC
  PRIMARY KEY (stm_id, message_id)
) WITHOUT ROWID;
CREATE INDEX stm_sources_by_message ON stm_sources(message_id);
CREATE INDEX stm_sources_by_read ON stm_sources(read_from) WHERE read_from IS NOT NULL;

-- What was remembered with a source before keeps it as its one source.
INSERT INTO stm_sources (stm_id, message_id, extractor, read_from, added_at)
SELECT id, source_message_id, NULL, NULL, created_at FROM stm WHERE source_message_id IS NOT NULL;

CREATE INDEX stm_by_extractor ON stm(extractor) WHERE extractor IS NOT NULL;
CREATE INDEX stm_by_about ON stm(about) WHERE about IS NOT NULL;

CREATE TABLE extract_cursor (
  extractor  TEXT PRIMARY KEY,  -- name@version
  last_id    INTEGER NOT NULL   -- every message with a larger id waits to be read by it
) WITHOUT ROWID;

CREATE TABLE extract_queue (
  message_id   INTEGER PRIMARY KEY,  -- a message to read again
  enqueued_at  INTEGER NOT NULL CHECK (typeof(enqueued_at) = 'integer'),  -- ms since 1970, UTC
  attempts     INTEGER NOT NULL DEFAULT 0,  -- failed reads so far
  retry_at     INTEGER CHECK (retry_at IS NULL OR typeof(retry_at) = 'integer'),  -- NULL: ready
  last_error   TEXT
);

-- An edit to a message an extractor has read queues it to be read again, at SQLite's time.
CREATE TRIGGER messages_extract_edit AFTER UPDATE OF subject, body ON messages
WHEN new.id <= (SELECT max(last_id) FROM extract_cursor) BEGIN
  INSERT OR REPLACE INTO extract_queue (message_id, enqueued_at)
  VALUES (new.id, CAST(round(unixepoch('now', 'subsec') * 1000) AS INTEGER));
END;
