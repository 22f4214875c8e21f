-- brain schema, version 1.
-- Public ids (syn_…, thr_…, stm_…, atm_…) live in `uid` columns; rows reference each other by
-- integer keys, which keeps rows and indexes small at millions of messages.
-- Times are ISO 8601 UTC with milliseconds; ties order by rowid.

CREATE TABLE agents (
  id            INTEGER PRIMARY KEY,
  name          TEXT NOT NULL UNIQUE,
  display_name  TEXT,
  capabilities  TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(capabilities) AND json_type(capabilities) = 'array'),
  created_at    TEXT NOT NULL,
  last_seen_at  TEXT NOT NULL
);

CREATE TABLE threads (
  id               INTEGER PRIMARY KEY,
  uid              TEXT NOT NULL UNIQUE,
  subject          TEXT NOT NULL,
  status           TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived', 'closed')),
  created_by       INTEGER NOT NULL REFERENCES agents(id),
  created_at       TEXT NOT NULL,
  last_message_at  TEXT NOT NULL,
  message_count    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX threads_by_status ON threads(status, last_message_at);

CREATE TABLE thread_tags (
  thread_id  INTEGER NOT NULL REFERENCES threads(id),
  tag        TEXT NOT NULL,
  PRIMARY KEY (tag, thread_id)
) WITHOUT ROWID;
CREATE INDEX thread_tags_by_thread ON thread_tags(thread_id);

-- to_agent NULL is a broadcast: it is delivered to every agent but its sender.
-- subject NULL means "the thread's subject".
CREATE TABLE messages (
  id          INTEGER PRIMARY KEY,
  uid         TEXT NOT NULL UNIQUE,
  thread_id   INTEGER NOT NULL REFERENCES threads(id),
  from_agent  INTEGER NOT NULL REFERENCES agents(id),
  to_agent    INTEGER REFERENCES agents(id),
  reply_to    INTEGER REFERENCES messages(id),
  priority    TEXT NOT NULL DEFAULT 'normal' CHECK (priority IN ('info', 'normal', 'action', 'urgent')),
  subject     TEXT,
  body        TEXT NOT NULL,
  metadata    TEXT CHECK (metadata IS NULL OR (json_valid(metadata) AND json_type(metadata) = 'object')),
  created_at  TEXT NOT NULL
);
CREATE INDEX messages_by_thread ON messages(thread_id, created_at);
CREATE INDEX messages_by_time ON messages(created_at);
CREATE INDEX messages_by_reply ON messages(reply_to) WHERE reply_to IS NOT NULL;

-- One row per recipient. Poll and read touch only the partial index of unread rows, so their
-- cost grows with an agent's unread mail, never with history.
CREATE TABLE deliveries (
  message_id  INTEGER NOT NULL REFERENCES messages(id),
  agent_id    INTEGER NOT NULL REFERENCES agents(id),
  read_at     TEXT,
  PRIMARY KEY (message_id, agent_id)
) WITHOUT ROWID;
CREATE INDEX deliveries_unread ON deliveries(agent_id, message_id) WHERE read_at IS NULL;

CREATE TABLE acks (
  message_id  INTEGER NOT NULL REFERENCES messages(id),
  agent_id    INTEGER NOT NULL REFERENCES agents(id),
  body        TEXT,
  created_at  TEXT NOT NULL,
  PRIMARY KEY (message_id, agent_id)
) WITHOUT ROWID;

CREATE TABLE stm (
  id                 INTEGER PRIMARY KEY,
  uid                TEXT NOT NULL UNIQUE,
  agent_id           INTEGER NOT NULL REFERENCES agents(id),
  content            TEXT NOT NULL,
  importance         REAL NOT NULL DEFAULT 1.0 CHECK (importance BETWEEN 1.0 AND 3.0),
  source_message_id  INTEGER REFERENCES messages(id),
  created_at         TEXT NOT NULL,
  expires_at         TEXT,
  access_count       INTEGER NOT NULL DEFAULT 0,
  last_accessed_at   TEXT
);
CREATE INDEX stm_by_source ON stm(source_message_id) WHERE source_message_id IS NOT NULL;
CREATE INDEX stm_by_time ON stm(created_at);

CREATE TABLE stm_categories (
  stm_id    INTEGER NOT NULL REFERENCES stm(id),
  category  TEXT NOT NULL,
  PRIMARY KEY (category, stm_id)
) WITHOUT ROWID;
CREATE INDEX stm_categories_by_stm ON stm_categories(stm_id);

CREATE TABLE atoms (
  id                 INTEGER PRIMARY KEY,
  uid                TEXT NOT NULL UNIQUE,
  agent_id           INTEGER NOT NULL REFERENCES agents(id),
  subject            TEXT NOT NULL,
  action             TEXT NOT NULL,
  outcome            TEXT NOT NULL,
  consequences       TEXT NOT NULL DEFAULT '',
  confidence         REAL NOT NULL DEFAULT 0.5 CHECK (confidence BETWEEN 0.0 AND 1.0),
  source_message_id  INTEGER REFERENCES messages(id),
  created_at         TEXT NOT NULL
);
CREATE INDEX atoms_by_source ON atoms(source_message_id) WHERE source_message_id IS NOT NULL;
CREATE INDEX atoms_by_time ON atoms(created_at);

CREATE TABLE atom_links (
  from_atom   INTEGER NOT NULL REFERENCES atoms(id),
  to_atom     INTEGER NOT NULL REFERENCES atoms(id),
  link_type   TEXT NOT NULL CHECK (link_type IN ('causes', 'enables', 'precedes', 'correlates')),
  strength    REAL NOT NULL DEFAULT 0.5 CHECK (strength BETWEEN 0.0 AND 1.0),
  created_at  TEXT NOT NULL,
  PRIMARY KEY (from_atom, to_atom, link_type),
  CHECK (from_atom <> to_atom)
) WITHOUT ROWID;
CREATE INDEX atom_links_by_target ON atom_links(to_atom);

-- Full-text indexes: external content, kept in sync by triggers.
CREATE VIRTUAL TABLE messages_fts USING fts5(
  subject, body,
  content = 'messages', content_rowid = 'id',
  tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts(rowid, subject, body) VALUES (new.id, new.subject, new.body);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, subject, body) VALUES ('delete', old.id, old.subject, old.body);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF subject, body ON messages BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, subject, body) VALUES ('delete', old.id, old.subject, old.body);
  INSERT INTO messages_fts(rowid, subject, body) VALUES (new.id, new.subject, new.body);
