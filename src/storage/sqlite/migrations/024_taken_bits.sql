-- Capture-time bitmaps (issue #17): a whole-day range of the capture time (`dateField=takenAt`) is answered by
-- set arithmetic as createdAt ranges are (021, 023), instead of a walk that reads each row's taken_at from the
-- table when the listing is sorted by another key. Same shape and rules as day_bits and month_bits, over
-- media_scope.taken_at (the capture time, or createdAt where it is unknown).

CREATE TABLE taken_day_bits (
  dataset_id TEXT NOT NULL,
  day        TEXT NOT NULL,
  chunk      INTEGER NOT NULL,
  bits       BLOB NOT NULL,
  UNIQUE (dataset_id, day, chunk)
);

CREATE TABLE taken_month_bits (
  dataset_id TEXT NOT NULL,
  month      TEXT NOT NULL,
  chunk      INTEGER NOT NULL,
  bits       BLOB NOT NULL,
  UNIQUE (dataset_id, month, chunk)
);

-- Each collection's items are the subtree rows of its label: read from media_scope_taken (which carries ord),
-- no lookup per item.
INSERT INTO taken_day_bits (dataset_id, day, chunk, bits)
  SELECT c.id, substr(s.taken_at, 1, 10), s.ord >> 14, bits_of(s.ord & 16383)
  FROM collections c JOIN media_scope s INDEXED BY media_scope_taken
    ON s.scope = unhex(replace(c.id, '-', '')) AND s.lvl = 0
  GROUP BY c.id, substr(s.taken_at, 1, 10), s.ord >> 14;

INSERT INTO taken_month_bits (dataset_id, month, chunk, bits)
  SELECT dataset_id, substr(day, 1, 7), chunk, bits_union(bits) FROM taken_day_bits
  GROUP BY dataset_id, substr(day, 1, 7), chunk;

-- Kept by the own-level row, as days and months are (see 021 for the two conflict-free steps).
CREATE TRIGGER media_scope_taken_insert AFTER INSERT ON media_scope WHEN NEW.lvl = 1 BEGIN
  UPDATE taken_day_bits SET bits = bits_add(bits, NEW.ord & 16383)
  WHERE dataset_id = (SELECT dataset_id FROM media WHERE id = lower(hex(NEW.item)))
    AND day = substr(NEW.taken_at, 1, 10) AND chunk = NEW.ord >> 14;
  INSERT INTO taken_day_bits (dataset_id, day, chunk, bits)
  SELECT m.dataset_id, substr(NEW.taken_at, 1, 10), NEW.ord >> 14, bits_add(NULL, NEW.ord & 16383)
  FROM media m WHERE m.id = lower(hex(NEW.item)) AND NOT EXISTS (SELECT 1 FROM taken_day_bits b
    WHERE b.dataset_id = m.dataset_id AND b.day = substr(NEW.taken_at, 1, 10) AND b.chunk = NEW.ord >> 14);
  UPDATE taken_month_bits SET bits = bits_add(bits, NEW.ord & 16383)
  WHERE dataset_id = (SELECT dataset_id FROM media WHERE id = lower(hex(NEW.item)))
    AND month = substr(NEW.taken_at, 1, 7) AND chunk = NEW.ord >> 14;
  INSERT INTO taken_month_bits (dataset_id, month, chunk, bits)
  SELECT m.dataset_id, substr(NEW.taken_at, 1, 7), NEW.ord >> 14, bits_add(NULL, NEW.ord & 16383)
  FROM media m WHERE m.id = lower(hex(NEW.item)) AND NOT EXISTS (SELECT 1 FROM taken_month_bits b
    WHERE b.dataset_id = m.dataset_id AND b.month = substr(NEW.taken_at, 1, 7) AND b.chunk = NEW.ord >> 14);
END;

CREATE TRIGGER media_scope_taken_delete AFTER DELETE ON media_scope WHEN OLD.lvl = 1 BEGIN
  UPDATE taken_day_bits SET bits = bits_remove(bits, OLD.ord & 16383)
  WHERE dataset_id = (SELECT dataset_id FROM media WHERE id = lower(hex(OLD.item)))
    AND day = substr(OLD.taken_at, 1, 10) AND chunk = OLD.ord >> 14;
  UPDATE taken_month_bits SET bits = bits_remove(bits, OLD.ord & 16383)
  WHERE dataset_id = (SELECT dataset_id FROM media WHERE id = lower(hex(OLD.item)))
    AND month = substr(OLD.taken_at, 1, 7) AND chunk = OLD.ord >> 14;
END;

-- A changed capture time: out of the old day and month, into the new ones (the same day again is a no-op).
CREATE TRIGGER media_scope_taken_update AFTER UPDATE OF taken_at ON media_scope
WHEN NEW.lvl = 1 AND substr(OLD.taken_at, 1, 10) != substr(NEW.taken_at, 1, 10) BEGIN
  UPDATE taken_day_bits SET bits = bits_remove(bits, OLD.ord & 16383)
  WHERE dataset_id = (SELECT dataset_id FROM media WHERE id = lower(hex(OLD.item)))
    AND day = substr(OLD.taken_at, 1, 10) AND chunk = OLD.ord >> 14;
  UPDATE taken_month_bits SET bits = bits_remove(bits, OLD.ord & 16383)
  WHERE dataset_id = (SELECT dataset_id FROM media WHERE id = lower(hex(OLD.item)))
    AND month = substr(OLD.taken_at, 1, 7) AND chunk = OLD.ord >> 14;
  UPDATE taken_day_bits SET bits = bits_add(bits, NEW.ord & 16383)
  WHERE dataset_id = (SELECT dataset_id FROM media WHERE id = lower(hex(NEW.item)))
    AND day = substr(NEW.taken_at, 1, 10) AND chunk = NEW.ord >> 14;
  INSERT INTO taken_day_bits (dataset_id, day, chunk, bits)
  SELECT m.dataset_id, substr(NEW.taken_at, 1, 10), NEW.ord >> 14, bits_add(NULL, NEW.ord & 16383)
  FROM media m WHERE m.id = lower(hex(NEW.item)) AND NOT EXISTS (SELECT 1 FROM taken_day_bits b
    WHERE b.dataset_id = m.dataset_id AND b.day = substr(NEW.taken_at, 1, 10) AND b.chunk = NEW.ord >> 14);
  UPDATE taken_month_bits SET bits = bits_add(bits, NEW.ord & 16383)
  WHERE dataset_id = (SELECT dataset_id FROM media WHERE id = lower(hex(NEW.item)))
    AND month = substr(NEW.taken_at, 1, 7) AND chunk = NEW.ord >> 14;
  INSERT INTO taken_month_bits (dataset_id, month, chunk, bits)
  SELECT m.dataset_id, substr(NEW.taken_at, 1, 7), NEW.ord >> 14, bits_add(NULL, NEW.ord & 16383)
  FROM media m WHERE m.id = lower(hex(NEW.item)) AND NOT EXISTS (SELECT 1 FROM taken_month_bits b
    WHERE b.dataset_id = m.dataset_id AND b.month = substr(NEW.taken_at, 1, 7) AND b.chunk = NEW.ord >> 14);
END;
