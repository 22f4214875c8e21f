-- brain schema, version 22: reflection, the brain going over what it learned.
--
-- A reflection merges entries that say the same, raises the importance of what keeps coming back,
-- lets stale extracted entries lapse, and proposes follow-ups of commitments and to-dos. Each
-- change it makes is a row of knowledge_changes with its reason and the fields as they were, so
-- that it can be undone; each run is a row of reflections.

CREATE TABLE reflections (
  id          INTEGER PRIMARY KEY,
  started_at  INTEGER NOT NULL CHECK (typeof(started_at) = 'integer'),  -- ms since 1970, UTC
  last_stm_id INTEGER NOT NULL,  -- the newest entry it went over: the next starts after it
  considered  INTEGER NOT NULL,  -- entries learned since the run before
  changes     INTEGER NOT NULL
);

CREATE TABLE knowledge_changes (
  id             INTEGER PRIMARY KEY,
  reflection_id  INTEGER NOT NULL REFERENCES reflections(id),
  kind           TEXT NOT NULL CHECK (kind IN ('merge', 'importance', 'expire', 'propose')),
  stm_id         INTEGER NOT NULL REFERENCES stm(id),
  other_id       INTEGER REFERENCES stm(id),  -- merge: the entry it was merged into
  reason         TEXT NOT NULL,
  before         TEXT NOT NULL CHECK (json_valid(before)),  -- what the change altered, as it was
  undone_at      INTEGER CHECK (undone_at IS NULL OR typeof(undone_at) = 'integer')
);
CREATE INDEX knowledge_changes_by_stm ON knowledge_changes(stm_id);
