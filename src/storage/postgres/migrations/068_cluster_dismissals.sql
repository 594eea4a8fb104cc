-- People: suggestions a person dismissed, "not the same person" (issue #27), as SQLite's migration 035: the
-- pair of face clusters (a < b, cluster ids) is not suggested again in its collection.
CREATE TABLE cluster_dismissals (
  dataset_id   text NOT NULL,
  a            text NOT NULL,
  b            text NOT NULL,
  dismissed_by text NOT NULL,
  dismissed_at timestamptz NOT NULL,
  PRIMARY KEY (dataset_id, a, b)
);
