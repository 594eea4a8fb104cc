-- Favourites, archive and trash (issue #27).
--
-- Flags: media.favorite and media.archived (0/1), set on every version of an item (MediaStore.setFlags).
-- flag_bits holds, per collection and flag, the item numbers (media_ords.ord) of the rows carrying it, as the
-- browse bitmaps of migration 021 do for tags: a listing filtered by a flag (or leaving out the archived
-- ones, the default) intersects with (or takes out) these sets (src/storage/sqlite/browseBitmaps.ts). Kept in
-- step by the triggers below in the writing transaction; a row's bits go with it when it is purged.
--
-- Trash: a delete (softDelete, trash) marks its rows deleted as before and names the entry they belong to in
-- media.trash_id (the id of the item or folder the delete named); the entry itself is a row of `trash` with
-- when, by whom and where (the folders it was in, by id and name, outermost first, as JSON). Rows deleted
-- otherwise (one version, rows deleted before this migration) have no entry: they stay as they were.
ALTER TABLE media ADD COLUMN favorite INTEGER NOT NULL DEFAULT 0;
ALTER TABLE media ADD COLUMN archived INTEGER NOT NULL DEFAULT 0;
ALTER TABLE media ADD COLUMN trash_id TEXT;
CREATE INDEX media_trash ON media(trash_id) WHERE trash_id IS NOT NULL;
-- Whether a collection has archived items at all: without any, default listings skip the flag sets.
CREATE INDEX media_archived ON media(dataset_id) WHERE archived = 1;

CREATE TABLE trash (
  id              TEXT PRIMARY KEY,
  dataset_id      TEXT NOT NULL,
  organization_id TEXT NOT NULL,
  deleted_at      TEXT NOT NULL,
  deleted_by      TEXT NOT NULL,
  location        TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX trash_by_collection ON trash(dataset_id, deleted_at, id);
CREATE INDEX trash_by_age ON trash(deleted_at);

CREATE TABLE flag_bits (
  dataset_id TEXT NOT NULL,
  flag       TEXT NOT NULL CHECK (flag IN ('favorite', 'archived')),
  chunk      INTEGER NOT NULL,
  bits       BLOB NOT NULL,
  UNIQUE (dataset_id, flag, chunk)
);

CREATE TRIGGER media_flag_favorite_on AFTER UPDATE OF favorite ON media WHEN NEW.favorite = 1 AND OLD.favorite = 0 BEGIN
  INSERT INTO media_ords (item) SELECT unhex(NEW.id) WHERE NOT EXISTS (SELECT 1 FROM media_ords WHERE item = unhex(NEW.id));
  UPDATE flag_bits SET bits = bits_add(bits, (SELECT ord & 16383 FROM media_ords WHERE item = unhex(NEW.id)))
  WHERE dataset_id = NEW.dataset_id AND flag = 'favorite'
    AND chunk = (SELECT ord >> 14 FROM media_ords WHERE item = unhex(NEW.id));
  INSERT INTO flag_bits (dataset_id, flag, chunk, bits)
  SELECT NEW.dataset_id, 'favorite', o.ord >> 14, bits_add(NULL, o.ord & 16383) FROM media_ords o
  WHERE o.item = unhex(NEW.id) AND NOT EXISTS (SELECT 1 FROM flag_bits b
    WHERE b.dataset_id = NEW.dataset_id AND b.flag = 'favorite' AND b.chunk = o.ord >> 14);
END;

CREATE TRIGGER media_flag_archived_on AFTER UPDATE OF archived ON media WHEN NEW.archived = 1 AND OLD.archived = 0 BEGIN
  INSERT INTO media_ords (item) SELECT unhex(NEW.id) WHERE NOT EXISTS (SELECT 1 FROM media_ords WHERE item = unhex(NEW.id));
  UPDATE flag_bits SET bits = bits_add(bits, (SELECT ord & 16383 FROM media_ords WHERE item = unhex(NEW.id)))
  WHERE dataset_id = NEW.dataset_id AND flag = 'archived'
    AND chunk = (SELECT ord >> 14 FROM media_ords WHERE item = unhex(NEW.id));
  INSERT INTO flag_bits (dataset_id, flag, chunk, bits)
  SELECT NEW.dataset_id, 'archived', o.ord >> 14, bits_add(NULL, o.ord & 16383) FROM media_ords o
  WHERE o.item = unhex(NEW.id) AND NOT EXISTS (SELECT 1 FROM flag_bits b
    WHERE b.dataset_id = NEW.dataset_id AND b.flag = 'archived' AND b.chunk = o.ord >> 14);
END;

CREATE TRIGGER media_flag_favorite_off AFTER UPDATE OF favorite ON media WHEN NEW.favorite = 0 AND OLD.favorite = 1 BEGIN
  UPDATE flag_bits SET bits = bits_remove(bits, (SELECT ord & 16383 FROM media_ords WHERE item = unhex(OLD.id)))
  WHERE dataset_id = OLD.dataset_id AND flag = 'favorite'
    AND chunk = (SELECT ord >> 14 FROM media_ords WHERE item = unhex(OLD.id));
END;

CREATE TRIGGER media_flag_archived_off AFTER UPDATE OF archived ON media WHEN NEW.archived = 0 AND OLD.archived = 1 BEGIN
  UPDATE flag_bits SET bits = bits_remove(bits, (SELECT ord & 16383 FROM media_ords WHERE item = unhex(OLD.id)))
  WHERE dataset_id = OLD.dataset_id AND flag = 'archived'
    AND chunk = (SELECT ord >> 14 FROM media_ords WHERE item = unhex(OLD.id));
END;

-- A purged row takes its bits along (its number is never reused, so a stale bit would be harmless; an empty
-- archived set keeps default listings on the kept counters).
CREATE TRIGGER media_flag_gone AFTER DELETE ON media WHEN OLD.favorite = 1 OR OLD.archived = 1 BEGIN
  UPDATE flag_bits SET bits = bits_remove(bits, (SELECT ord & 16383 FROM media_ords WHERE item = unhex(OLD.id)))
  WHERE dataset_id = OLD.dataset_id AND ((flag = 'favorite' AND OLD.favorite = 1) OR (flag = 'archived' AND OLD.archived = 1))
    AND chunk = (SELECT ord >> 14 FROM media_ords WHERE item = unhex(OLD.id));
END;
