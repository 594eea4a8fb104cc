-- Watched folders (ours): a folder on the server's disk whose files are imported into a collection by
-- themselves. `source` says who configured it: 'api' (an admin, through the API) or 'env' (WATCH_DIRS,
-- re-read at every start). `into_path` is the folder-name path inside the collection ('' = the root,
-- else names joined by '/'), created as needed.
CREATE TABLE watched_folders (
  id               TEXT PRIMARY KEY,
  dataset_id       TEXT NOT NULL REFERENCES collections(id),
  organization_id  TEXT NOT NULL REFERENCES organizations(id),
  dir              TEXT NOT NULL,
  into_path        TEXT NOT NULL DEFAULT '',
  mirror_deletions INTEGER NOT NULL DEFAULT 0,
  source           TEXT NOT NULL CHECK (source IN ('api', 'env')),
  created_by       TEXT NOT NULL,
  created_at       TEXT NOT NULL,
  UNIQUE (dataset_id, dir)
);

-- What each watched file became: its last seen size and mtime (a restart skips unchanged files without
-- reading them), its sha256, and the item (media_id; NULL when the file was refused, with `error`).
-- `created` = 1 when the watch made that item (only those are deleted when mirroring deletions; a file
-- whose bytes were already in the collection maps to that item with created = 0).
CREATE TABLE watched_files (
  watch_id   TEXT NOT NULL REFERENCES watched_folders(id) ON DELETE CASCADE,
  rel_path   TEXT NOT NULL,
  sha256     TEXT NOT NULL,
  size_bytes INTEGER NOT NULL,
  mtime_ms   REAL NOT NULL,
  media_id   TEXT,
  created    INTEGER NOT NULL DEFAULT 0,
  error      TEXT,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (watch_id, rel_path)
);
