-- Face clusters follow the faces, in the transaction of the change (SQLite: migrations/006_clusters.sql;
-- the tables are in 001): a new face embedding is queued in cluster_pending; a face whose embedding is
-- deleted (reprocessing) or whose object stops being active (the user deleted it, or its item or frame
-- was deleted) leaves its cluster at once, the cluster's size drops and it is marked dirty so that the
-- next assignPending recomputes its centroid and preview (or drops it when empty); a face made active
-- again is queued again.
--
-- Statement-level triggers over transition tables: a soft delete of a folder or a reprocessed frame
-- touches many faces in one statement, handled in three set-based statements instead of three per row.
-- Locks are taken in one order everywhere (pending rows by seq, then clusters by id, then members), the
-- order assignPending takes them in (src/storage/postgres/clusterStore.ts), so the two never deadlock.
-- `SET search_path FROM CURRENT` pins the functions to the schema this migration ran in.

-- The face (object, model) pairs in `gone` leave the queue and their clusters.
CREATE FUNCTION cluster_faces_leave(gone_objects text[], gone_models text[]) RETURNS void
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  PERFORM 1 FROM cluster_pending p
    JOIN unnest(gone_objects, gone_models) AS g(object_id, model_id)
      ON p.object_id = g.object_id AND (g.model_id IS NULL OR p.model_id = g.model_id)
    ORDER BY p.seq FOR UPDATE OF p;
  DELETE FROM cluster_pending p
    USING unnest(gone_objects, gone_models) AS g(object_id, model_id)
    WHERE p.object_id = g.object_id AND (g.model_id IS NULL OR p.model_id = g.model_id);

  PERFORM 1 FROM clusters c
    WHERE c.id IN (SELECT cm.cluster_id FROM cluster_members cm
                     JOIN unnest(gone_objects, gone_models) AS g(object_id, model_id)
                       ON cm.object_id = g.object_id AND (g.model_id IS NULL OR cm.model_id = g.model_id))
    ORDER BY c.id FOR UPDATE;
  UPDATE clusters c
     SET size = c.size - x.n, dirty = true,
         preview_object_id = CASE WHEN c.preview_object_id = ANY (x.objects) THEN NULL ELSE c.preview_object_id END
    FROM (SELECT cm.cluster_id, count(*) AS n, array_agg(cm.object_id) AS objects
            FROM cluster_members cm
            JOIN unnest(gone_objects, gone_models) AS g(object_id, model_id)
              ON cm.object_id = g.object_id AND (g.model_id IS NULL OR cm.model_id = g.model_id)
           GROUP BY cm.cluster_id) x
   WHERE c.id = x.cluster_id;
  DELETE FROM cluster_members cm
    USING unnest(gone_objects, gone_models) AS g(object_id, model_id)
    WHERE cm.object_id = g.object_id AND (g.model_id IS NULL OR cm.model_id = g.model_id);
END $$;

-- A new face embedding waits for the clustering job, in arrival order.
CREATE FUNCTION cluster_face_added() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO cluster_pending (dataset_id, model_id, object_id)
    SELECT dataset_id, model_id, object_id FROM added WHERE similarity_model = 'faces'
    ON CONFLICT (object_id, model_id) DO NOTHING;
  RETURN NULL;
END $$;
CREATE TRIGGER cluster_face_added AFTER INSERT ON object_embeddings
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION cluster_face_added();

-- A face embedding deleted (reprocessing replaced the face): out of the queue and of its cluster.
CREATE FUNCTION cluster_face_embedding_gone() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  objects text[];
  models text[];
BEGIN
  SELECT array_agg(object_id), array_agg(model_id) INTO objects, models FROM gone WHERE similarity_model = 'faces';
  IF objects IS NOT NULL THEN
    PERFORM cluster_faces_leave(objects, models);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER cluster_face_embedding_gone AFTER DELETE ON object_embeddings
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION cluster_face_embedding_gone();

-- A face object no longer active leaves (under every model); one made active again is queued again.
-- (A trigger with transition tables cannot name columns, hence every UPDATE, filtered on status here.)
CREATE FUNCTION cluster_face_status() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  left_ids text[];
BEGIN
  SELECT array_agg(o.id) INTO left_ids FROM old_rows o JOIN new_rows n ON n.id = o.id
   WHERE o.status = 'active' AND n.status <> 'active' AND o.similarity_model = 'faces';
  IF left_ids IS NOT NULL THEN
    PERFORM cluster_faces_leave(left_ids, array_fill(NULL::text, ARRAY[cardinality(left_ids)]));
  END IF;
  INSERT INTO cluster_pending (dataset_id, model_id, object_id)
    SELECT e.dataset_id, e.model_id, e.object_id
      FROM old_rows o JOIN new_rows n ON n.id = o.id
      JOIN object_embeddings e ON e.object_id = n.id AND e.similarity_model = 'faces'
     WHERE o.status <> 'active' AND n.status = 'active' AND n.similarity_model = 'faces'
    ON CONFLICT (object_id, model_id) DO NOTHING;
  RETURN NULL;
END $$;
CREATE TRIGGER cluster_face_status AFTER UPDATE ON detected_objects
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION cluster_face_status();

-- Faces stored before this migration (a library copied in) wait like new ones.
INSERT INTO cluster_pending (dataset_id, model_id, object_id)
  SELECT dataset_id, model_id, object_id FROM object_embeddings WHERE similarity_model = 'faces'
  ORDER BY created_at, object_id
  ON CONFLICT (object_id, model_id) DO NOTHING;
