-- Full-text index (SQLite FTS5 with Porter stemming) over what users type to
-- find things: captions and OCR text of frames, and the file name,
-- description and tag values of items. Only live rows are indexed: the item
-- active, current and not a folder; the frame, caption and object active.
-- Queries: src/storage/sqlite/textIndex.ts, which groups rows into frame hits
-- (captions, OCR) and item hits (name, description, tags).
--
-- Triggers keep the index in step with the data in the same transaction as
-- each change, so no other code has to know about it. One FTS row per source
-- row (caption, OCR object, item, tag value): a source row's insert adds one
-- FTS row with a new, higher rowid and its delete removes one (a tombstone),
-- which is what FTS5 handles cheaply. One row per frame would be rewritten by
-- every caption and OCR line of a reprocessed frame in turn, and FTS5 flushes
-- its pending data to a new segment whenever a row written in the same
-- transaction is deleted again.

-- One row per FTS row; `id` is the FTS rowid. The FTS table can only be looked
-- up by rowid, so what a row is about lives here (kept small: the collection
-- is the FTS row's scope token, and the item's).
--   kind     'caption' | 'ocr' | 'item' (name, description) | 'tag'
--   source   captions.id | detected_objects.id | media.id | media_id, group and value joined by char(31)
CREATE TABLE text_index_docs (
  id         INTEGER PRIMARY KEY,
  kind       TEXT NOT NULL,
  source     TEXT NOT NULL,
  media_id   TEXT NOT NULL,
  frame_id   TEXT
);
CREATE UNIQUE INDEX text_index_docs_source ON text_index_docs(source, kind);
CREATE INDEX text_index_docs_media ON text_index_docs(media_id, frame_id);

-- Contentless (the text stays in captions, detected_objects, media and
-- media_tags only), with contentless_delete=1 so rows can be deleted by rowid
-- (a tombstone, no re-reading of the text). detail stays full: bm25() needs
-- the per-column hits (it scores 0 with detail=column).
-- `scope` holds one token naming the row's collection: 'ds' || 32 hex || '0'
-- (the trailing digit keeps the stemmer off it). A query limited to some of
-- the collections ANDs them in; user words are never matched against it.
CREATE VIRTUAL TABLE text_index USING fts5(
  caption, ocr, name, description, tag, scope,
  content = '',
  contentless_delete = 1,
  tokenize = 'porter unicode61 remove_diacritics 2'
);

-- ------------------------------------------------------------------ what is indexed

-- The unicode61 tokenizer splits file names at '_', '-' and '.' itself
-- ("IMG_2041_beach-party.jpg": img, 2041, beach, parti, jpg).
CREATE VIEW text_index_items AS
SELECT m.id AS source, m.id AS media_id, m.dataset_id AS dataset_id, m.name AS name, m.description AS description
FROM media m
WHERE m.status = 'active' AND m.is_current = 1 AND m.type != 'folder';

CREATE VIEW text_index_tags AS
SELECT t.media_id AS media_id, t.grp AS grp, t.value AS tag, m.dataset_id AS dataset_id
FROM media_tags t JOIN media m ON m.id = t.media_id
WHERE m.status = 'active' AND m.is_current = 1 AND m.type != 'folder';

CREATE VIEW text_index_captions AS
SELECT c.id AS source, f.media_id AS media_id, f.id AS frame_id, m.dataset_id AS dataset_id, c.text AS caption
FROM captions c JOIN frames f ON f.id = c.frame_id JOIN media m ON m.id = f.media_id
WHERE c.status = 'active' AND f.status = 'active' AND m.status = 'active' AND m.is_current = 1 AND m.type != 'folder';

-- OCR: objects of type 'text', whose label is the text read.
CREATE VIEW text_index_ocr AS
SELECT o.id AS source, f.media_id AS media_id, f.id AS frame_id, m.dataset_id AS dataset_id, o.label AS ocr
FROM detected_objects o JOIN frames f ON f.id = o.frame_id JOIN media m ON m.id = f.media_id
WHERE o.type = 'text' AND o.status = 'active' AND f.status = 'active'
  AND m.status = 'active' AND m.is_current = 1 AND m.type != 'folder';

-- ------------------------------------------------------------------ add and drop
-- Writing to these views runs their INSTEAD OF trigger: each adds the rows of
-- one source (when it is live) or drops them. Adding after dropping is how a
-- changed source is re-indexed.

