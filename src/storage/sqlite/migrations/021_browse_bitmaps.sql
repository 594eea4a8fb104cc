-- Browse bitmaps (issue #17): the exact total of a listing filtered by tags or dates, as set arithmetic
-- instead of a probe per candidate row. Every item gets a small dense number (media_ords.ord); a set of
-- items is stored as compressed bitmaps over those numbers, one row per chunk of 16,384 numbers
-- (src/storage/sqlite/itemBitmap.ts: a sorted uint16 array up to 1,023 members, else a 2 KiB bitmap):
-- - scope_bits: the live items of each browse scope (media_scope's scope, lvl) by type;
-- - tag_bits: the items carrying each tag (media_tags' dataset_id, grp, value);
-- - day_bits: the live items of a collection created on each UTC day (media_scope's created_at).
-- A filtered listing intersects the scope's set with the tag groups' and the days' unions
-- (src/storage/sqlite/browseBitmaps.ts). Triggers keep the sets in step with media_scope and media_tags in
-- the writing transaction, through the SQL functions bits_add / bits_remove / bits_of, which every
-- connection registers before migrations run (bitmapFunctions.ts). tag_bits and day_bits may keep items
-- that are no longer live: a listing always intersects with scope_bits, which holds exactly the live ones.

-- Item numbers are never reused (no row is ever deleted), so a stale bit can never name another item.
CREATE TABLE media_ords (
  ord  INTEGER PRIMARY KEY,
  item BLOB NOT NULL UNIQUE
);

-- Rowid tables: a chunk's row (up to ~2 KiB) stays in its table page; the key is a unique index.
CREATE TABLE scope_bits (
  scope BLOB NOT NULL,
  lvl   INTEGER NOT NULL,
  type  TEXT NOT NULL,
  chunk INTEGER NOT NULL,
  bits  BLOB NOT NULL,
  UNIQUE (scope, lvl, type, chunk)
);

CREATE TABLE tag_bits (
  dataset_id TEXT NOT NULL,
  grp        TEXT NOT NULL,
  value      TEXT NOT NULL,
  chunk      INTEGER NOT NULL,
  bits       BLOB NOT NULL,
  UNIQUE (dataset_id, grp, value, chunk)
);
-- The `tags` filter names a value in any group.
CREATE INDEX tag_bits_value ON tag_bits (dataset_id, value);

CREATE TABLE day_bits (
  dataset_id TEXT NOT NULL,
  day        TEXT NOT NULL,
  chunk      INTEGER NOT NULL,
  bits       BLOB NOT NULL,
  UNIQUE (dataset_id, day, chunk)
);

-- The data of an existing library. Live items are numbered in creation order (neighbours in time share
-- chunks), then the rest of the tagged ones.
INSERT INTO media_ords (item) SELECT item FROM media_scope WHERE lvl = 1 ORDER BY created_at, item;
INSERT INTO media_ords (item)
  SELECT DISTINCT unhex(t.media_id) FROM media_tags t
  WHERE unhex(t.media_id) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM media_ords o WHERE o.item = unhex(t.media_id));

INSERT INTO scope_bits (scope, lvl, type, chunk, bits)
  SELECT s.scope, s.lvl, s.type, o.ord >> 14, bits_of(o.ord & 16383)
  FROM media_scope s JOIN media_ords o ON o.item = s.item
  GROUP BY s.scope, s.lvl, s.type, o.ord >> 14;

INSERT INTO tag_bits (dataset_id, grp, value, chunk, bits)
  SELECT t.dataset_id, t.grp, t.value, o.ord >> 14, bits_of(o.ord & 16383)
  FROM media_tags t JOIN media_ords o ON o.item = unhex(t.media_id)
  GROUP BY t.dataset_id, t.grp, t.value, o.ord >> 14;

INSERT INTO day_bits (dataset_id, day, chunk, bits)
  SELECT m.dataset_id, substr(s.created_at, 1, 10), o.ord >> 14, bits_of(o.ord & 16383)
  FROM media_scope s JOIN media_ords o ON o.item = s.item JOIN media m ON m.id = lower(hex(s.item))
  WHERE s.lvl = 1
  GROUP BY m.dataset_id, substr(s.created_at, 1, 10), o.ord >> 14;

-- Each trigger adds in two conflict-free steps (set the bit in an existing chunk row; insert the chunk row
-- when there is none), so the conflict clause of the statement that fired it (INSERT OR IGNORE INTO
-- media_tags, media_scope's move) cannot change what it does.

-- A folder's move holds a row in media_scope_bulk (017) while it adds and drops its subtree's rows of the
-- ancestors it joins and leaves; it changes their bitmaps itself, a chunk at a time (scopeMove.ts).
CREATE TRIGGER media_scope_bits_insert AFTER INSERT ON media_scope
WHEN NOT EXISTS (SELECT 1 FROM media_scope_bulk) BEGIN
  INSERT INTO media_ords (item) SELECT NEW.item WHERE NOT EXISTS (SELECT 1 FROM media_ords WHERE item = NEW.item);
  UPDATE scope_bits SET bits = bits_add(bits, (SELECT ord & 16383 FROM media_ords WHERE item = NEW.item))
  WHERE scope = NEW.scope AND lvl = NEW.lvl AND type = NEW.type
    AND chunk = (SELECT ord >> 14 FROM media_ords WHERE item = NEW.item);
  INSERT INTO scope_bits (scope, lvl, type, chunk, bits)
  SELECT NEW.scope, NEW.lvl, NEW.type, o.ord >> 14, bits_add(NULL, o.ord & 16383) FROM media_ords o
  WHERE o.item = NEW.item AND NOT EXISTS (SELECT 1 FROM scope_bits b
    WHERE b.scope = NEW.scope AND b.lvl = NEW.lvl AND b.type = NEW.type AND b.chunk = o.ord >> 14);
END;

CREATE TRIGGER media_scope_bits_delete AFTER DELETE ON media_scope
WHEN NOT EXISTS (SELECT 1 FROM media_scope_bulk) BEGIN
  UPDATE scope_bits SET bits = bits_remove(bits, (SELECT ord & 16383 FROM media_ords WHERE item = OLD.item))
  WHERE scope = OLD.scope AND lvl = OLD.lvl AND type = OLD.type
    AND chunk = (SELECT ord >> 14 FROM media_ords WHERE item = OLD.item);
END;

CREATE TRIGGER media_scope_bits_type AFTER UPDATE OF type ON media_scope WHEN OLD.type != NEW.type BEGIN
  UPDATE scope_bits SET bits = bits_remove(bits, (SELECT ord & 16383 FROM media_ords WHERE item = OLD.item))
  WHERE scope = OLD.scope AND lvl = OLD.lvl AND type = OLD.type
    AND chunk = (SELECT ord >> 14 FROM media_ords WHERE item = OLD.item);
  UPDATE scope_bits SET bits = bits_add(bits, (SELECT ord & 16383 FROM media_ords WHERE item = NEW.item))
  WHERE scope = NEW.scope AND lvl = NEW.lvl AND type = NEW.type
    AND chunk = (SELECT ord >> 14 FROM media_ords WHERE item = NEW.item);
  INSERT INTO scope_bits (scope, lvl, type, chunk, bits)
  SELECT NEW.scope, NEW.lvl, NEW.type, o.ord >> 14, bits_add(NULL, o.ord & 16383) FROM media_ords o
  WHERE o.item = NEW.item AND NOT EXISTS (SELECT 1 FROM scope_bits b
    WHERE b.scope = NEW.scope AND b.lvl = NEW.lvl AND b.type = NEW.type AND b.chunk = o.ord >> 14);
END;

-- Days follow an item's own-level row (one per live item). The collection is read from media: on a hard
-- delete the row is gone already and the bit stays, harmless (the item is in no scope again).
CREATE TRIGGER media_scope_day_insert AFTER INSERT ON media_scope WHEN NEW.lvl = 1 BEGIN
  INSERT INTO media_ords (item) SELECT NEW.item WHERE NOT EXISTS (SELECT 1 FROM media_ords WHERE item = NEW.item);
  UPDATE day_bits SET bits = bits_add(bits, (SELECT ord & 16383 FROM media_ords WHERE item = NEW.item))
  WHERE dataset_id = (SELECT dataset_id FROM media WHERE id = lower(hex(NEW.item)))
    AND day = substr(NEW.created_at, 1, 10) AND chunk = (SELECT ord >> 14 FROM media_ords WHERE item = NEW.item);
  INSERT INTO day_bits (dataset_id, day, chunk, bits)
  SELECT m.dataset_id, substr(NEW.created_at, 1, 10), o.ord >> 14, bits_add(NULL, o.ord & 16383)
  FROM media_ords o JOIN media m ON m.id = lower(hex(NEW.item))
  WHERE o.item = NEW.item AND NOT EXISTS (SELECT 1 FROM day_bits b
    WHERE b.dataset_id = m.dataset_id AND b.day = substr(NEW.created_at, 1, 10) AND b.chunk = o.ord >> 14);
END;

CREATE TRIGGER media_scope_day_delete AFTER DELETE ON media_scope WHEN OLD.lvl = 1 BEGIN
  UPDATE day_bits SET bits = bits_remove(bits, (SELECT ord & 16383 FROM media_ords WHERE item = OLD.item))
  WHERE dataset_id = (SELECT dataset_id FROM media WHERE id = lower(hex(OLD.item)))
    AND day = substr(OLD.created_at, 1, 10) AND chunk = (SELECT ord >> 14 FROM media_ords WHERE item = OLD.item);
END;

CREATE TRIGGER media_scope_day_update AFTER UPDATE OF created_at ON media_scope
WHEN NEW.lvl = 1 AND substr(OLD.created_at, 1, 10) != substr(NEW.created_at, 1, 10) BEGIN
  UPDATE day_bits SET bits = bits_remove(bits, (SELECT ord & 16383 FROM media_ords WHERE item = OLD.item))
  WHERE dataset_id = (SELECT dataset_id FROM media WHERE id = lower(hex(OLD.item)))
    AND day = substr(OLD.created_at, 1, 10) AND chunk = (SELECT ord >> 14 FROM media_ords WHERE item = OLD.item);
  UPDATE day_bits SET bits = bits_add(bits, (SELECT ord & 16383 FROM media_ords WHERE item = NEW.item))
  WHERE dataset_id = (SELECT dataset_id FROM media WHERE id = lower(hex(NEW.item)))
    AND day = substr(NEW.created_at, 1, 10) AND chunk = (SELECT ord >> 14 FROM media_ords WHERE item = NEW.item);
  INSERT INTO day_bits (dataset_id, day, chunk, bits)
  SELECT m.dataset_id, substr(NEW.created_at, 1, 10), o.ord >> 14, bits_add(NULL, o.ord & 16383)
  FROM media_ords o JOIN media m ON m.id = lower(hex(NEW.item))
  WHERE o.item = NEW.item AND NOT EXISTS (SELECT 1 FROM day_bits b
    WHERE b.dataset_id = m.dataset_id AND b.day = substr(NEW.created_at, 1, 10) AND b.chunk = o.ord >> 14);
END;

CREATE TRIGGER media_tags_bits_insert AFTER INSERT ON media_tags WHEN unhex(NEW.media_id) IS NOT NULL BEGIN
  INSERT INTO media_ords (item)
  SELECT unhex(NEW.media_id) WHERE NOT EXISTS (SELECT 1 FROM media_ords WHERE item = unhex(NEW.media_id));
  UPDATE tag_bits SET bits = bits_add(bits, (SELECT ord & 16383 FROM media_ords WHERE item = unhex(NEW.media_id)))
  WHERE dataset_id = NEW.dataset_id AND grp = NEW.grp AND value = NEW.value
    AND chunk = (SELECT ord >> 14 FROM media_ords WHERE item = unhex(NEW.media_id));
  INSERT INTO tag_bits (dataset_id, grp, value, chunk, bits)
  SELECT NEW.dataset_id, NEW.grp, NEW.value, o.ord >> 14, bits_add(NULL, o.ord & 16383) FROM media_ords o
  WHERE o.item = unhex(NEW.media_id) AND NOT EXISTS (SELECT 1 FROM tag_bits b
    WHERE b.dataset_id = NEW.dataset_id AND b.grp = NEW.grp AND b.value = NEW.value AND b.chunk = o.ord >> 14);
END;

CREATE TRIGGER media_tags_bits_delete AFTER DELETE ON media_tags WHEN unhex(OLD.media_id) IS NOT NULL BEGIN
  UPDATE tag_bits SET bits = bits_remove(bits, (SELECT ord & 16383 FROM media_ords WHERE item = unhex(OLD.media_id)))
  WHERE dataset_id = OLD.dataset_id AND grp = OLD.grp AND value = OLD.value
    AND chunk = (SELECT ord >> 14 FROM media_ords WHERE item = unhex(OLD.media_id));
END;
