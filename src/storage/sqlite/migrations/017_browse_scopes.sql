-- Browse scopes (issue #17): every listing — one folder level or a whole subtree, any sort key, either
-- direction — is one range of one index, never a sort of the subtree.
--
-- media_scope holds, for each live item (active, current version; folders included), one row per place
-- that lists it:
--   (folder, lvl = 1)   its own folder level (the direct parent: the collection label at the root);
--   (ancestor, lvl = 0) the subtree of every ancestor, the collection label and its own parent included.
-- scope and item are the 16 bytes of the hex labels (unhex): byte order is the hex order, so ties still
-- break by id, in half the space. The sort keys are copies of the media columns; each has an index
-- (scope, lvl, key, item) with type and created_at at the end, so the type and date filters are checked
-- inside the index. Triggers on media keep the rows in step in the writing transaction (inserts, deletes,
-- version switches, renames, moves); triggers on media_scope keep media_scope_counts in step, the live
-- items per (scope, lvl, type): exact totals and folder item counts without counting a subtree.
-- A move touches only the rows of the ancestors it changes: the moved folder and everything beneath
-- keep their scopes (keyed by folder id, not by path).

CREATE TABLE media_scope (
  scope       BLOB NOT NULL,
  lvl         INTEGER NOT NULL,
  item        BLOB NOT NULL,
  type        TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  name        TEXT NOT NULL COLLATE NOCASE,
  description TEXT,
  prompt      TEXT,
  PRIMARY KEY (item, scope, lvl)
) WITHOUT ROWID;

CREATE TABLE media_scope_counts (
  scope BLOB NOT NULL,
  lvl   INTEGER NOT NULL,
  type  TEXT NOT NULL,
  n     INTEGER NOT NULL,
  PRIMARY KEY (scope, lvl, type)
) WITHOUT ROWID;

-- The data of an existing library: in item order (the primary key's), then the indexes built once.
INSERT INTO media_scope (scope, lvl, item, type, created_at, name, description, prompt)
SELECT unhex(a.value), 0, unhex(m.id), m.type, m.created_at, m.name, m.description, m.prompt
  FROM media m, json_each('["' || replace(m.parent_path, '.', '","') || '"]') a
  WHERE m.status = 'active' AND m.is_current = 1 AND unhex(m.id) IS NOT NULL
    AND unhex(replace(m.parent_path, '.', '')) IS NOT NULL
UNION ALL
SELECT unhex(substr(m.parent_path, -32)), 1, unhex(m.id), m.type, m.created_at, m.name, m.description, m.prompt
  FROM media m
  WHERE m.status = 'active' AND m.is_current = 1 AND unhex(m.id) IS NOT NULL
    AND unhex(replace(m.parent_path, '.', '')) IS NOT NULL
ORDER BY 3, 1, 2;

CREATE INDEX media_scope_created ON media_scope(scope, lvl, created_at, item, type);
CREATE INDEX media_scope_name ON media_scope(scope, lvl, name, item, type, created_at);
CREATE INDEX media_scope_type ON media_scope(scope, lvl, type, item, created_at);
CREATE INDEX media_scope_description ON media_scope(scope, lvl, description, item, type, created_at);
CREATE INDEX media_scope_prompt ON media_scope(scope, lvl, prompt, item, type, created_at);

INSERT INTO media_scope_counts (scope, lvl, type, n)
  SELECT scope, lvl, type, count(*) FROM media_scope GROUP BY scope, lvl, type;

-- media_scope_counts follows media_scope.
CREATE TRIGGER media_scope_count_insert AFTER INSERT ON media_scope BEGIN
  INSERT INTO media_scope_counts (scope, lvl, type, n) VALUES (NEW.scope, NEW.lvl, NEW.type, 1)
    ON CONFLICT (scope, lvl, type) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER media_scope_count_delete AFTER DELETE ON media_scope BEGIN
  UPDATE media_scope_counts SET n = n - 1 WHERE scope = OLD.scope AND lvl = OLD.lvl AND type = OLD.type;
END;

CREATE TRIGGER media_scope_count_type AFTER UPDATE OF type ON media_scope WHEN OLD.type != NEW.type BEGIN
  UPDATE media_scope_counts SET n = n - 1 WHERE scope = OLD.scope AND lvl = OLD.lvl AND type = OLD.type;
  INSERT INTO media_scope_counts (scope, lvl, type, n) VALUES (NEW.scope, NEW.lvl, NEW.type, 1)
    ON CONFLICT (scope, lvl, type) DO UPDATE SET n = n + 1;
END;

-- media_scope follows media. A row becomes live: its scopes are added. Ids and path labels are hex (platform/ids);
-- a row written otherwise (a test's raw insert) has no scopes rather than failing the write.
CREATE TRIGGER media_scope_insert AFTER INSERT ON media
WHEN NEW.status = 'active' AND NEW.is_current = 1 AND unhex(NEW.id) IS NOT NULL AND unhex(replace(NEW.parent_path, '.', '')) IS NOT NULL BEGIN
  INSERT INTO media_scope (scope, lvl, item, type, created_at, name, description, prompt)
  SELECT unhex(a.value), 0, unhex(NEW.id), NEW.type, NEW.created_at, NEW.name, NEW.description, NEW.prompt
    FROM json_each('["' || replace(NEW.parent_path, '.', '","') || '"]') a
  UNION ALL
  SELECT unhex(substr(NEW.parent_path, -32)), 1, unhex(NEW.id), NEW.type, NEW.created_at, NEW.name,
    NEW.description, NEW.prompt;
END;

CREATE TRIGGER media_scope_live AFTER UPDATE OF status, is_current ON media
WHEN (OLD.status = 'active' AND OLD.is_current = 1) != (NEW.status = 'active' AND NEW.is_current = 1)
  AND unhex(NEW.id) IS NOT NULL AND unhex(replace(NEW.parent_path, '.', '')) IS NOT NULL BEGIN
  DELETE FROM media_scope WHERE item = unhex(OLD.id);
  INSERT INTO media_scope (scope, lvl, item, type, created_at, name, description, prompt)
  SELECT unhex(a.value), 0, unhex(NEW.id), NEW.type, NEW.created_at, NEW.name, NEW.description, NEW.prompt
    FROM json_each('["' || replace(NEW.parent_path, '.', '","') || '"]') a
    WHERE NEW.status = 'active' AND NEW.is_current = 1
  UNION ALL
  SELECT unhex(substr(NEW.parent_path, -32)), 1, unhex(NEW.id), NEW.type, NEW.created_at, NEW.name,
    NEW.description, NEW.prompt
    WHERE NEW.status = 'active' AND NEW.is_current = 1;
END;

CREATE TRIGGER media_scope_keys AFTER UPDATE OF type, created_at, name, description, prompt ON media
WHEN OLD.status = 'active' AND OLD.is_current = 1 AND NEW.status = 'active' AND NEW.is_current = 1
  AND (OLD.type IS NOT NEW.type OR OLD.created_at IS NOT NEW.created_at OR OLD.name IS NOT NEW.name
    OR OLD.description IS NOT NEW.description OR OLD.prompt IS NOT NEW.prompt) BEGIN
  UPDATE media_scope SET type = NEW.type, created_at = NEW.created_at, name = NEW.name,
    description = NEW.description, prompt = NEW.prompt
  WHERE item = unhex(NEW.id);
END;

-- A move: the scopes the new place lacks go, the new ones come; those both places share stay untouched
-- (for a folder's subtree, everything at and below the moved folder). A folder's move holds a row in
-- media_scope_bulk while it rewrites its subtree's paths and moves the scopes in a few set statements
-- itself (src/storage/sqlite/scopeMove.ts): row by row, this trigger made a big move several times slower.
CREATE TABLE media_scope_bulk (held INTEGER NOT NULL);

CREATE TRIGGER media_scope_move AFTER UPDATE OF parent_path ON media
WHEN OLD.parent_path != NEW.parent_path
  AND OLD.status = 'active' AND OLD.is_current = 1 AND NEW.status = 'active' AND NEW.is_current = 1
  AND NOT EXISTS (SELECT 1 FROM media_scope_bulk) AND unhex(NEW.id) IS NOT NULL AND unhex(replace(NEW.parent_path, '.', '')) IS NOT NULL BEGIN
  DELETE FROM media_scope WHERE item = unhex(NEW.id) AND (
    (lvl = 1 AND scope != unhex(substr(NEW.parent_path, -32)))
    OR (lvl = 0 AND scope NOT IN (
      SELECT unhex(value) FROM json_each('["' || replace(NEW.parent_path, '.', '","') || '"]'))));
  INSERT OR IGNORE INTO media_scope (scope, lvl, item, type, created_at, name, description, prompt)
  SELECT unhex(a.value), 0, unhex(NEW.id), NEW.type, NEW.created_at, NEW.name, NEW.description, NEW.prompt
    FROM json_each('["' || replace(NEW.parent_path, '.', '","') || '"]') a
  UNION ALL
  SELECT unhex(substr(NEW.parent_path, -32)), 1, unhex(NEW.id), NEW.type, NEW.created_at, NEW.name,
    NEW.description, NEW.prompt;
END;

CREATE TRIGGER media_scope_delete AFTER DELETE ON media
WHEN OLD.status = 'active' AND OLD.is_current = 1 BEGIN
  DELETE FROM media_scope WHERE item = unhex(OLD.id);
END;

-- Superseded by media_scope: the listing indexes of migration 001 (each rewritten for every row a move
-- touches) and live_counts (browse read it for one-level and whole-collection totals only). The folder
-- lookup of insertFolder (reuse) keeps the index of live folders (migration 016).
DROP INDEX media_live_children_created;
DROP INDEX media_live_children_name;
DROP INDEX media_live_dataset_created;
DROP INDEX media_live_subtree;

DROP TRIGGER media_live_count_insert;
DROP TRIGGER media_live_count_update;
DROP TRIGGER media_live_count_delete;
DROP TABLE live_counts;
