-- brain schema, version 18: where a reminder or task came from when the assistant's turn that
-- made it had taken in content from outside the owner (a web page, another agent's message).
--
-- A reminder set in such a turn fires as foreign text, marked with these sources, never as the
-- owner's own instruction; a task's title is shown with them. NULL: a clean turn made it.
ALTER TABLE reminders ADD COLUMN tainted_by TEXT;
ALTER TABLE tasks ADD COLUMN tainted_by TEXT;
