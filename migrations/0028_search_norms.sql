-- 0028_search_norms: each index's row lengths, saved for the next process that ranks.
--
-- BM25 divides by a row's length; a process that ranks many rows reads every row's length
-- (src/native/brain_fts.c), which at a million messages takes longer than the search. Saved
-- here, one row per index, they are read in about a millisecond. The lengths of rowids 0..upto
-- are little-endian uint16 (0xFFFF: no such row, or too long to keep); a row holds only in the
-- epoch it names, as the kept word counts do (src/search/word-counts.ts): whatever may change
-- a length moves the index's epoch. Written by searches, without waiting for the write lock.

CREATE TABLE search_norms (
  tbl     TEXT PRIMARY KEY CHECK (tbl IN ('messages_fts_docsize', 'stm_fts_docsize', 'atoms_fts_docsize')),
  epoch   INTEGER NOT NULL CHECK (typeof(epoch) = 'integer'),
  upto    INTEGER NOT NULL CHECK (typeof(upto) = 'integer' AND upto >= 0),
  lengths BLOB NOT NULL CHECK (typeof(lengths) = 'blob' AND length(lengths) = 2 * (upto + 1))
);