CREATE VIEW text_index_add (kind, source) AS SELECT NULL, NULL WHERE 0;
CREATE VIEW text_index_add_tag (media_id, grp, value) AS SELECT NULL, NULL, NULL WHERE 0;
CREATE VIEW text_index_drop (kind, source) AS SELECT NULL, NULL WHERE 0;
-- All rows of an item (its own, its tags', its frames') / of one frame.
CREATE VIEW text_index_add_media (media_id) AS SELECT NULL WHERE 0;
CREATE VIEW text_index_drop_media (media_id) AS SELECT NULL WHERE 0;
CREATE VIEW text_index_add_frame (frame_id) AS SELECT NULL WHERE 0;
CREATE VIEW text_index_drop_frame (media_id, frame_id) AS SELECT NULL, NULL WHERE 0;

-- kind 'item', 'caption' or 'ocr'; source its row id. Adding replaces what
-- was there (never a duplicate, never a failed write), though the callers drop
-- first whenever a row may already be indexed: this lookup then finds nothing.
CREATE TRIGGER text_index_add_run INSTEAD OF INSERT ON text_index_add BEGIN
  DELETE FROM text_index WHERE rowid = (SELECT id FROM text_index_docs WHERE source = NEW.source AND kind = NEW.kind);
  DELETE FROM text_index_docs WHERE source = NEW.source AND kind = NEW.kind;
  INSERT INTO text_index_docs (kind, source, media_id, frame_id)
    SELECT 'item', source, media_id, NULL FROM text_index_items WHERE NEW.kind = 'item' AND source = NEW.source
    UNION ALL
    SELECT 'caption', source, media_id, frame_id FROM text_index_captions WHERE NEW.kind = 'caption' AND source = NEW.source
    UNION ALL
    SELECT 'ocr', source, media_id, frame_id FROM text_index_ocr WHERE NEW.kind = 'ocr' AND source = NEW.source;
  INSERT INTO text_index (rowid, name, description, caption, ocr, scope)
    SELECT d.id, m.name, m.description, NULL, NULL, 'ds' || replace(lower(m.dataset_id), '-', '') || '0'
      FROM text_index_docs d JOIN media m ON m.id = d.source
      WHERE NEW.kind = 'item' AND d.source = NEW.source AND d.kind = 'item'
    UNION ALL
    SELECT d.id, NULL, NULL, c.text, NULL, 'ds' || replace(lower(m.dataset_id), '-', '') || '0'
      FROM text_index_docs d JOIN captions c ON c.id = d.source JOIN media m ON m.id = d.media_id
      WHERE NEW.kind = 'caption' AND d.source = NEW.source AND d.kind = 'caption'
    UNION ALL
    SELECT d.id, NULL, NULL, NULL, o.label, 'ds' || replace(lower(m.dataset_id), '-', '') || '0'
      FROM text_index_docs d JOIN detected_objects o ON o.id = d.source JOIN media m ON m.id = d.media_id
      WHERE NEW.kind = 'ocr' AND d.source = NEW.source AND d.kind = 'ocr';
END;

CREATE TRIGGER text_index_add_tag_run INSTEAD OF INSERT ON text_index_add_tag BEGIN
  DELETE FROM text_index WHERE rowid =
    (SELECT id FROM text_index_docs WHERE source = NEW.media_id || char(31) || NEW.grp || char(31) || NEW.value AND kind = 'tag');
  DELETE FROM text_index_docs WHERE source = NEW.media_id || char(31) || NEW.grp || char(31) || NEW.value AND kind = 'tag';
  INSERT INTO text_index_docs (kind, source, media_id, frame_id)
    SELECT 'tag', NEW.media_id || char(31) || NEW.grp || char(31) || NEW.value, m.id, NULL
    FROM media m
    WHERE m.id = NEW.media_id AND m.status = 'active' AND m.is_current = 1 AND m.type != 'folder'
      AND EXISTS (SELECT 1 FROM media_tags t WHERE t.media_id = NEW.media_id AND t.grp = NEW.grp AND t.value = NEW.value);
  INSERT INTO text_index (rowid, tag, scope)
    SELECT d.id, NEW.value, 'ds' || replace(lower(m.dataset_id), '-', '') || '0'
    FROM text_index_docs d JOIN media m ON m.id = d.media_id
    WHERE d.source = NEW.media_id || char(31) || NEW.grp || char(31) || NEW.value AND d.kind = 'tag';
