-- Face clusters (identities), per collection and embedding model, built
-- incrementally by the `cluster-faces` job (src/search/clusters.ts,
-- src/storage/sqlite/clusterStore.ts).
--
-- Triggers keep membership in step with the faces themselves, in the same
-- transaction as the change: a new face embedding is queued in
-- cluster_pending; a face whose embedding is deleted (reprocessing) or whose
-- object stops being active (the user deleted it, or its item was deleted)
-- leaves its cluster at once, the cluster's size drops and it is marked dirty
-- so that the next run recomputes its centroid and preview (or drops it when
-- empty).

CREATE TABLE clusters (
  -- 32 hex, like media ids
  id                 TEXT PRIMARY KEY,
  dataset_id         TEXT NOT NULL,
  model_id           TEXT NOT NULL,
  similarity_model   TEXT NOT NULL DEFAULT 'faces',
  dims               INTEGER NOT NULL,
  -- float32 little-endian, L2-normalised mean of the members' vectors
  centroid           BLOB NOT NULL,
  -- float32 little-endian, the plain sum of the members' vectors (for exact incremental updates)
  vector_sum         BLOB NOT NULL,
  size               INTEGER NOT NULL,
  preview_object_id  TEXT,
  preview_similarity REAL NOT NULL DEFAULT 0,
  -- 1 when members left since the centroid was computed
  dirty              INTEGER NOT NULL DEFAULT 0,
  created_at         TEXT NOT NULL,
  updated_at         TEXT NOT NULL
);
-- Loading a collection's centroids for one model.
CREATE INDEX clusters_by_model ON clusters(dataset_id, model_id);
-- The listing: biggest first, then id.
CREATE INDEX clusters_by_size ON clusters(dataset_id, size DESC, id);
CREATE INDEX clusters_dirty ON clusters(dataset_id) WHERE dirty = 1;

CREATE TABLE cluster_members (
  object_id  TEXT NOT NULL,
  model_id   TEXT NOT NULL,
  cluster_id TEXT NOT NULL,
  media_id   TEXT NOT NULL,
  -- cosine with the cluster's centroid when the face joined
  similarity REAL NOT NULL,
  PRIMARY KEY (object_id, model_id)
) WITHOUT ROWID;
-- Browse by clusterId: m.id IN (SELECT media_id FROM cluster_members WHERE cluster_id = ?), covered.
CREATE INDEX cluster_members_by_cluster ON cluster_members(cluster_id, media_id);

-- Face embeddings waiting for the clustering job, in arrival order.
CREATE TABLE cluster_pending (
  seq        INTEGER PRIMARY KEY,
  dataset_id TEXT NOT NULL,
  model_id   TEXT NOT NULL,
  object_id  TEXT NOT NULL,
  UNIQUE (object_id, model_id)
);
CREATE INDEX cluster_pending_by_group ON cluster_pending(dataset_id, model_id, seq);

-- Faces stored before this migration wait like new ones.
INSERT INTO cluster_pending (dataset_id, model_id, object_id)
  SELECT dataset_id, model_id, object_id FROM object_embeddings WHERE similarity_model = 'faces' ORDER BY created_at, object_id;

CREATE TRIGGER cluster_face_added AFTER INSERT ON object_embeddings
WHEN NEW.similarity_model = 'faces'
BEGIN
  INSERT OR IGNORE INTO cluster_pending (dataset_id, model_id, object_id) VALUES (NEW.dataset_id, NEW.model_id, NEW.object_id);
END;

CREATE TRIGGER cluster_face_embedding_gone AFTER DELETE ON object_embeddings
WHEN OLD.similarity_model = 'faces'
BEGIN
  DELETE FROM cluster_pending WHERE object_id = OLD.object_id AND model_id = OLD.model_id;
  UPDATE clusters SET size = size - 1, dirty = 1,
      preview_object_id = CASE WHEN preview_object_id = OLD.object_id THEN NULL ELSE preview_object_id END
    WHERE id = (SELECT cluster_id FROM cluster_members WHERE object_id = OLD.object_id AND model_id = OLD.model_id);
  DELETE FROM cluster_members WHERE object_id = OLD.object_id AND model_id = OLD.model_id;
END;

CREATE TRIGGER cluster_face_deleted AFTER UPDATE OF status ON detected_objects
WHEN OLD.status = 'active' AND NEW.status != 'active' AND OLD.similarity_model = 'faces'
BEGIN
  DELETE FROM cluster_pending WHERE object_id = OLD.id;
  UPDATE clusters SET size = size - 1, dirty = 1,
      preview_object_id = CASE WHEN preview_object_id = OLD.id THEN NULL ELSE preview_object_id END
    WHERE id IN (SELECT cluster_id FROM cluster_members WHERE object_id = OLD.id);
  DELETE FROM cluster_members WHERE object_id = OLD.id;
END;

-- A face made active again (should that ever happen) is clustered again.
CREATE TRIGGER cluster_face_restored AFTER UPDATE OF status ON detected_objects
WHEN OLD.status != 'active' AND NEW.status = 'active' AND NEW.similarity_model = 'faces'
BEGIN
  INSERT OR IGNORE INTO cluster_pending (dataset_id, model_id, object_id)
    SELECT dataset_id, model_id, object_id FROM object_embeddings WHERE object_id = NEW.id AND similarity_model = 'faces';
END;
