-- The media store's listings on PostgreSQL (src/storage/postgres/browse.ts): btree indexes over the live
-- rows (status 'active' and the current version) in each sort order, ties by id, instead of SQLite's
-- media_scope, bitmaps and ranks. One level is a range of (parent_path, key, id); a subtree walks
-- (dataset_id, key, id) testing `path <@ $1`, or, when the subtree is small, reads it through the GiST
-- index on path and sorts it: the planner chooses.
--
-- Sort keys compare as SQLite compares them: bytes (COLLATE "C"), and `name` as NOCASE, which folds ASCII
-- letters only: lower() under the "C" collation folds exactly those (asc_tolower), whatever the database's
-- locale. takenAt is the capture time, or created_at as the ISO text SQLite stores, when unknown.

-- created_at as SQLite stores it ('2026-11-27T08:25:45.123Z'). IMMUTABLE: the format and the zone are
-- fixed here, so it may key an index (to_char itself is only STABLE).
CREATE FUNCTION media_iso(ts timestamptz) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;

-- One level: parent_path = $1.
CREATE INDEX media_level_created ON media (parent_path, created_at, id) WHERE status = 'active' AND is_current;
CREATE INDEX media_level_name ON media (parent_path, lower(name COLLATE "C"), id) WHERE status = 'active' AND is_current;
CREATE INDEX media_level_type ON media (parent_path, (type COLLATE "C"), id) WHERE status = 'active' AND is_current;
CREATE INDEX media_level_description ON media (parent_path, (description COLLATE "C") NULLS FIRST, id)
  WHERE status = 'active' AND is_current;
CREATE INDEX media_level_prompt ON media (parent_path, (prompt COLLATE "C") NULLS FIRST, id)
  WHERE status = 'active' AND is_current;
CREATE INDEX media_level_taken ON media (parent_path, (coalesce(taken_at, media_iso(created_at)) COLLATE "C"), id)
  WHERE status = 'active' AND is_current;

-- The live folders of one level by name (childFolders, insertFolder's reuse), without stepping over items.
CREATE INDEX media_level_folders ON media (parent_path, lower(name COLLATE "C"), id)
  WHERE status = 'active' AND is_current AND type = 'folder';

-- A subtree: path <@ $1 within the collection (the GiST index below finds a small subtree).
CREATE INDEX media_tree_created ON media (dataset_id, created_at, id) WHERE status = 'active' AND is_current;
CREATE INDEX media_tree_name ON media (dataset_id, lower(name COLLATE "C"), id) WHERE status = 'active' AND is_current;
CREATE INDEX media_tree_type ON media (dataset_id, (type COLLATE "C"), id) WHERE status = 'active' AND is_current;
CREATE INDEX media_tree_description ON media (dataset_id, (description COLLATE "C") NULLS FIRST, id)
  WHERE status = 'active' AND is_current;
CREATE INDEX media_tree_prompt ON media (dataset_id, (prompt COLLATE "C") NULLS FIRST, id)
  WHERE status = 'active' AND is_current;
CREATE INDEX media_tree_taken ON media (dataset_id, (coalesce(taken_at, media_iso(created_at)) COLLATE "C"), id)
  WHERE status = 'active' AND is_current;

-- Subtrees, in any status (moves, deletes) or live (listings, folder counts): path <@ $1.
CREATE INDEX media_path_tree ON media USING gist (path);

-- Items by content (findByContent): a blob key is `<sha256>.<ext>`, so the items holding given bytes are
-- the range ['<sha>.', '<sha>/') in byte order ("C"; media_blob has the database's collation).
CREATE INDEX media_blob_bytes ON media ((blob_key COLLATE "C")) WHERE status = 'active' AND type <> 'folder';
