-- Month bitmaps (issue #17): a date range reads whole months from month_bits and only its partial months' days
-- from day_bits (021). In a library whose items did not arrive in date order (an import of old photos keeps their
-- upload order, not their dates), each day's items spread over every chunk, and a quarter read 91 day rows per
-- chunk; now three month rows per chunk. Same shape and rules as day_bits.

CREATE TABLE month_bits (
  dataset_id TEXT NOT NULL,
  month      TEXT NOT NULL,
  chunk      INTEGER NOT NULL,
  bits       BLOB NOT NULL,
  UNIQUE (dataset_id, month, chunk)
);

-- From the days (a few rows per chunk and day, not a row per item): each month's chunk is the union of its days'.
INSERT INTO month_bits (dataset_id, month, chunk, bits)
  SELECT dataset_id, substr(day, 1, 7), chunk, bits_union(bits) FROM day_bits
  GROUP BY dataset_id, substr(day, 1, 7), chunk;

-- Months follow an item's own-level row, as days do (see 021 for the two conflict-free steps).
CREATE TRIGGER media_scope_month_insert AFTER INSERT ON media_scope WHEN NEW.lvl = 1 BEGIN
  UPDATE month_bits SET bits = bits_add(bits, NEW.ord & 16383)
  WHERE dataset_id = (SELECT dataset_id FROM media WHERE id = lower(hex(NEW.item)))
    AND month = substr(NEW.created_at, 1, 7) AND chunk = NEW.ord >> 14;
  INSERT INTO month_bits (dataset_id, month, chunk, bits)
  SELECT m.dataset_id, substr(NEW.created_at, 1, 7), NEW.ord >> 14, bits_add(NULL, NEW.ord & 16383)
  FROM media m WHERE m.id = lower(hex(NEW.item)) AND NOT EXISTS (SELECT 1 FROM month_bits b
    WHERE b.dataset_id = m.dataset_id AND b.month = substr(NEW.created_at, 1, 7) AND b.chunk = NEW.ord >> 14);
END;

CREATE TRIGGER media_scope_month_delete AFTER DELETE ON media_scope WHEN OLD.lvl = 1 BEGIN
  UPDATE month_bits SET bits = bits_remove(bits, OLD.ord & 16383)
  WHERE dataset_id = (SELECT dataset_id FROM media WHERE id = lower(hex(OLD.item)))
    AND month = substr(OLD.created_at, 1, 7) AND chunk = OLD.ord >> 14;
END;

CREATE TRIGGER media_scope_month_update AFTER UPDATE OF created_at ON media_scope
WHEN NEW.lvl = 1 AND substr(OLD.created_at, 1, 7) != substr(NEW.created_at, 1, 7) BEGIN
  UPDATE month_bits SET bits = bits_remove(bits, OLD.ord & 16383)
  WHERE dataset_id = (SELECT dataset_id FROM media WHERE id = lower(hex(OLD.item)))
    AND month = substr(OLD.created_at, 1, 7) AND chunk = OLD.ord >> 14;
  UPDATE month_bits SET bits = bits_add(bits, NEW.ord & 16383)
  WHERE dataset_id = (SELECT dataset_id FROM media WHERE id = lower(hex(NEW.item)))
    AND month = substr(NEW.created_at, 1, 7) AND chunk = NEW.ord >> 14;
  INSERT INTO month_bits (dataset_id, month, chunk, bits)
  SELECT m.dataset_id, substr(NEW.created_at, 1, 7), NEW.ord >> 14, bits_add(NULL, NEW.ord & 16383)
  FROM media m WHERE m.id = lower(hex(NEW.item)) AND NOT EXISTS (SELECT 1 FROM month_bits b
    WHERE b.dataset_id = m.dataset_id AND b.month = substr(NEW.created_at, 1, 7) AND b.chunk = NEW.ord >> 14);
END;
