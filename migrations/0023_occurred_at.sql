-- brain schema, version 23: knowledge has event time as well as record time.
--
-- `created_at` is when an STM entry or atom was learned; `occurred_at` is when what it says
-- happened, when the extractor or the agent knows it ("launch on Tuesday (1 December 2026)"):
-- milliseconds since 1970, UTC, as every time the brain keeps; NULL when unknown. A search's time
-- filter matches either (src/search/rank.ts), so the indexes below find the entries whose event
-- falls in a window without reading those that have none.

ALTER TABLE stm ADD COLUMN occurred_at INTEGER CHECK (occurred_at IS NULL OR typeof(occurred_at) = 'integer');
ALTER TABLE atoms ADD COLUMN occurred_at INTEGER CHECK (occurred_at IS NULL OR typeof(occurred_at) = 'integer');
CREATE INDEX stm_by_occurred ON stm(occurred_at) WHERE occurred_at IS NOT NULL;
CREATE INDEX atoms_by_occurred ON atoms(occurred_at) WHERE occurred_at IS NOT NULL;
