-- brain schema, version 16: what `brain ui` needs to stay exact and live at a million messages.
--
-- 1. Each agent's latest messages: an index by sender, so "its last three" is one seek per agent
--    instead of a walk back through the newest messages of everyone.
-- 2. Messages sent and received per agent over all history, kept by triggers in the writes that
--    change them. Counting on each page view would read every delivery (2.8 million rows in the
--    1M-message benchmark brain, ~250 ms even through an index); a row per agent costs nothing.
-- 3. A short log of receipts (a delivery read, an ack given) with a rising sequence number, so
--    the change watcher sees which messages got one by a range read past the last number it saw.
--    It keeps the newest 10,000 entries: a watcher that far behind reloads rather than replays.

CREATE INDEX messages_by_sender ON messages(from_agent, created_at);

CREATE TABLE agent_counts (
  agent_id  INTEGER PRIMARY KEY REFERENCES agents(id),
  sent      INTEGER NOT NULL DEFAULT 0,   -- messages it wrote
  received  INTEGER NOT NULL DEFAULT 0    -- deliveries to it (a broadcast counts for each)
);

INSERT INTO agent_counts (agent_id, sent)
  SELECT from_agent, count(*) FROM messages GROUP BY from_agent;
INSERT INTO agent_counts (agent_id, received)
  SELECT agent_id, count(*) FROM deliveries WHERE true GROUP BY agent_id
  ON CONFLICT (agent_id) DO UPDATE SET received = excluded.received;

CREATE TRIGGER messages_count_sent AFTER INSERT ON messages BEGIN
  INSERT INTO agent_counts (agent_id, sent) VALUES (NEW.from_agent, 1)
    ON CONFLICT (agent_id) DO UPDATE SET sent = sent + 1;
END;
CREATE TRIGGER messages_uncount_sent AFTER DELETE ON messages BEGIN
  UPDATE agent_counts SET sent = sent - 1 WHERE agent_id = OLD.from_agent;
END;
CREATE TRIGGER deliveries_count_received AFTER INSERT ON deliveries BEGIN
  INSERT INTO agent_counts (agent_id, received) VALUES (NEW.agent_id, 1)
    ON CONFLICT (agent_id) DO UPDATE SET received = received + 1;
END;
CREATE TRIGGER deliveries_uncount_received AFTER DELETE ON deliveries BEGIN
  UPDATE agent_counts SET received = received - 1 WHERE agent_id = OLD.agent_id;
END;

CREATE TABLE receipt_log (
  seq         INTEGER PRIMARY KEY,
  message_id  INTEGER NOT NULL,
  agent_id    INTEGER NOT NULL,
  kind        TEXT NOT NULL CHECK (kind IN ('read', 'ack'))
);

CREATE TRIGGER deliveries_log_read AFTER UPDATE OF read_at ON deliveries
  WHEN OLD.read_at IS NULL AND NEW.read_at IS NOT NULL BEGIN
  INSERT INTO receipt_log (message_id, agent_id, kind) VALUES (NEW.message_id, NEW.agent_id, 'read');
  DELETE FROM receipt_log WHERE seq <= (SELECT max(seq) FROM receipt_log) - 10000;
END;
CREATE TRIGGER acks_log AFTER INSERT ON acks BEGIN
  INSERT INTO receipt_log (message_id, agent_id, kind) VALUES (NEW.message_id, NEW.agent_id, 'ack');
  DELETE FROM receipt_log WHERE seq <= (SELECT max(seq) FROM receipt_log) - 10000;
END;
