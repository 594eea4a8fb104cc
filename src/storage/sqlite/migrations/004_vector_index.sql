-- The vector index (src/index/vector/sqlite/): one generation per
-- embedding model, each a set of tables the code creates when the model's
-- first vector arrives (their dims are only known then):
--   vec_index_<id>         vec0(dataset_id text partition key, similarity_model text partition key,
--                               embedding bit[dims])
--                          the 1-bit codes; a query scans only its collections' partitions of
--                          its similarity model (a partition key, not a metadata column: vec0
--                          0.1.9 compares metadata row by row, 30-50% of the scan at 1M rows)
--   vec_index_<id>_sample  the same for 1 row in 64 (by a hash of the rowid): a cheap
--                          first look that bounds the Hamming distance of the real scan
--   vec_index_<id>_items   rowid (shared with vec0, never reused) -> object, item, frame, collection
--   vec_index_<id>_f32     rowid -> float32 vector the best hits are rescored with exactly (a copy of
--                          object_embeddings.vector in a rowid table: one page a row, where that
--                          WITHOUT ROWID table spills 3 KB rows to overflow pages)
--   vec_index_<id>_q8      rowid -> int8 copy (scale + 1 byte a dimension): the candidates are
--                          re-ranked with it from memory; this table is what the cache loads
-- Vectors of different models never share a generation. A rebuild fills a
-- 'building' generation beside the 'live' one and swaps them at the end.

CREATE TABLE vector_indexes (
  -- never reused: the in-memory cache keys rows by (id, rowid)
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  model_id     TEXT NOT NULL,
  dims         INTEGER NOT NULL,
  -- what object_embeddings holds, and what the first pass scans
  source_dtype TEXT NOT NULL DEFAULT 'float32',
  index_dtype  TEXT NOT NULL DEFAULT 'bit',
  -- bit i = (v[i] > center[i]); center: float32 LE (the model's mean vector), NULL = zero
  quantizer    TEXT NOT NULL DEFAULT 'sign-centered',
  center       BLOB,
  state        TEXT NOT NULL CHECK (state IN ('live', 'building')),
  -- rows deleted or replaced since the build (sqlite-vec 0.1.9 leaves their slots empty)
  deleted_rows INTEGER NOT NULL DEFAULT 0,
  created_at   TEXT NOT NULL,
  built_at     TEXT
);
CREATE UNIQUE INDEX vector_indexes_model_state ON vector_indexes(model_id, state);

-- Live rows per (generation, collection, similarity model): query planning and coverage without counting.
CREATE TABLE vector_index_partitions (
  index_id         INTEGER NOT NULL,
  dataset_id       TEXT NOT NULL,
  similarity_model TEXT NOT NULL,
  rows             INTEGER NOT NULL,
  PRIMARY KEY (index_id, dataset_id, similarity_model)
) WITHOUT ROWID;