END;

CREATE TRIGGER text_index_drop_run INSTEAD OF INSERT ON text_index_drop BEGIN
  DELETE FROM text_index WHERE rowid = (SELECT id FROM text_index_docs WHERE source = NEW.source AND kind = NEW.kind);
  DELETE FROM text_index_docs WHERE source = NEW.source AND kind = NEW.kind;
END;

CREATE TRIGGER text_index_add_frame_run INSTEAD OF INSERT ON text_index_add_frame BEGIN
  INSERT INTO text_index_add (kind, source)
    SELECT 'caption', source FROM text_index_captions WHERE frame_id = NEW.frame_id
    UNION ALL
    SELECT 'ocr', source FROM text_index_ocr WHERE frame_id = NEW.frame_id;
END;

CREATE TRIGGER text_index_drop_frame_run INSTEAD OF INSERT ON text_index_drop_frame BEGIN
  DELETE FROM text_index WHERE rowid IN (SELECT id FROM text_index_docs WHERE media_id = NEW.media_id AND frame_id = NEW.frame_id);
  DELETE FROM text_index_docs WHERE media_id = NEW.media_id AND frame_id = NEW.frame_id;
END;

CREATE TRIGGER text_index_add_media_run INSTEAD OF INSERT ON text_index_add_media BEGIN
  INSERT INTO text_index_add (kind, source) SELECT 'item', source FROM text_index_items WHERE media_id = NEW.media_id;
  INSERT INTO text_index_add_tag (media_id, grp, value) SELECT media_id, grp, tag FROM text_index_tags WHERE media_id = NEW.media_id;
  INSERT INTO text_index_add_frame (frame_id) SELECT id FROM frames WHERE media_id = NEW.media_id AND status = 'active';
END;

CREATE TRIGGER text_index_drop_media_run INSTEAD OF INSERT ON text_index_drop_media BEGIN
  DELETE FROM text_index WHERE rowid IN (SELECT id FROM text_index_docs WHERE media_id = NEW.media_id);
  DELETE FROM text_index_docs WHERE media_id = NEW.media_id;
END;

-- ------------------------------------------------------------------ sources

CREATE TRIGGER text_index_media_insert AFTER INSERT ON media BEGIN
  INSERT INTO text_index_add VALUES ('item', NEW.id);
END;

-- The item stops or starts being live (deleted, another version made current,
-- moved to another collection): all its rows go, and come back if it is live.
CREATE TRIGGER text_index_media_live AFTER UPDATE OF status, is_current, dataset_id, type ON media
WHEN OLD.status IS NOT NEW.status OR OLD.is_current IS NOT NEW.is_current
  OR OLD.dataset_id IS NOT NEW.dataset_id OR OLD.type IS NOT NEW.type
BEGIN
  INSERT INTO text_index_drop_media VALUES (NEW.id);
  INSERT INTO text_index_add_media SELECT NEW.id WHERE NEW.status = 'active' AND NEW.is_current = 1;
END;

CREATE TRIGGER text_index_media_text AFTER UPDATE OF name, description ON media
WHEN OLD.name IS NOT NEW.name OR OLD.description IS NOT NEW.description
BEGIN
  INSERT INTO text_index_drop VALUES ('item', NEW.id);
  INSERT INTO text_index_add VALUES ('item', NEW.id);
END;

CREATE TRIGGER text_index_tag_insert AFTER INSERT ON media_tags BEGIN
  INSERT INTO text_index_add_tag VALUES (NEW.media_id, NEW.grp, NEW.value);
END;
CREATE TRIGGER text_index_tag_delete AFTER DELETE ON media_tags BEGIN
  INSERT INTO text_index_drop VALUES ('tag', OLD.media_id || char(31) || OLD.grp || char(31) || OLD.value);
END;
CREATE TRIGGER text_index_tag_update AFTER UPDATE ON media_tags BEGIN
  INSERT INTO text_index_drop VALUES ('tag', OLD.media_id || char(31) || OLD.grp || char(31) || OLD.value);
  INSERT INTO text_index_add_tag VALUES (NEW.media_id, NEW.grp, NEW.value);
