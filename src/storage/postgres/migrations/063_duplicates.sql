-- Duplicate review (features/duplicates), as SQLite's migration 030: a collection's latest scan, the groups
-- it found, and the groups people dismissed as not duplicates. Member lists are JSON arrays of item ids (sorted).

CREATE TABLE duplicate_scans (
  dataset_id text PRIMARY KEY,
  model_id   text,
  threshold  double precision,
  items      integer NOT NULL,
  scanned_at timestamptz NOT NULL
);

CREATE TABLE duplicate_groups (
  dataset_id text NOT NULL,
  ord        integer NOT NULL,
  kind       text NOT NULL CHECK (kind IN ('exact', 'near')),
  similarity double precision NOT NULL,
  media_ids  text NOT NULL,
  PRIMARY KEY (dataset_id, ord)
);

CREATE TABLE duplicate_dismissals (
  dataset_id   text NOT NULL,
  media_ids    text NOT NULL,
  dismissed_by text NOT NULL,
  dismissed_at timestamptz NOT NULL,
  PRIMARY KEY (dataset_id, media_ids)
);
