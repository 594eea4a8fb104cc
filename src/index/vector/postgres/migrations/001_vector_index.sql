-- The vector index on pgvector (src/index/vector/postgres/): one table of entries, the live embeddings of
-- object_embeddings as pgvector values, with one HNSW index per embedding model (a partial expression index
-- over halfvec(dims), created on the model's first entry, since only then are its dims known).
--
-- Kept in step by triggers, so the relational stores never call the index: an entry exists for each
-- object_embeddings row whose object (if it has a detected_objects row) and item (if it has a media row) are
-- active, exactly what SQLite's stores keep in its index (they remove vectors when an object or an item is
-- deleted, not when a version stops being current). Only live rows are entries, so a filtered query counts
-- and scans live vectors only and an exact scan never reads dead ones.

CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public;

-- One row per embedding model: its dims (fixed on first use) and its HNSW index.
CREATE TABLE vector_models (
  model_id   text PRIMARY KEY,
  id         serial NOT NULL UNIQUE,
  dims       integer NOT NULL CHECK (dims BETWEEN 1 AND 4000),
  -- 'building': a first build from object_embeddings (rebuild) whose HNSW index is not made yet.
  state      text NOT NULL DEFAULT 'live' CHECK (state IN ('live', 'building')),
  index_name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  rebuilt_at timestamptz
);

CREATE TABLE vector_entries (
  model_id         text NOT NULL REFERENCES vector_models(model_id),
  object_id        text NOT NULL,
  similarity_model text NOT NULL,
  media_id         text NOT NULL,
  dataset_id       text NOT NULL,
  frame_id         text,
  -- float32, L2-normalised; the HNSW index holds its halfvec copy, exact scans and similarities read this.
  embedding        vector NOT NULL,
  PRIMARY KEY (model_id, object_id)
);
-- Inline rather than TOASTed (a 768-d vector is 3 KB, past the 2 KB threshold where `external` moves it
-- out of line): an exact scan then reads one heap page per two rows, not a TOAST lookup per row.
ALTER TABLE vector_entries ALTER COLUMN embedding SET STORAGE MAIN;
CREATE INDEX vector_entries_by_object ON vector_entries (object_id);
CREATE INDEX vector_entries_by_media ON vector_entries (media_id);
-- The scope of a query: counting the allowed rows (bounded) and the exact scan's filter.
CREATE INDEX vector_entries_scope ON vector_entries (model_id, similarity_model, dataset_id, media_id);

