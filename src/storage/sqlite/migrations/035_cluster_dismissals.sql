-- People: suggestions a person dismissed, "not the same person" (issue #27): the pair of face clusters (a < b,
-- cluster ids) is not suggested again in its collection. PostgreSQL: migrations/068.
CREATE TABLE cluster_dismissals (
  dataset_id   TEXT NOT NULL,
  a            TEXT NOT NULL,
  b            TEXT NOT NULL,
  dismissed_by TEXT NOT NULL,
  dismissed_at TEXT NOT NULL,
  PRIMARY KEY (dataset_id, a, b)
) WITHOUT ROWID;
