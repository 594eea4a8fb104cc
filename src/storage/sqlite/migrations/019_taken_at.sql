-- The capture time (issue #18): media.taken_at, when the photo was taken (EXIF DateTimeOriginal, else
-- DateTimeDigitized) or the video recorded (its container's creation time), as an ISO 8601 UTC string with
-- milliseconds like created_at; NULL when unknown. A zone-less EXIF time is the camera's wall clock read as
-- UTC; with OffsetTimeOriginal (OffsetTimeDigitized, OffsetTime) the offset is applied (src/files/captureTime.ts).
--
-- Browse sorts and filters by `coalesce(taken_at, created_at)` — an item whose capture time is unknown sits at
-- its upload time — so media_scope carries that value, NOT NULL, as its `taken_at`, with an index like the other
-- sort keys'; the triggers of migration 017 that copy sort keys are recreated here with it.

ALTER TABLE media ADD COLUMN taken_at TEXT;

-- Existing images: from the stored EXIF JSON (src/files/imageProbe.ts exifToJson keeps the EXIF groups, with the
-- dates as ISO strings of the wall clock read as UTC). The same rules as src/files/captureTime.ts: the original
-- time with its sub-seconds and offset, else the digitized one with theirs; outside 1900-01-02 .. now + 1 day
-- (exif-reader reads "0000:00:00 00:00:00" as 1899-11-30) is no time. Videos keep NULL: their probe's
-- creation time was not stored before this migration.
UPDATE media SET taken_at = (
  SELECT t FROM (
    SELECT 1 AS k, strftime('%Y-%m-%dT%H:%M:%fZ',
      substr(json_extract(media.exif, '$.Photo.DateTimeOriginal'), 1, 19) || '.' ||
      substr(CASE WHEN json_extract(media.exif, '$.Photo.SubSecTimeOriginal') GLOB '[0-9]*'
        THEN json_extract(media.exif, '$.Photo.SubSecTimeOriginal') ELSE '' END || '000', 1, 3) ||
      CASE
        WHEN json_extract(media.exif, '$.Photo.OffsetTimeOriginal') GLOB '[+-][0-9][0-9]:[0-9][0-9]'
          THEN json_extract(media.exif, '$.Photo.OffsetTimeOriginal')
        WHEN json_extract(media.exif, '$.Photo.OffsetTime') GLOB '[+-][0-9][0-9]:[0-9][0-9]'
          THEN json_extract(media.exif, '$.Photo.OffsetTime')
        ELSE '' END) AS t
    UNION ALL
    SELECT 2, strftime('%Y-%m-%dT%H:%M:%fZ',
      substr(json_extract(media.exif, '$.Photo.DateTimeDigitized'), 1, 19) || '.' ||
      substr(CASE WHEN json_extract(media.exif, '$.Photo.SubSecTimeDigitized') GLOB '[0-9]*'
        THEN json_extract(media.exif, '$.Photo.SubSecTimeDigitized') ELSE '' END || '000', 1, 3) ||
      CASE
        WHEN json_extract(media.exif, '$.Photo.OffsetTimeDigitized') GLOB '[+-][0-9][0-9]:[0-9][0-9]'
          THEN json_extract(media.exif, '$.Photo.OffsetTimeDigitized')
        WHEN json_extract(media.exif, '$.Photo.OffsetTime') GLOB '[+-][0-9][0-9]:[0-9][0-9]'
          THEN json_extract(media.exif, '$.Photo.OffsetTime')
        ELSE '' END)
  ) WHERE t >= '1900-01-02' AND t <= strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+1 day')
  ORDER BY k LIMIT 1)
WHERE CASE WHEN type = 'image' AND json_valid(exif) THEN
  json_type(exif, '$.Photo.DateTimeOriginal') = 'text' OR json_type(exif, '$.Photo.DateTimeDigitized') = 'text'
  ELSE 0 END;

-- media_scope's copy: the sort value, never NULL (the default only serves the ALTER; every writer sets it).
ALTER TABLE media_scope ADD COLUMN taken_at TEXT NOT NULL DEFAULT '';

UPDATE media_scope SET taken_at = coalesce(
  (SELECT m.taken_at FROM media m WHERE m.id = lower(hex(media_scope.item))), created_at);

CREATE INDEX media_scope_taken ON media_scope(scope, lvl, taken_at, item, type, created_at);

-- The triggers of migration 017 that copy the sort keys, with taken_at.
DROP TRIGGER media_scope_insert;
DROP TRIGGER media_scope_live;
DROP TRIGGER media_scope_keys;
DROP TRIGGER media_scope_move;

CREATE TRIGGER media_scope_insert AFTER INSERT ON media
WHEN NEW.status = 'active' AND NEW.is_current = 1 AND unhex(NEW.id) IS NOT NULL AND unhex(replace(NEW.parent_path, '.', '')) IS NOT NULL BEGIN
  INSERT INTO media_scope (scope, lvl, item, type, created_at, name, description, prompt, taken_at)
  SELECT unhex(a.value), 0, unhex(NEW.id), NEW.type, NEW.created_at, NEW.name, NEW.description, NEW.prompt,
    coalesce(NEW.taken_at, NEW.created_at)
    FROM json_each('["' || replace(NEW.parent_path, '.', '","') || '"]') a
  UNION ALL
  SELECT unhex(substr(NEW.parent_path, -32)), 1, unhex(NEW.id), NEW.type, NEW.created_at, NEW.name,
    NEW.description, NEW.prompt, coalesce(NEW.taken_at, NEW.created_at);
END;

CREATE TRIGGER media_scope_live AFTER UPDATE OF status, is_current ON media
WHEN (OLD.status = 'active' AND OLD.is_current = 1) != (NEW.status = 'active' AND NEW.is_current = 1)
  AND unhex(NEW.id) IS NOT NULL AND unhex(replace(NEW.parent_path, '.', '')) IS NOT NULL BEGIN
  DELETE FROM media_scope WHERE item = unhex(OLD.id);
  INSERT INTO media_scope (scope, lvl, item, type, created_at, name, description, prompt, taken_at)
  SELECT unhex(a.value), 0, unhex(NEW.id), NEW.type, NEW.created_at, NEW.name, NEW.description, NEW.prompt,
    coalesce(NEW.taken_at, NEW.created_at)
    FROM json_each('["' || replace(NEW.parent_path, '.', '","') || '"]') a
    WHERE NEW.status = 'active' AND NEW.is_current = 1
  UNION ALL
  SELECT unhex(substr(NEW.parent_path, -32)), 1, unhex(NEW.id), NEW.type, NEW.created_at, NEW.name,
    NEW.description, NEW.prompt, coalesce(NEW.taken_at, NEW.created_at)
    WHERE NEW.status = 'active' AND NEW.is_current = 1;
END;

CREATE TRIGGER media_scope_keys AFTER UPDATE OF type, created_at, name, description, prompt, taken_at ON media
WHEN OLD.status = 'active' AND OLD.is_current = 1 AND NEW.status = 'active' AND NEW.is_current = 1
  AND (OLD.type IS NOT NEW.type OR OLD.created_at IS NOT NEW.created_at OR OLD.name IS NOT NEW.name
    OR OLD.description IS NOT NEW.description OR OLD.prompt IS NOT NEW.prompt
    OR OLD.taken_at IS NOT NEW.taken_at) BEGIN
  UPDATE media_scope SET type = NEW.type, created_at = NEW.created_at, name = NEW.name,
    description = NEW.description, prompt = NEW.prompt, taken_at = coalesce(NEW.taken_at, NEW.created_at)
  WHERE item = unhex(NEW.id);
END;

CREATE TRIGGER media_scope_move AFTER UPDATE OF parent_path ON media
WHEN OLD.parent_path != NEW.parent_path
  AND OLD.status = 'active' AND OLD.is_current = 1 AND NEW.status = 'active' AND NEW.is_current = 1
  AND NOT EXISTS (SELECT 1 FROM media_scope_bulk) AND unhex(NEW.id) IS NOT NULL AND unhex(replace(NEW.parent_path, '.', '')) IS NOT NULL BEGIN
  DELETE FROM media_scope WHERE item = unhex(NEW.id) AND (
    (lvl = 1 AND scope != unhex(substr(NEW.parent_path, -32)))
    OR (lvl = 0 AND scope NOT IN (
      SELECT unhex(value) FROM json_each('["' || replace(NEW.parent_path, '.', '","') || '"]'))));
  INSERT OR IGNORE INTO media_scope (scope, lvl, item, type, created_at, name, description, prompt, taken_at)
  SELECT unhex(a.value), 0, unhex(NEW.id), NEW.type, NEW.created_at, NEW.name, NEW.description, NEW.prompt,
    coalesce(NEW.taken_at, NEW.created_at)
    FROM json_each('["' || replace(NEW.parent_path, '.', '","') || '"]') a
  UNION ALL
  SELECT unhex(substr(NEW.parent_path, -32)), 1, unhex(NEW.id), NEW.type, NEW.created_at, NEW.name,
    NEW.description, NEW.prompt, coalesce(NEW.taken_at, NEW.created_at);
END;
