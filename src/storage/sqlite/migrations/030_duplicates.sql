-- Duplicate review (features/duplicates): a collection's latest scan, the groups it found, and the groups
-- people dismissed as not duplicates. Member lists are JSON arrays of item ids (sorted).

CREATE TABLE duplicate_scans (
  dataset_id TEXT PRIMARY KEY,
  model_id   TEXT,
  threshold  REAL,
  items      INTEGER NOT NULL,
  scanned_at TEXT NOT NULL
);

CREATE TABLE duplicate_groups (
  dataset_id TEXT NOT NULL,
  ord        INTEGER NOT NULL,
  kind       TEXT NOT NULL CHECK (kind IN ('exact', 'near')),
  similarity REAL NOT NULL,
  media_ids  TEXT NOT NULL,
  PRIMARY KEY (dataset_id, ord)
) WITHOUT ROWID;

CREATE TABLE duplicate_dismissals (
  dataset_id   TEXT NOT NULL,
  media_ids    TEXT NOT NULL,
  dismissed_by TEXT NOT NULL,
  dismissed_at TEXT NOT NULL,
  PRIMARY KEY (dataset_id, media_ids)
) WITHOUT ROWID;
