-- brain schema, version 15: words' row counts kept for the ranking (src/search/word-counts.ts).
--
-- BM25's idf needs how many rows of an index hold each query word. FTS5 keeps no such count:
-- counting a common word walks its whole posting list (a quarter of a million rows at 1M
-- messages), which every new process paid again. Kept here instead, exactly:
--
-- A row (idx, term, n, upto) says: `n` rows of the index with an id ≤ `upto` hold `term`.
-- Rows enter the indexes in id order, so a reader adds the rows above `upto` (read newest first,
-- stopping at `upto`) and has today's count. Anything that changes rows at or below the newest
-- id — a delete, an edit of indexed text, an insert below the newest id — moves the index to a
-- new epoch and drops its counts, in the same transaction (the triggers below). Counts are
-- written by readers later and without waiting (never by a read itself), and only when the
-- epoch they were counted in is still the index's.

CREATE TABLE search_word_counts (
  idx   TEXT NOT NULL CHECK (idx IN ('message', 'stm', 'atom')),
  term  TEXT NOT NULL,
  n     INTEGER NOT NULL CHECK (typeof(n) = 'integer' AND n >= 0),
  upto  INTEGER NOT NULL CHECK (typeof(upto) = 'integer'),
  PRIMARY KEY (idx, term)
) WITHOUT ROWID;

CREATE TABLE search_count_epochs (
  idx   TEXT PRIMARY KEY CHECK (idx IN ('message', 'stm', 'atom')),
  epoch INTEGER NOT NULL CHECK (typeof(epoch) = 'integer')
) WITHOUT ROWID;

INSERT INTO search_count_epochs (idx, epoch) VALUES ('message', 0), ('stm', 0), ('atom', 0);

CREATE TRIGGER messages_counts_delete AFTER DELETE ON messages BEGIN
  UPDATE search_count_epochs SET epoch = epoch + 1 WHERE idx = 'message';
  DELETE FROM search_word_counts WHERE idx = 'message';
END;
CREATE TRIGGER messages_counts_edit AFTER UPDATE OF subject, body ON messages BEGIN
  UPDATE search_count_epochs SET epoch = epoch + 1 WHERE idx = 'message';
  DELETE FROM search_word_counts WHERE idx = 'message';
END;
CREATE TRIGGER messages_counts_insert AFTER INSERT ON messages
WHEN new.id < (SELECT max(id) FROM messages) BEGIN
  UPDATE search_count_epochs SET epoch = epoch + 1 WHERE idx = 'message';
  DELETE FROM search_word_counts WHERE idx = 'message';
END;

CREATE TRIGGER stm_counts_delete AFTER DELETE ON stm BEGIN
  UPDATE search_count_epochs SET epoch = epoch + 1 WHERE idx = 'stm';
  DELETE FROM search_word_counts WHERE idx = 'stm';
END;
CREATE TRIGGER stm_counts_edit AFTER UPDATE OF content ON stm BEGIN
  UPDATE search_count_epochs SET epoch = epoch + 1 WHERE idx = 'stm';
  DELETE FROM search_word_counts WHERE idx = 'stm';
END;
CREATE TRIGGER stm_counts_insert AFTER INSERT ON stm
WHEN new.id < (SELECT max(id) FROM stm) BEGIN
  UPDATE search_count_epochs SET epoch = epoch + 1 WHERE idx = 'stm';
  DELETE FROM search_word_counts WHERE idx = 'stm';
END;

CREATE TRIGGER atoms_counts_delete AFTER DELETE ON atoms BEGIN
  UPDATE search_count_epochs SET epoch = epoch + 1 WHERE idx = 'atom';
  DELETE FROM search_word_counts WHERE idx = 'atom';
END;
CREATE TRIGGER atoms_counts_edit AFTER UPDATE OF subject, action, outcome, consequences ON atoms BEGIN
  UPDATE search_count_epochs SET epoch = epoch + 1 WHERE idx = 'atom';
  DELETE FROM search_word_counts WHERE idx = 'atom';
END;
CREATE TRIGGER atoms_counts_insert AFTER INSERT ON atoms
WHEN new.id < (SELECT max(id) FROM atoms) BEGIN
  UPDATE search_count_epochs SET epoch = epoch + 1 WHERE idx = 'atom';
  DELETE FROM search_word_counts WHERE idx = 'atom';
END;