-- object_embeddings.vector (float32 little-endian, as SQLite's BLOB) as a vector: pgvector has no cast from
-- bytea, so the IEEE 754 fields are read byte by byte (exact, subnormals included; ~0.6 ms a 768-d row on PGlite).
CREATE FUNCTION vector_from_f32le(b bytea) RETURNS vector
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT array_agg(
    CASE WHEN x.e = 0 THEN x.m * 2.0::float8 ^ -149 ELSE (8388608 + x.m) * 2.0::float8 ^ (x.e - 150) END
    * (1 - 2 * x.s) ORDER BY x.i)::real[]::vector
  FROM (SELECT i, get_byte(b, 4 * i + 3) >> 7 AS s,
               ((get_byte(b, 4 * i + 3) & 127) << 1) | (get_byte(b, 4 * i + 2) >> 7) AS e,
               ((get_byte(b, 4 * i + 2) & 127) << 16) | (get_byte(b, 4 * i + 1) << 8) | get_byte(b, 4 * i) AS m
        FROM generate_series(0, length(b) / 4 - 1) AS i) AS x
$$;

-- Registers the model on first use and creates its HNSW index (unless `building`: rebuild makes it after
-- loading); a vector of other dims than the model's is refused, as SQLite's index refuses it.
CREATE FUNCTION vector_model_ensure(p_model text, p_dims integer, p_state text DEFAULT 'live') RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  have integer;
  rid integer;
BEGIN
  SELECT dims INTO have FROM vector_models WHERE model_id = p_model;
  IF have IS NOT NULL THEN
    IF have <> p_dims THEN
      RAISE EXCEPTION 'vector index for model % has % dims, not %', p_model, have, p_dims
        USING ERRCODE = '22000';
    END IF;
    RETURN;
  END IF;
  rid := nextval(pg_get_serial_sequence('vector_models', 'id'));
  -- Two first uses at once: the second waits on the first's row, then finds it and checks its dims.
  INSERT INTO vector_models (model_id, id, dims, state, index_name)
  VALUES (p_model, rid, p_dims, p_state, 'vector_hnsw_' || rid)
  ON CONFLICT (model_id) DO NOTHING;
  IF NOT FOUND THEN
    PERFORM vector_model_ensure(p_model, p_dims, p_state);
    RETURN;
  END IF;
  IF p_state = 'live' THEN
    EXECUTE format(
      'CREATE INDEX %I ON vector_entries USING hnsw ((embedding::halfvec(%s)) halfvec_cosine_ops) WHERE model_id = %L',
      'vector_hnsw_' || rid, p_dims, p_model);
  END IF;
END $$;

-- Brings the entries of these (object, model) keys in line with object_embeddings: live rows upserted (a row
-- written again unchanged leaves its entry, and the HNSW graph, untouched), the others' entries deleted.
CREATE FUNCTION vector_entries_refresh(p_objects text[], p_models text[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  FOR r IN
    SELECT e.model_id, length(e.vector) / 4 AS dims FROM object_embeddings e
    JOIN unnest(p_objects, p_models) AS k(object_id, model_id) ON e.object_id = k.object_id AND e.model_id = k.model_id
    GROUP BY 1, 2
  LOOP
    PERFORM vector_model_ensure(r.model_id, r.dims);
  END LOOP;
  DELETE FROM vector_entries v USING unnest(p_objects, p_models) AS k(object_id, model_id)
  WHERE v.object_id = k.object_id AND v.model_id = k.model_id
    AND NOT EXISTS (SELECT 1 FROM object_embeddings e
      LEFT JOIN detected_objects d ON d.id = e.object_id LEFT JOIN media m ON m.id = e.media_id
      WHERE e.object_id = k.object_id AND e.model_id = k.model_id
        AND (d.status IS NULL OR d.status = 'active') AND (m.status IS NULL OR m.status = 'active'));
  INSERT INTO vector_entries AS v (model_id, object_id, similarity_model, media_id, dataset_id, frame_id, embedding)
  SELECT e.model_id, e.object_id, e.similarity_model, e.media_id, e.dataset_id, d.frame_id,
         l2_normalize(vector_from_f32le(e.vector))
  FROM object_embeddings e
  JOIN unnest(p_objects, p_models) AS k(object_id, model_id) ON e.object_id = k.object_id AND e.model_id = k.model_id
  LEFT JOIN detected_objects d ON d.id = e.object_id
  LEFT JOIN media m ON m.id = e.media_id
  WHERE (d.status IS NULL OR d.status = 'active') AND (m.status IS NULL OR m.status = 'active')
  ON CONFLICT (model_id, object_id) DO UPDATE SET
    similarity_model = excluded.similarity_model, media_id = excluded.media_id, dataset_id = excluded.dataset_id,
    frame_id = coalesce(excluded.frame_id, v.frame_id), embedding = excluded.embedding
  WHERE (v.similarity_model, v.media_id, v.dataset_id, v.frame_id, v.embedding)
    IS DISTINCT FROM (excluded.similarity_model, excluded.media_id, excluded.dataset_id,
                      coalesce(excluded.frame_id, v.frame_id), excluded.embedding);
END $$;

-- object_embeddings: statement triggers over the transition tables (one pass per statement, not per row).
-- A bulk copy (npm run migrate) may `SET lumen.vector_sync = off` on its connection: the embeddings then
-- arrive without growing the graph a row at a time, and rebuild() of each model indexes them after (one
-- build is several times faster); the other tables' triggers keep running, unlike session_replication_role.
CREATE FUNCTION vector_on_embeddings_written() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('lumen.vector_sync', true) = 'off' THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'UPDATE' THEN
    -- Rows whose key changed leave their old entry; the others are refreshed in place.
    DELETE FROM vector_entries v USING old_rows o WHERE v.object_id = o.object_id AND v.model_id = o.model_id
      AND NOT EXISTS (SELECT 1 FROM new_rows n WHERE n.object_id = o.object_id AND n.model_id = o.model_id);
  END IF;
  PERFORM vector_entries_refresh(array_agg(object_id), array_agg(model_id)) FROM new_rows;
  RETURN NULL;
END $$;

CREATE FUNCTION vector_on_embeddings_deleted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('lumen.vector_sync', true) = 'off' THEN
    RETURN NULL;
  END IF;
  DELETE FROM vector_entries v USING old_rows o WHERE v.object_id = o.object_id AND v.model_id = o.model_id;
  RETURN NULL;
END $$;

CREATE TRIGGER vector_embeddings_inserted AFTER INSERT ON object_embeddings
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION vector_on_embeddings_written();
CREATE TRIGGER vector_embeddings_updated AFTER UPDATE ON object_embeddings
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION vector_on_embeddings_written();
CREATE TRIGGER vector_embeddings_deleted AFTER DELETE ON object_embeddings
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION vector_on_embeddings_deleted();

-- An object deleted (status 'deleted': a correction, a retired frame, a deleted item) leaves the index;
-- one made active again comes back from its embeddings.
CREATE FUNCTION vector_on_objects_updated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM vector_entries v USING old_rows o JOIN new_rows n ON n.id = o.id
  WHERE v.object_id = n.id AND o.status = 'active' AND n.status <> 'active';
  PERFORM vector_entries_refresh(array_agg(e.object_id), array_agg(e.model_id))
  FROM old_rows o JOIN new_rows n ON n.id = o.id JOIN object_embeddings e ON e.object_id = n.id
  WHERE o.status <> 'active' AND n.status = 'active'
  HAVING count(*) > 0;
  RETURN NULL;
END $$;

CREATE TRIGGER vector_objects_updated AFTER UPDATE ON detected_objects
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION vector_on_objects_updated();

-- An item soft-deleted leaves the index with all its vectors, one restored comes back; an item moved to
-- another collection takes its entries along.
CREATE FUNCTION vector_on_media_updated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM vector_entries v USING old_rows o JOIN new_rows n ON n.id = o.id
  WHERE v.media_id = n.id AND o.status = 'active' AND n.status <> 'active';
  UPDATE vector_entries v SET dataset_id = n.dataset_id FROM old_rows o JOIN new_rows n ON n.id = o.id
  WHERE v.media_id = n.id AND o.dataset_id <> n.dataset_id;
  PERFORM vector_entries_refresh(array_agg(e.object_id), array_agg(e.model_id))
  FROM old_rows o JOIN new_rows n ON n.id = o.id JOIN object_embeddings e ON e.media_id = n.id
  WHERE o.status <> 'active' AND n.status = 'active'
  HAVING count(*) > 0;
  RETURN NULL;
END $$;

CREATE TRIGGER vector_media_updated AFTER UPDATE ON media
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION vector_on_media_updated();
