-- What the ingest pipeline stores beside captions and objects: one embedding
-- per object under its similarity model ('objects', 'faces', 'shoeprints').
-- Every vector records the model id (name, weights, dtype): vectors of
-- different models are never compared or indexed together.

ALTER TABLE detected_objects ADD COLUMN similarity_model TEXT;

CREATE TABLE object_embeddings (
  object_id        TEXT NOT NULL,
  model_id         TEXT NOT NULL,
  similarity_model TEXT NOT NULL,
  media_id         TEXT NOT NULL,
  dataset_id       TEXT NOT NULL,
  dims             INTEGER NOT NULL,
  -- float32 little-endian, L2-normalised
  vector           BLOB NOT NULL,
  created_at       TEXT NOT NULL,
  PRIMARY KEY (object_id, model_id)
) WITHOUT ROWID;
CREATE INDEX object_embeddings_by_media ON object_embeddings(media_id);
CREATE INDEX object_embeddings_by_model ON object_embeddings(model_id, similarity_model, dataset_id);

-- Items whose analysis has not finished, found at start-up to make sure each has its job.
CREATE INDEX media_unfinished ON media(id) WHERE processing_status IN ('pending', 'processing') AND status = 'active';
