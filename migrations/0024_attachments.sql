-- 0024_attachments: files carried by messages (docs/attachments.md).
--
-- Bytes are stored once per sha256 (`attachment_blobs`): in the row up to the inline threshold,
-- in the folder beside the brain file above it (`data` NULL). A message names its files in
-- `message_attachments`, in order, with the name its sender gave. The text extracted from a
-- file (bounded) is indexed with the message: `messages_search` gains an `attachments` column
-- and the message index reads a message's body followed by its attachments' names and texts. A
-- message without attachments indexes exactly the text it did before, so the index is not
-- rebuilt.

CREATE TABLE attachment_blobs (
  id          INTEGER PRIMARY KEY,
  sha256      BLOB NOT NULL UNIQUE CHECK (typeof(sha256) = 'blob' AND length(sha256) = 32),
  size        INTEGER NOT NULL CHECK (typeof(size) = 'integer' AND size >= 0),
  media_type  TEXT NOT NULL,             -- sniffed from the bytes, never the sender's claim
  data        BLOB CHECK (data IS NULL OR (typeof(data) = 'blob' AND length(data) = size)),
  text        TEXT,                      -- extracted text, bounded; NULL when there is none
  created_at  INTEGER NOT NULL CHECK (typeof(created_at) = 'integer')
);

CREATE TABLE message_attachments (
  message_id    INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  position      INTEGER NOT NULL CHECK (typeof(position) = 'integer' AND position >= 0),
  blob_id       INTEGER NOT NULL REFERENCES attachment_blobs(id),
  name          TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  declared_type TEXT,                    -- what the sender said the type was
  PRIMARY KEY (message_id, position)
) WITHOUT ROWID;
CREATE INDEX message_attachments_blob ON message_attachments (blob_id);

DROP VIEW messages_index;
DROP VIEW messages_search;

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
       strftime('%Y', m.created_at / 1000.0, 'unixepoch') AS date,
       (SELECT group_concat(x.t, char(10)) FROM (
          SELECT a.name || char(10) || coalesce(b.text, '') AS t
          FROM message_attachments a JOIN attachment_blobs b ON b.id = a.blob_id
          WHERE a.message_id = m.id ORDER BY a.position) x) AS attachments
FROM messages m
JOIN threads t ON t.id = m.thread_id
JOIN agents fa ON fa.id = m.from_agent
LEFT JOIN agents ta ON ta.id = m.to_agent;

CREATE VIEW messages_index AS
SELECT id, brain_index_text_v1(subject) AS subject,
       brain_index_text_v1(body || coalesce(char(10) || attachments, '')) AS body,
       brain_index_text_v1(sender) AS sender, date
FROM messages_search;

-- A message's attachments are written after it, in its send's transaction: its index entry is
-- taken out with the text it had and put back with the new one, as an edit of its body is.
CREATE TRIGGER message_attachments_unindex BEFORE INSERT ON message_attachments BEGIN
  INSERT INTO messages_fts (messages_fts, rowid, subject, body, sender, date)
  SELECT 'delete', id, subject, body, sender, date FROM messages_index WHERE id = new.message_id;
END;
CREATE TRIGGER message_attachments_reindex AFTER INSERT ON message_attachments BEGIN
  INSERT INTO messages_fts (rowid, subject, body, sender, date)
  SELECT id, subject, body, sender, date FROM messages_index WHERE id = new.message_id;
END;
CREATE TRIGGER message_attachments_drop_unindex BEFORE DELETE ON message_attachments BEGIN
  INSERT INTO messages_fts (messages_fts, rowid, subject, body, sender, date)
  SELECT 'delete', id, subject, body, sender, date FROM messages_index WHERE id = old.message_id;
END;
CREATE TRIGGER message_attachments_drop_reindex AFTER DELETE ON message_attachments BEGIN
  INSERT INTO messages_fts (rowid, subject, body, sender, date)
  SELECT id, subject, body, sender, date FROM messages_index WHERE id = old.message_id;
END;
-- Kept word counts hold while rows enter in id order (migration 0015): a message's text changing
-- below the newest message moves the index to a new epoch. The newest message (a send) does not.
CREATE TRIGGER message_attachments_counts_insert AFTER INSERT ON message_attachments
WHEN new.message_id < (SELECT max(id) FROM messages) BEGIN
  UPDATE search_count_epochs SET epoch = epoch + 1 WHERE idx = 'message';
  DELETE FROM search_word_counts WHERE idx = 'message';
END;
CREATE TRIGGER message_attachments_counts_delete AFTER DELETE ON message_attachments BEGIN
  UPDATE search_count_epochs SET epoch = epoch + 1 WHERE idx = 'message';
  DELETE FROM search_word_counts WHERE idx = 'message';
END;