END;

CREATE TRIGGER text_index_frame_update AFTER UPDATE OF status, media_id ON frames
WHEN OLD.status IS NOT NEW.status OR OLD.media_id IS NOT NEW.media_id
BEGIN
  INSERT INTO text_index_drop_frame VALUES (OLD.media_id, OLD.id);
  INSERT INTO text_index_add_frame VALUES (NEW.id);
END;

CREATE TRIGGER text_index_caption_insert AFTER INSERT ON captions BEGIN
  INSERT INTO text_index_add VALUES ('caption', NEW.id);
END;
CREATE TRIGGER text_index_caption_delete AFTER DELETE ON captions BEGIN
  INSERT INTO text_index_drop VALUES ('caption', OLD.id);
END;
CREATE TRIGGER text_index_caption_update AFTER UPDATE OF id, text, status, frame_id ON captions
WHEN OLD.id IS NOT NEW.id OR OLD.text IS NOT NEW.text OR OLD.status IS NOT NEW.status OR OLD.frame_id IS NOT NEW.frame_id
BEGIN
  INSERT INTO text_index_drop VALUES ('caption', OLD.id);
  INSERT INTO text_index_add VALUES ('caption', NEW.id);
END;

CREATE TRIGGER text_index_ocr_insert AFTER INSERT ON detected_objects WHEN NEW.type = 'text' BEGIN
  INSERT INTO text_index_add VALUES ('ocr', NEW.id);
END;
CREATE TRIGGER text_index_ocr_delete AFTER DELETE ON detected_objects WHEN OLD.type = 'text' BEGIN
  INSERT INTO text_index_drop VALUES ('ocr', OLD.id);
END;
CREATE TRIGGER text_index_ocr_update AFTER UPDATE OF id, label, status, type, frame_id ON detected_objects
WHEN (OLD.type = 'text' OR NEW.type = 'text')
  AND (OLD.id IS NOT NEW.id OR OLD.label IS NOT NEW.label OR OLD.status IS NOT NEW.status
    OR OLD.type IS NOT NEW.type OR OLD.frame_id IS NOT NEW.frame_id)
BEGIN
  INSERT INTO text_index_drop VALUES ('ocr', OLD.id);
  INSERT INTO text_index_add VALUES ('ocr', NEW.id);
END;

-- ------------------------------------------------------------------ backfill

INSERT INTO text_index_docs (kind, source, media_id, frame_id)
  SELECT 'item', source, media_id, NULL FROM text_index_items;
INSERT INTO text_index_docs (kind, source, media_id, frame_id)
  SELECT 'tag', media_id || char(31) || grp || char(31) || tag, media_id, NULL FROM text_index_tags;
INSERT INTO text_index_docs (kind, source, media_id, frame_id)
  SELECT 'caption', source, media_id, frame_id FROM text_index_captions;
INSERT INTO text_index_docs (kind, source, media_id, frame_id)
  SELECT 'ocr', source, media_id, frame_id FROM text_index_ocr;
INSERT INTO text_index (rowid, name, description, scope)
  SELECT d.id, s.name, s.description, 'ds' || replace(lower(s.dataset_id), '-', '') || '0' FROM text_index_docs d JOIN text_index_items s ON s.source = d.source
  WHERE d.kind = 'item' ORDER BY d.id;
INSERT INTO text_index (rowid, tag, scope)
  SELECT d.id, t.value, 'ds' || replace(lower(t.dataset_id), '-', '') || '0' FROM media_tags t JOIN text_index_docs d
    ON d.source = t.media_id || char(31) || t.grp || char(31) || t.value AND d.kind = 'tag'
  ORDER BY d.id;
INSERT INTO text_index (rowid, caption, scope)
  SELECT d.id, s.caption, 'ds' || replace(lower(s.dataset_id), '-', '') || '0' FROM text_index_docs d JOIN text_index_captions s ON s.source = d.source
  WHERE d.kind = 'caption' ORDER BY d.id;
INSERT INTO text_index (rowid, ocr, scope)
  SELECT d.id, s.ocr, 'ds' || replace(lower(s.dataset_id), '-', '') || '0' FROM text_index_docs d JOIN text_index_ocr s ON s.source = d.source
  WHERE d.kind = 'ocr' ORDER BY d.id;
