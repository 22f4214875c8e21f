-- brain schema, version 9: every time the brain keeps about agents, acks, STM entries, atoms and
-- their links is an integer, as messages' (migration 0005) and threads' (0008) already are.
--
-- `agents.created_at`, `agents.last_seen_at`, `acks.created_at`, `stm.created_at`,
-- `stm.expires_at`, `stm.last_accessed_at`, `atoms.created_at` and `atom_links.created_at` were
-- ISO 8601 text (24 characters); now milliseconds since 1970, UTC. The library still takes and
-- answers ISO 8601. One representation means one way to compare and filter: search's time filters
-- and STM's expiry compare numbers with numbers, as they already did for messages.
--
-- Unlike migrations 0005-0008 the tables are not made again: each column is replaced in place
-- (add the new one, fill it, drop the old one, give the new one the old name). Rows keep their
-- rowids, so the full-text indexes (external content), the embedding queue and the rows pointing
-- at them are untouched, no trigger has to be written again, and no parent row is deleted: making
-- `agents` again would have made SQLite look for every message, delivery and thread pointing at
-- each agent, through columns without an index. SQLite requires a default to add a NOT NULL
-- column; the 0 below is never used, as every writer gives a time (src/messaging/store.ts,
-- src/knowledge/store.ts). Columns keep their order, except in `stm`, where `access_count` now
-- comes before the times.
--
-- A time the brain did not write (text that is not a time) is mended from what it can be told
-- from: an agent's first and last times from its messages (or each other); an ack's from when its
-- message was read, or the message's time; an STM entry's or atom's from its source message, or
-- when its agent was first seen; a link's from the later of its two atoms; 0 when nothing is
-- known. An expiry or last access that is not a time becomes none (as text, most of them compared
-- as later than any date, so the entry never expired).

-- Agents first: knowledge falls back on its agent's (converted) time.
ALTER TABLE agents ADD COLUMN created_ms INTEGER NOT NULL DEFAULT 0 CHECK (typeof(created_ms) = 'integer');
ALTER TABLE agents ADD COLUMN last_seen_ms INTEGER NOT NULL DEFAULT 0 CHECK (typeof(last_seen_ms) = 'integer');
UPDATE agents SET
  created_ms = coalesce(CAST(round(unixepoch(created_at, 'subsec') * 1000) AS INTEGER),
                        (SELECT min(m.created_at) FROM messages m WHERE m.from_agent = agents.id),
                        CAST(round(unixepoch(last_seen_at, 'subsec') * 1000) AS INTEGER), 0),
  last_seen_ms = coalesce(CAST(round(unixepoch(last_seen_at, 'subsec') * 1000) AS INTEGER),
                          (SELECT max(m.created_at) FROM messages m WHERE m.from_agent = agents.id),
                          CAST(round(unixepoch(created_at, 'subsec') * 1000) AS INTEGER), 0);
ALTER TABLE agents DROP COLUMN created_at;
ALTER TABLE agents DROP COLUMN last_seen_at;
ALTER TABLE agents RENAME COLUMN created_ms TO created_at;  -- ms since 1970, UTC
ALTER TABLE agents RENAME COLUMN last_seen_ms TO last_seen_at;

ALTER TABLE acks ADD COLUMN created_ms INTEGER NOT NULL DEFAULT 0 CHECK (typeof(created_ms) = 'integer');
UPDATE acks SET created_ms = coalesce(
  CAST(round(unixepoch(created_at, 'subsec') * 1000) AS INTEGER),
  (SELECT d.read_at FROM deliveries d WHERE d.message_id = acks.message_id AND d.agent_id = acks.agent_id),
  (SELECT m.created_at FROM messages m WHERE m.id = acks.message_id), 0);
ALTER TABLE acks DROP COLUMN created_at;
ALTER TABLE acks RENAME COLUMN created_ms TO created_at;

DROP INDEX stm_by_time;
ALTER TABLE stm ADD COLUMN created_ms INTEGER NOT NULL DEFAULT 0 CHECK (typeof(created_ms) = 'integer');
ALTER TABLE stm ADD COLUMN expires_ms INTEGER CHECK (expires_ms IS NULL OR typeof(expires_ms) = 'integer');
ALTER TABLE stm ADD COLUMN last_accessed_ms INTEGER CHECK (last_accessed_ms IS NULL OR typeof(last_accessed_ms) = 'integer');
UPDATE stm SET
  created_ms = coalesce(CAST(round(unixepoch(created_at, 'subsec') * 1000) AS INTEGER),
                        (SELECT m.created_at FROM messages m WHERE m.id = stm.source_message_id),
                        (SELECT a.created_at FROM agents a WHERE a.id = stm.agent_id), 0),
  expires_ms = CAST(round(unixepoch(expires_at, 'subsec') * 1000) AS INTEGER),
  last_accessed_ms = CAST(round(unixepoch(last_accessed_at, 'subsec') * 1000) AS INTEGER);
ALTER TABLE stm DROP COLUMN created_at;
ALTER TABLE stm DROP COLUMN expires_at;
ALTER TABLE stm DROP COLUMN last_accessed_at;
ALTER TABLE stm RENAME COLUMN created_ms TO created_at;
ALTER TABLE stm RENAME COLUMN expires_ms TO expires_at;
ALTER TABLE stm RENAME COLUMN last_accessed_ms TO last_accessed_at;
CREATE INDEX stm_by_time ON stm(created_at);

DROP INDEX atoms_by_time;
ALTER TABLE atoms ADD COLUMN created_ms INTEGER NOT NULL DEFAULT 0 CHECK (typeof(created_ms) = 'integer');
UPDATE atoms SET created_ms = coalesce(
  CAST(round(unixepoch(created_at, 'subsec') * 1000) AS INTEGER),
  (SELECT m.created_at FROM messages m WHERE m.id = atoms.source_message_id),
  (SELECT a.created_at FROM agents a WHERE a.id = atoms.agent_id), 0);
ALTER TABLE atoms DROP COLUMN created_at;
ALTER TABLE atoms RENAME COLUMN created_ms TO created_at;
CREATE INDEX atoms_by_time ON atoms(created_at);

ALTER TABLE atom_links ADD COLUMN created_ms INTEGER NOT NULL DEFAULT 0 CHECK (typeof(created_ms) = 'integer');
UPDATE atom_links SET created_ms = coalesce(
  CAST(round(unixepoch(created_at, 'subsec') * 1000) AS INTEGER),
  (SELECT max(a.created_at) FROM atoms a WHERE a.id IN (atom_links.from_atom, atom_links.to_atom)), 0);
ALTER TABLE atom_links DROP COLUMN created_at;
ALTER TABLE atom_links RENAME COLUMN created_ms TO created_at;