END;

CREATE VIRTUAL TABLE stm_fts USING fts5(
  content,
  content = 'stm', content_rowid = 'id',
  tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER stm_fts_insert AFTER INSERT ON stm BEGIN
  INSERT INTO stm_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER stm_fts_delete AFTER DELETE ON stm BEGIN
  INSERT INTO stm_fts(stm_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;
CREATE TRIGGER stm_fts_update AFTER UPDATE OF content ON stm BEGIN
  INSERT INTO stm_fts(stm_fts, rowid, content) VALUES ('delete', old.id, old.content);
  INSERT INTO stm_fts(rowid, content) VALUES (new.id, new.content);
END;

CREATE VIRTUAL TABLE atoms_fts USING fts5(
  subject, action, outcome, consequences,
  content = 'atoms', content_rowid = 'id',
  tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER atoms_fts_insert AFTER INSERT ON atoms BEGIN
  INSERT INTO atoms_fts(rowid, subject, action, outcome, consequences)
  VALUES (new.id, new.subject, new.action, new.outcome, new.consequences);
END;
CREATE TRIGGER atoms_fts_delete AFTER DELETE ON atoms BEGIN
  INSERT INTO atoms_fts(atoms_fts, rowid, subject, action, outcome, consequences)
  VALUES ('delete', old.id, old.subject, old.action, old.outcome, old.consequences);
END;
CREATE TRIGGER atoms_fts_update AFTER UPDATE OF subject, action, outcome, consequences ON atoms BEGIN
  INSERT INTO atoms_fts(atoms_fts, rowid, subject, action, outcome, consequences)
  VALUES ('delete', old.id, old.subject, old.action, old.outcome, old.consequences);
  INSERT INTO atoms_fts(rowid, subject, action, outcome, consequences)
  VALUES (new.id, new.subject, new.action, new.outcome, new.consequences);
END;
