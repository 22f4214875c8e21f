-- brain schema, version 13: who may talk to the assistant on a channel without being on the
-- config's allowlist: senders who asked with a pairing code and were approved by the owner.
--
-- New table only. Times are milliseconds since 1970, UTC.

-- One row per sender of a channel (`telegram`, user id as text). A request is `pending` with
-- its code until it expires or the owner decides; an approved sender is served from then on; a
-- denied one gets nothing more. An expired pending row is replaced by the sender's next request.
CREATE TABLE pairings (
  id          INTEGER PRIMARY KEY,
  channel     TEXT NOT NULL,
  user_id     TEXT NOT NULL,
  name        TEXT NOT NULL DEFAULT '',          -- what the sender calls themself, for the owner
  code        TEXT NOT NULL,
  status      TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied')),
  created_at  INTEGER NOT NULL CHECK (typeof(created_at) = 'integer'),
  expires_at  INTEGER NOT NULL CHECK (typeof(expires_at) = 'integer'),
  decided_at  INTEGER CHECK (decided_at IS NULL OR typeof(decided_at) = 'integer'),
  UNIQUE (channel, user_id)
);
CREATE INDEX pairings_pending ON pairings(channel, expires_at) WHERE status = 'pending';
CREATE UNIQUE INDEX pairings_code ON pairings(code) WHERE status = 'pending';
