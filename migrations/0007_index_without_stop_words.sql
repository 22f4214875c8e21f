-- brain schema, version 7: the message index leaves out stop words.
--
-- Searches never look for "the", "you", "did" … (src/search/fts-query.ts drops them from every
-- query that has another word), yet they were a third of the message index: at 100,000 messages
-- (`brain bench`), 209 of its bytes per message with them, 135 without. Now the index reads its
-- text from the view `messages_index`: `messages_search` with each stop word of the subject,
-- body and sender replaced by a space, by the function brain_index_text_v1 (src/db/index-text.ts),
-- which every brain connection registers and whose output never changes for a given text (the
-- index's triggers recompute a message's text to remove it). Snippets, word coverage and the text
-- embedded keep reading `messages_search`, stop words and all. A query of stop words alone finds
-- messages by their text instead (src/search/fts.ts).
--
-- Writing messages needs the function: a plain `sqlite3` shell can read a brain, not write
-- messages to it.

CREATE VIEW messages_index AS
SELECT id, brain_index_text_v1(subject) AS subject, brain_index_text_v1(body) AS body,
       brain_index_text_v1(sender) AS sender, date
FROM messages_search;

DROP TRIGGER messages_fts_insert;
DROP TRIGGER messages_fts_delete;
DROP TRIGGER messages_fts_unindex;
DROP TRIGGER messages_fts_reindex;
DROP TABLE messages_fts;

CREATE VIRTUAL TABLE messages_fts USING fts5(
  subject, body, sender, date,
  content = 'messages_index', content_rowid = 'id',
  tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts (rowid, subject, body, sender, date)
  SELECT id, subject, body, sender, date FROM messages_index WHERE id = new.id;
END;

CREATE TRIGGER messages_fts_delete BEFORE DELETE ON messages BEGIN
  INSERT INTO messages_fts (messages_fts, rowid, subject, body, sender, date)
  SELECT 'delete', id, subject, body, sender, date FROM messages_index WHERE id = old.id;
END;

CREATE TRIGGER messages_fts_unindex BEFORE UPDATE OF subject, body ON messages BEGIN
  INSERT INTO messages_fts (messages_fts, rowid, subject, body, sender, date)
  SELECT 'delete', id, subject, body, sender, date FROM messages_index WHERE id = old.id;
END;

CREATE TRIGGER messages_fts_reindex AFTER UPDATE OF subject, body ON messages BEGIN
  INSERT INTO messages_fts (rowid, subject, body, sender, date)
  SELECT id, subject, body, sender, date FROM messages_index WHERE id = new.id;
END;

INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');
