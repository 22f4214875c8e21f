-- brain schema, version 3: one full-text index of messages, half the bytes and a cheaper send.
--
-- Version 2 indexed every message twice: `messages_fts` (subject, body) for snippets and the
-- contentless `messages_context_fts`, which also held the text of the message before and after it
-- (and so re-indexed the previous message on every send): some 730 bytes of index per message
-- (measured at 50,000) and most of the cost of a send. Now:
--   - one index, `messages_fts`, of each message's own words: subject, body, who said it to whom,
--     and its date in words ("8 May 2023"), as the view `messages_search` gives them;
--   - its text is read from the view (external content): it keeps no copy, and gives snippets.
--     (`detail = column` would save a third of it, but BM25 then re-reads the text of every match,
--     five times slower, or scores 0 on a contentless index.)
--   - a message's context (the message it follows and the one that answers it) is added when a
--     search ranks, from the neighbours of what matched (src/search/fts.ts), not at write time.

DROP TRIGGER messages_context_insert;
DROP TRIGGER messages_context_update;
DROP TRIGGER messages_context_delete;
DROP TABLE messages_context_fts;

DROP TRIGGER messages_fts_insert;
DROP TRIGGER messages_fts_delete;
DROP TRIGGER messages_fts_update;
DROP TABLE messages_fts;

-- What the index holds for each message. Every column is fixed once the message is written
-- (thread subjects and agent names never change), so the triggers can recompute the old values.
CREATE VIEW messages_search AS
SELECT m.id AS id,
       coalesce(m.subject, t.subject) AS subject,
       m.body AS body,
       fa.name || ' to ' || coalesce(ta.name, 'everyone') AS sender,
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

-- What a message's vector is made of (src/embed/documents.ts): its indexed text and the message it
-- follows. Version 2 spelled sender and date out again here, and a `next` nothing reads any more.
DROP VIEW messages_context;
CREATE VIEW messages_context AS
SELECT s.id, s.subject, s.body, s.sender, s.date,
       coalesce((SELECT substr(p.body, 1, 1000) FROM messages p
                 WHERE p.thread_id = m.thread_id AND p.created_at <= m.created_at
                   AND (p.created_at < m.created_at OR p.id < m.id)
                 ORDER BY p.created_at DESC, p.id DESC LIMIT 1), '') AS previous
FROM messages_search s JOIN messages m ON m.id = s.id;

CREATE VIRTUAL TABLE messages_fts USING fts5(
  subject, body, sender, date,
  content = 'messages_search', content_rowid = 'id',
  tokenize = 'porter unicode61 remove_diacritics 2'
);

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

INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');
