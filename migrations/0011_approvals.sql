-- brain schema, version 11: the assistant's permission decisions and its "always allow" rules.
--
-- New tables only. Times are milliseconds since 1970, UTC. Arguments are kept as a digest
-- (sha256 of their canonical JSON), never as they were written.

-- One row per decision on a tool call. An ask is written as `pending` while the owner is asked
-- and settled in place (approved, denied, timeout), so `brain approvals --pending` sees it.
CREATE TABLE approvals (
  id           INTEGER PRIMARY KEY,
  tool         TEXT NOT NULL,
  args_digest  TEXT NOT NULL,
  summary      TEXT NOT NULL,                  -- a short line for the owner (program and args)
  decision     TEXT NOT NULL CHECK (decision IN
                 ('allow', 'deny', 'pending', 'approved', 'denied', 'timeout')),
  decided_by   TEXT,                           -- policy, owner, always, unattended; NULL while pending
  reason       TEXT NOT NULL,
  session      TEXT,
  message_id   INTEGER REFERENCES messages(id), -- the turn's user message
  asked_at     INTEGER NOT NULL CHECK (typeof(asked_at) = 'integer'),
  decided_at   INTEGER CHECK (decided_at IS NULL OR typeof(decided_at) = 'integer')
);
CREATE INDEX approvals_pending ON approvals(id) WHERE decision = 'pending';

-- "Always allow": a tool name, or for run_command a program and its fixed leading arguments
-- (`git log *`). Unique per tool and pattern; revoking deletes the row.
CREATE TABLE approval_rules (
  id          INTEGER PRIMARY KEY,
  tool        TEXT NOT NULL,
  pattern     TEXT NOT NULL,
  created_at  INTEGER NOT NULL CHECK (typeof(created_at) = 'integer'),
  UNIQUE (tool, pattern)
);
