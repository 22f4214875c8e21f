-- brain schema, version 12: where the assistant last heard its owner (`brain agent`).
--
-- A new table only. One row per assistant (its agent name): the channel and chat the owner spoke
-- from last, the default place to deliver proactive messages and relays, kept across restarts.
-- Times are milliseconds since 1970, UTC.
CREATE TABLE owner_targets (
  agent       TEXT PRIMARY KEY,
  channel     TEXT NOT NULL,
  chat_id     TEXT NOT NULL,
  updated_at  INTEGER NOT NULL CHECK (typeof(updated_at) = 'integer')
);
