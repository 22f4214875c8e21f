-- 0027_attachment_text_skipped: why a file's text was not read, when reading it was cut short.
--
-- A PDF or HTML file is read in a worker with a time and memory limit (docs/attachments.md); a
-- file that passes one is kept and indexed by its name only, and its row says which limit it
-- passed so the thread can say so. NULL: the text was read, or the format has none.

ALTER TABLE attachment_blobs ADD COLUMN text_skipped TEXT
  CHECK (text_skipped IS NULL OR text_skipped IN ('timeout', 'memory'));
