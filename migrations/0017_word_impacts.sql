-- brain schema, version 17: a common word's score classes kept beside its row count
-- (src/search/impacts.ts).
--
-- The exact top k of one word held by many rows is read from its (f, D) classes instead of
-- scoring each row; reading the classes walks the word's whole posting list once. Kept here, a
-- new process (a one-shot `brain search`, a restarted server) starts from them. `impacts` is the
-- blob brain_impacts gives (src/native/brain_fts.c), which carries the newest rowid it read: valid
-- while the index's rows up to it are unchanged, which is what the epochs of migration 0015 say,
-- and the same triggers that drop a changed index's counts drop these with them.

ALTER TABLE search_word_counts ADD COLUMN impacts BLOB CHECK (impacts IS NULL OR typeof(impacts) = 'blob');
