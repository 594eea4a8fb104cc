-- People: what a person decides about face clusters (src/features/faces/people.ts), kept by the cluster
-- store's edits (src/storage/sqlite/clusterEdits.ts) and honoured by the background clusterer
-- (src/index/faces/clusterer.ts: two pinned clusters never merge on their own; a pinned cluster keeps its
-- id in a merge with an unpinned one).
ALTER TABLE clusters ADD COLUMN name TEXT;
ALTER TABLE clusters ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0;
-- The face shown for the person; ignored while it is not a member (then the preview face is shown).
ALTER TABLE clusters ADD COLUMN cover_object_id TEXT;
-- 1 once a person named, merged, split, hid or chose a cover for the cluster.
ALTER TABLE clusters ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
-- The People list: visible ones, named first, biggest first.
CREATE INDEX clusters_people ON clusters(dataset_id, hidden, (name IS NULL), size DESC, id);

-- Faces a person moved into a cluster: clustered again (an item restored), a face goes back there.
CREATE TABLE cluster_pins (
  object_id  TEXT NOT NULL,
  model_id   TEXT NOT NULL,
  cluster_id TEXT NOT NULL,
  PRIMARY KEY (object_id, model_id)
) WITHOUT ROWID;

-- ------------------------------------------------------------------ a person's name in the text index
-- The people of an item (the text index writer and search read them per item).
CREATE INDEX cluster_members_by_media ON cluster_members(media_id, cluster_id);

-- One text row per (named cluster, live item holding one of its faces), kind 'tag' (the name is searched
-- like a tag value: `q=Alice`), source `<cluster id> char(31) <media id>`. The triggers below keep it in
-- step with names and memberships; the text index writer (src/index/text/sqlite/writer.ts) adds an item's
-- rows again, from people_text_rows, when the item becomes live again.
CREATE VIEW people_text_rows AS
SELECT DISTINCT cm.cluster_id || char(31) || cm.media_id AS source, cm.media_id AS media_id, c.name AS name,
       m.dataset_id AS dataset_id
FROM cluster_members cm JOIN clusters c ON c.id = cm.cluster_id JOIN media m ON m.id = cm.media_id
WHERE c.name IS NOT NULL AND m.status = 'active' AND m.is_current = 1 AND m.type != 'folder';

-- Writing (cluster_id, media_id) here brings that pair's row up to date: dropped, then added when the
-- cluster has a name, still holds a face of the item, and the item is live.
CREATE VIEW people_text_sync (cluster_id, media_id) AS SELECT NULL, NULL WHERE 0;
CREATE TRIGGER people_text_sync_run INSTEAD OF INSERT ON people_text_sync BEGIN
  DELETE FROM text_index WHERE rowid =
    (SELECT id FROM text_index_docs WHERE source = NEW.cluster_id || char(31) || NEW.media_id AND kind = 'tag');
  DELETE FROM text_index_docs WHERE source = NEW.cluster_id || char(31) || NEW.media_id AND kind = 'tag';
  INSERT INTO text_index_docs (kind, source, media_id, frame_id)
    SELECT 'tag', NEW.cluster_id || char(31) || NEW.media_id, m.id, NULL
    FROM media m JOIN clusters c ON c.id = NEW.cluster_id
    WHERE m.id = NEW.media_id AND c.name IS NOT NULL
      AND m.status = 'active' AND m.is_current = 1 AND m.type != 'folder'
      AND EXISTS (SELECT 1 FROM cluster_members WHERE cluster_id = NEW.cluster_id AND media_id = NEW.media_id);
  INSERT INTO text_index (rowid, tag, scope)
    SELECT d.id, c.name, 'ds' || replace(lower(m.dataset_id), '-', '') || '0'
    FROM text_index_docs d JOIN clusters c ON c.id = NEW.cluster_id JOIN media m ON m.id = d.media_id
    WHERE d.source = NEW.cluster_id || char(31) || NEW.media_id AND d.kind = 'tag';
END;

CREATE TRIGGER people_text_member_added AFTER INSERT ON cluster_members
WHEN (SELECT name FROM clusters WHERE id = NEW.cluster_id) IS NOT NULL
BEGIN
  INSERT INTO people_text_sync VALUES (NEW.cluster_id, NEW.media_id);
END;

CREATE TRIGGER people_text_member_gone AFTER DELETE ON cluster_members
WHEN (SELECT name FROM clusters WHERE id = OLD.cluster_id) IS NOT NULL
BEGIN
  INSERT INTO people_text_sync VALUES (OLD.cluster_id, OLD.media_id);
END;

CREATE TRIGGER people_text_member_moved AFTER UPDATE OF cluster_id ON cluster_members
WHEN (SELECT name FROM clusters WHERE id = OLD.cluster_id) IS NOT NULL
  OR (SELECT name FROM clusters WHERE id = NEW.cluster_id) IS NOT NULL
BEGIN
  INSERT INTO people_text_sync VALUES (OLD.cluster_id, OLD.media_id);
  INSERT INTO people_text_sync VALUES (NEW.cluster_id, NEW.media_id);
END;

CREATE TRIGGER people_text_renamed AFTER UPDATE OF name ON clusters
WHEN OLD.name IS NOT NEW.name
BEGIN
  INSERT INTO people_text_sync SELECT DISTINCT NEW.id, media_id FROM cluster_members WHERE cluster_id = NEW.id;
END;
