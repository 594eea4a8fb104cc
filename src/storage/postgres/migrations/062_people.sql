-- People: what a person decides about face clusters (SQLite: migrations/029_people.sql), kept by the cluster
-- store's edits (src/storage/postgres/clusterEdits.ts) and honoured by the background clusterer
-- (src/index/faces/clusterer.ts: two pinned clusters never merge on their own; a pinned cluster keeps its
-- id in a merge with an unpinned one).
ALTER TABLE clusters ADD COLUMN name text;
ALTER TABLE clusters ADD COLUMN hidden boolean NOT NULL DEFAULT false;
-- The face shown for the person; ignored while it is not a member (then the preview face is shown).
ALTER TABLE clusters ADD COLUMN cover_object_id text;
-- true once a person named, merged, split, hid or chose a cover for the cluster.
ALTER TABLE clusters ADD COLUMN pinned boolean NOT NULL DEFAULT false;
-- The People list: visible ones, named first, biggest first.
CREATE INDEX clusters_people ON clusters (dataset_id, hidden, (name IS NULL), size DESC, id);

-- Faces a person moved into a cluster: clustered again (an item restored), a face goes back there.
CREATE TABLE cluster_pins (
  object_id  text NOT NULL,
  model_id   text NOT NULL,
  cluster_id text NOT NULL,
  PRIMARY KEY (object_id, model_id)
);

-- ------------------------------------------------------------------ a person's name in the text index
-- One text row per (named cluster, live item holding one of its faces), kind 'tag' (the name is searched
-- like a tag value: `q=Alice`), source `<cluster id> chr(31) <media id>`, kept by the triggers below; an
-- item made live again gets its rows back through text_index_add_media (051, redefined here).
CREATE INDEX cluster_members_by_media ON cluster_members (media_id, cluster_id);

-- Brings one (cluster, item) row up to date: dropped, then added when the cluster has a name, still holds a
-- face of the item, and the item is live.
CREATE FUNCTION people_text_sync(cid text, mid text) RETURNS void
LANGUAGE sql SET search_path FROM CURRENT AS $$
  DELETE FROM text_index_docs WHERE source = cid || chr(31) || mid AND kind = 'tag';
  INSERT INTO text_index_docs (kind, source, media_id, frame_id, collection_id, terms)
    SELECT 'tag', cid || chr(31) || mid, m.id, NULL, m.dataset_id, text_index_vector(c.name, 'D')
    FROM clusters c, media m
    WHERE c.id = cid AND c.name IS NOT NULL AND m.id = mid
      AND m.status = 'active' AND m.is_current AND m.type <> 'folder'
      AND EXISTS (SELECT 1 FROM cluster_members WHERE cluster_id = cid AND media_id = mid);
$$;

CREATE FUNCTION people_text_on_member() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') AND EXISTS (SELECT 1 FROM clusters WHERE id = OLD.cluster_id AND name IS NOT NULL) THEN
    PERFORM people_text_sync(OLD.cluster_id, OLD.media_id);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND EXISTS (SELECT 1 FROM clusters WHERE id = NEW.cluster_id AND name IS NOT NULL) THEN
    PERFORM people_text_sync(NEW.cluster_id, NEW.media_id);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER people_text_member AFTER INSERT OR DELETE OR UPDATE OF cluster_id ON cluster_members
  FOR EACH ROW EXECUTE FUNCTION people_text_on_member();

CREATE FUNCTION people_text_on_rename() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  PERFORM people_text_sync(NEW.id, x.media_id)
    FROM (SELECT DISTINCT media_id FROM cluster_members WHERE cluster_id = NEW.id) x;
  RETURN NULL;
END $$;
CREATE TRIGGER people_text_rename AFTER UPDATE OF name ON clusters
  FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION people_text_on_rename();

-- Every row of one item: its own, its tags', its active frames', and now its people's.
CREATE OR REPLACE FUNCTION text_index_add_media(mid text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM text_index_add_item(mid);
  PERFORM text_index_add_tag(media_id, grp, value) FROM media_tags WHERE media_id = mid;
  PERFORM text_index_add_frame(id) FROM frames WHERE media_id = mid AND status = 'active';
  PERFORM people_text_sync(x.cluster_id, mid)
    FROM (SELECT DISTINCT cm.cluster_id FROM cluster_members cm JOIN clusters c ON c.id = cm.cluster_id
           WHERE cm.media_id = mid AND c.name IS NOT NULL) x;
END
$$;
