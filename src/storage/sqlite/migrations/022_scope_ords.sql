-- Item numbers in the sort indexes (issue #17). A page of a listing filtered by the browse bitmaps (021) walks
-- a sort index of media_scope and tests each row's item number against the listing's set. With the number
-- in the index entry, that test reads the entry it is on instead of looking the number up in media_ords' key
-- for every row walked.

-- Every live item is numbered already (021 numbered the library, its triggers number new items); to be sure:
INSERT INTO media_ords (item)
  SELECT DISTINCT s.item FROM media_scope s WHERE NOT EXISTS (SELECT 1 FROM media_ords o WHERE o.item = s.item);

-- The indexes are built again below with the number at the end: dropped first, so the fill writes the table only.
DROP INDEX media_scope_created;
DROP INDEX media_scope_name;
DROP INDEX media_scope_type;
DROP INDEX media_scope_description;
DROP INDEX media_scope_prompt;
DROP INDEX media_scope_taken;

-- Never -1 once filled: every writer of media_scope sets it (the default only serves the ALTER).
ALTER TABLE media_scope ADD COLUMN ord INTEGER NOT NULL DEFAULT -1;
UPDATE media_scope SET ord = (SELECT o.ord FROM media_ords o WHERE o.item = media_scope.item);

CREATE INDEX media_scope_created ON media_scope(scope, lvl, created_at, item, type, ord);
CREATE INDEX media_scope_name ON media_scope(scope, lvl, name, item, type, created_at, ord);
CREATE INDEX media_scope_type ON media_scope(scope, lvl, type, item, created_at, ord);
CREATE INDEX media_scope_description ON media_scope(scope, lvl, description, item, type, created_at, ord);
CREATE INDEX media_scope_prompt ON media_scope(scope, lvl, prompt, item, type, created_at, ord);
CREATE INDEX media_scope_taken ON media_scope(scope, lvl, taken_at, item, type, created_at, ord);

-- The triggers of migration 019 that add scope rows: the item is numbered first, and its rows carry the number.
DROP TRIGGER media_scope_insert;
DROP TRIGGER media_scope_live;
DROP TRIGGER media_scope_move;

CREATE TRIGGER media_scope_insert AFTER INSERT ON media
WHEN NEW.status = 'active' AND NEW.is_current = 1 AND unhex(NEW.id) IS NOT NULL AND unhex(replace(NEW.parent_path, '.', '')) IS NOT NULL BEGIN
  INSERT INTO media_ords (item) SELECT unhex(NEW.id) WHERE NOT EXISTS (SELECT 1 FROM media_ords WHERE item = unhex(NEW.id));
  INSERT INTO media_scope (scope, lvl, item, type, created_at, name, description, prompt, taken_at, ord)
  SELECT unhex(a.value), 0, unhex(NEW.id), NEW.type, NEW.created_at, NEW.name, NEW.description, NEW.prompt,
    coalesce(NEW.taken_at, NEW.created_at), o.ord
    FROM json_each('["' || replace(NEW.parent_path, '.', '","') || '"]') a, media_ords o WHERE o.item = unhex(NEW.id)
  UNION ALL
  SELECT unhex(substr(NEW.parent_path, -32)), 1, unhex(NEW.id), NEW.type, NEW.created_at, NEW.name,
    NEW.description, NEW.prompt, coalesce(NEW.taken_at, NEW.created_at), o.ord
    FROM media_ords o WHERE o.item = unhex(NEW.id);
END;

CREATE TRIGGER media_scope_live AFTER UPDATE OF status, is_current ON media
WHEN (OLD.status = 'active' AND OLD.is_current = 1) != (NEW.status = 'active' AND NEW.is_current = 1)
  AND unhex(NEW.id) IS NOT NULL AND unhex(replace(NEW.parent_path, '.', '')) IS NOT NULL BEGIN
  DELETE FROM media_scope WHERE item = unhex(OLD.id);
  INSERT INTO media_ords (item)
    SELECT unhex(NEW.id) WHERE NEW.status = 'active' AND NEW.is_current = 1
      AND NOT EXISTS (SELECT 1 FROM media_ords WHERE item = unhex(NEW.id));
  INSERT INTO media_scope (scope, lvl, item, type, created_at, name, description, prompt, taken_at, ord)
  SELECT unhex(a.value), 0, unhex(NEW.id), NEW.type, NEW.created_at, NEW.name, NEW.description, NEW.prompt,
    coalesce(NEW.taken_at, NEW.created_at), o.ord
    FROM json_each('["' || replace(NEW.parent_path, '.', '","') || '"]') a, media_ords o
    WHERE o.item = unhex(NEW.id) AND NEW.status = 'active' AND NEW.is_current = 1
  UNION ALL
  SELECT unhex(substr(NEW.parent_path, -32)), 1, unhex(NEW.id), NEW.type, NEW.created_at, NEW.name,
    NEW.description, NEW.prompt, coalesce(NEW.taken_at, NEW.created_at), o.ord
    FROM media_ords o WHERE o.item = unhex(NEW.id) AND NEW.status = 'active' AND NEW.is_current = 1;
END;

CREATE TRIGGER media_scope_move AFTER UPDATE OF parent_path ON media
WHEN OLD.parent_path != NEW.parent_path
  AND OLD.status = 'active' AND OLD.is_current = 1 AND NEW.status = 'active' AND NEW.is_current = 1
  AND NOT EXISTS (SELECT 1 FROM media_scope_bulk) AND unhex(NEW.id) IS NOT NULL AND unhex(replace(NEW.parent_path, '.', '')) IS NOT NULL BEGIN
  DELETE FROM media_scope WHERE item = unhex(NEW.id) AND (
    (lvl = 1 AND scope != unhex(substr(NEW.parent_path, -32)))
    OR (lvl = 0 AND scope NOT IN (
      SELECT unhex(value) FROM json_each('["' || replace(NEW.parent_path, '.', '","') || '"]'))));
  INSERT INTO media_ords (item) SELECT unhex(NEW.id) WHERE NOT EXISTS (SELECT 1 FROM media_ords WHERE item = unhex(NEW.id));
  INSERT OR IGNORE INTO media_scope (scope, lvl, item, type, created_at, name, description, prompt, taken_at, ord)
  SELECT unhex(a.value), 0, unhex(NEW.id), NEW.type, NEW.created_at, NEW.name, NEW.description, NEW.prompt,
    coalesce(NEW.taken_at, NEW.created_at), o.ord
    FROM json_each('["' || replace(NEW.parent_path, '.', '","') || '"]') a, media_ords o WHERE o.item = unhex(NEW.id)
  UNION ALL
  SELECT unhex(substr(NEW.parent_path, -32)), 1, unhex(NEW.id), NEW.type, NEW.created_at, NEW.name,
    NEW.description, NEW.prompt, coalesce(NEW.taken_at, NEW.created_at), o.ord
    FROM media_ords o WHERE o.item = unhex(NEW.id);
END;
