-- What is indexed, kept in step by triggers on the source tables in the same
-- transaction as each change, so no store has to call the index (SQLite's
-- stores call its writer instead: src/index/text/sqlite/writer.ts; the rows
-- are the same as its views list, migrations/005_text_index.sql):
--   items active, current and not a folder: name and description;
--   their tag values;
--   active captions and OCR text objects (type 'text', the label is the text
--   read) of their active frames.
-- Adding a source row first drops what was there, so nothing is ever doubled.

CREATE FUNCTION text_index_drop(k text, src text) RETURNS void
LANGUAGE sql AS $$
  DELETE FROM text_index_docs WHERE source = src AND kind = k;
$$;

CREATE FUNCTION text_index_add_item(mid text) RETURNS void
LANGUAGE sql AS $$
  DELETE FROM text_index_docs WHERE source = mid AND kind = 'item';
  INSERT INTO text_index_docs (kind, source, media_id, frame_id, collection_id, terms)
    SELECT 'item', m.id, m.id, NULL, m.dataset_id,
           text_index_vector(m.name, 'A') || text_index_vector(m.description, 'B')
    FROM media m
    WHERE m.id = mid AND m.status = 'active' AND m.is_current AND m.type <> 'folder';
$$;

CREATE FUNCTION text_index_add_tag(mid text, g text, v text) RETURNS void
LANGUAGE sql AS $$
  DELETE FROM text_index_docs WHERE source = mid || chr(31) || g || chr(31) || v AND kind = 'tag';
  INSERT INTO text_index_docs (kind, source, media_id, frame_id, collection_id, terms)
    SELECT 'tag', mid || chr(31) || g || chr(31) || v, m.id, NULL, m.dataset_id, text_index_vector(v, 'D')
    FROM media m
    WHERE m.id = mid AND m.status = 'active' AND m.is_current AND m.type <> 'folder'
      AND EXISTS (SELECT 1 FROM media_tags t WHERE t.media_id = mid AND t.grp = g AND t.value = v);
$$;

CREATE FUNCTION text_index_add_caption(cid text) RETURNS void
LANGUAGE sql AS $$
  DELETE FROM text_index_docs WHERE source = cid AND kind = 'caption';
  INSERT INTO text_index_docs (kind, source, media_id, frame_id, collection_id, terms)
    SELECT 'caption', c.id, f.media_id, f.id, m.dataset_id, text_index_vector(c.text, 'D')
    FROM captions c JOIN frames f ON f.id = c.frame_id JOIN media m ON m.id = f.media_id
    WHERE c.id = cid AND c.status = 'active' AND f.status = 'active'
      AND m.status = 'active' AND m.is_current AND m.type <> 'folder';
$$;

CREATE FUNCTION text_index_add_ocr(obj text) RETURNS void
LANGUAGE sql AS $$
  DELETE FROM text_index_docs WHERE source = obj AND kind = 'ocr';
  INSERT INTO text_index_docs (kind, source, media_id, frame_id, collection_id, terms)
    SELECT 'ocr', o.id, f.media_id, f.id, m.dataset_id, text_index_vector(o.label, 'D')
    FROM detected_objects o JOIN frames f ON f.id = o.frame_id JOIN media m ON m.id = f.media_id
    WHERE o.id = obj AND o.type = 'text' AND o.status = 'active' AND f.status = 'active'
      AND m.status = 'active' AND m.is_current AND m.type <> 'folder';
$$;

