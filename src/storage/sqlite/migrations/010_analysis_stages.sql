-- Which analysis stages of an item ran and which wait for a model that is
-- not installed (src/features/ingest/stages.ts): one row per (item, stage),
-- replaced as a whole by each analysis of the item. `state` is 'done',
-- 'waiting' (for `model`) or 'off' (no model serves the stage's role).
-- When a model becomes installed, the items waiting for it are found here
-- and analysed again in the background.

CREATE TABLE media_stages (
  media_id   TEXT NOT NULL,
  stage      TEXT NOT NULL,
  state      TEXT NOT NULL CHECK (state IN ('done', 'waiting', 'off')),
  model      TEXT,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (media_id, stage)
) WITHOUT ROWID;
CREATE INDEX media_stages_waiting ON media_stages(model, media_id) WHERE state = 'waiting';