-- Every row of one frame: its active captions and OCR text (nothing unless its item is live).
-- (PL/pgSQL: PERFORM runs each query to its end; a SQL function would stop its last one at the first row.)
CREATE FUNCTION text_index_add_frame(fid text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM text_index_add_caption(id) FROM captions WHERE frame_id = fid AND status = 'active';
  PERFORM text_index_add_ocr(id) FROM detected_objects WHERE frame_id = fid AND type = 'text' AND status = 'active';
END
$$;

-- Every row of one item: its own, its tags', its active frames'.
CREATE FUNCTION text_index_add_media(mid text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM text_index_add_item(mid);
  PERFORM text_index_add_tag(media_id, grp, value) FROM media_tags WHERE media_id = mid;
  PERFORM text_index_add_frame(id) FROM frames WHERE media_id = mid AND status = 'active';
END
$$;

-- ------------------------------------------------------------------ sources

CREATE FUNCTION text_index_on_media() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM text_index_add_item(NEW.id);
  ELSIF TG_OP = 'DELETE' THEN
    DELETE FROM text_index_docs WHERE media_id = OLD.id;
  ELSIF OLD.status IS DISTINCT FROM NEW.status OR OLD.is_current IS DISTINCT FROM NEW.is_current
     OR OLD.dataset_id IS DISTINCT FROM NEW.dataset_id OR OLD.type IS DISTINCT FROM NEW.type THEN
    -- The item stops or starts being live, or moves to another collection: all its rows go, and come back
    -- if it is live.
    DELETE FROM text_index_docs WHERE media_id = NEW.id;
    PERFORM text_index_add_media(NEW.id);
  ELSIF OLD.name IS DISTINCT FROM NEW.name OR OLD.description IS DISTINCT FROM NEW.description THEN
    PERFORM text_index_add_item(NEW.id);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER text_index_media AFTER INSERT OR DELETE OR UPDATE OF name, description, status, is_current, dataset_id, type
  ON media FOR EACH ROW EXECUTE FUNCTION text_index_on_media();

CREATE FUNCTION text_index_on_tag() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    PERFORM text_index_drop('tag', OLD.media_id || chr(31) || OLD.grp || chr(31) || OLD.value);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM text_index_add_tag(NEW.media_id, NEW.grp, NEW.value);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER text_index_tags AFTER INSERT OR DELETE OR UPDATE ON media_tags
  FOR EACH ROW EXECUTE FUNCTION text_index_on_tag();

CREATE FUNCTION text_index_on_frame() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.status IS NOT DISTINCT FROM NEW.status AND OLD.media_id IS NOT DISTINCT FROM NEW.media_id THEN
    RETURN NULL;
  END IF;
  DELETE FROM text_index_docs WHERE media_id = OLD.media_id AND frame_id = OLD.id;
  IF TG_OP = 'UPDATE' THEN
    PERFORM text_index_add_frame(NEW.id);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER text_index_frames AFTER DELETE OR UPDATE OF status, media_id ON frames
  FOR EACH ROW EXECUTE FUNCTION text_index_on_frame();

CREATE FUNCTION text_index_on_caption() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM text_index_drop('caption', OLD.id);
  ELSIF TG_OP = 'INSERT' THEN
    PERFORM text_index_add_caption(NEW.id);
  ELSIF OLD.id IS DISTINCT FROM NEW.id OR OLD.text IS DISTINCT FROM NEW.text
     OR OLD.status IS DISTINCT FROM NEW.status OR OLD.frame_id IS DISTINCT FROM NEW.frame_id THEN
    PERFORM text_index_drop('caption', OLD.id);
    PERFORM text_index_add_caption(NEW.id);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER text_index_captions AFTER INSERT OR DELETE OR UPDATE OF id, text, status, frame_id ON captions
  FOR EACH ROW EXECUTE FUNCTION text_index_on_caption();

CREATE FUNCTION text_index_on_object() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF OLD.type = 'text' THEN
      PERFORM text_index_drop('ocr', OLD.id);
    END IF;
  ELSIF TG_OP = 'INSERT' THEN
    IF NEW.type = 'text' THEN
      PERFORM text_index_add_ocr(NEW.id);
    END IF;
  ELSIF (OLD.type = 'text' OR NEW.type = 'text')
    AND (OLD.id IS DISTINCT FROM NEW.id OR OLD.label IS DISTINCT FROM NEW.label OR OLD.status IS DISTINCT FROM NEW.status
      OR OLD.type IS DISTINCT FROM NEW.type OR OLD.frame_id IS DISTINCT FROM NEW.frame_id) THEN
    PERFORM text_index_drop('ocr', OLD.id);
    PERFORM text_index_add_ocr(NEW.id);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER text_index_objects AFTER INSERT OR DELETE OR UPDATE OF id, label, status, type, frame_id
  ON detected_objects FOR EACH ROW EXECUTE FUNCTION text_index_on_object();

-- ------------------------------------------------------------------ backfill (a library migrated before this)

SELECT count(text_index_add_media(id)) FROM media WHERE status = 'active' AND is_current AND type <> 'folder';
