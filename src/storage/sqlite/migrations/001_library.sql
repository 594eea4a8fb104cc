-- The library: accounts, collections, media (folders are media rows), frames,
-- captions, detected objects, and the tag index.
-- Timestamps are ISO 8601 UTC strings with milliseconds, so they sort as text.

CREATE TABLE settings (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE organizations (
  id            TEXT PRIMARY KEY,
  name          TEXT NOT NULL,
  slug          TEXT NOT NULL UNIQUE,
  storage_bytes INTEGER NOT NULL DEFAULT 0,
  created_at    TEXT NOT NULL
);

CREATE TABLE users (
  id         TEXT PRIMARY KEY,
  email      TEXT NOT NULL UNIQUE,
  name       TEXT NOT NULL,
  created_at TEXT NOT NULL
);

CREATE TABLE memberships (
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  user_id         TEXT NOT NULL REFERENCES users(id),
  role            TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
  created_at      TEXT NOT NULL,
  PRIMARY KEY (organization_id, user_id)
) WITHOUT ROWID;
CREATE INDEX memberships_by_user ON memberships(user_id);

CREATE TABLE api_keys (
  id              TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  user_id         TEXT NOT NULL REFERENCES users(id),
  name            TEXT NOT NULL,
  role            TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
  key_hash        TEXT NOT NULL UNIQUE,
  prefix          TEXT NOT NULL,
  created_at      TEXT NOT NULL,
  revoked_at      TEXT
);
CREATE INDEX api_keys_by_org ON api_keys(organization_id, created_at);

CREATE TABLE collections (
  id              TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  name            TEXT NOT NULL,
  icon            TEXT,
  type            TEXT NOT NULL DEFAULT 'media',
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL,
  created_by      TEXT NOT NULL
);
CREATE INDEX collections_by_org ON collections(organization_id, created_at);

-- Images, videos, folders and derived versions. A row is "live" (shown in
-- listings, counted in tag aggregation) when status = 'active' AND is_current = 1;
-- the partial indexes below cover exactly the live rows.
CREATE TABLE media (
  id                TEXT PRIMARY KEY,
  dataset_id        TEXT NOT NULL REFERENCES collections(id),
  organization_id   TEXT NOT NULL REFERENCES organizations(id),
  path              TEXT NOT NULL UNIQUE,
  parent_path       TEXT NOT NULL,
  type              TEXT NOT NULL CHECK (type IN ('image', 'video', 'folder')),
  name              TEXT NOT NULL,
  blob_key          TEXT,
  mime_type         TEXT,
  width             INTEGER,
  height            INTEGER,
  duration          REAL,
  size_bytes        INTEGER NOT NULL DEFAULT 0,
  exif              TEXT NOT NULL DEFAULT '{}',
  metadata          TEXT NOT NULL DEFAULT '{}',
  -- Copies of metadata.description / metadata.prompt, kept for sorting.
  description       TEXT,
  prompt            TEXT,
  status            TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'deleted')),
  processing_status TEXT NOT NULL CHECK (processing_status IN ('pending', 'processing', 'ready', 'failed')),
  processing_error  TEXT,
  root_id           TEXT NOT NULL,
  is_current        INTEGER NOT NULL DEFAULT 1,
  created_at        TEXT NOT NULL,
  updated_at        TEXT NOT NULL,
  created_by        TEXT NOT NULL,
  updated_by        TEXT,
  deleted_at        TEXT
);
-- One folder level, per sort order.
CREATE INDEX media_live_children_created ON media(parent_path, created_at, id)
  WHERE status = 'active' AND is_current = 1;
CREATE INDEX media_live_children_name ON media(parent_path, name COLLATE NOCASE, id)
  WHERE status = 'active' AND is_current = 1;
-- Whole collection (recursive listing of the root).
CREATE INDEX media_live_dataset_created ON media(dataset_id, created_at, id)
  WHERE status = 'active' AND is_current = 1;
-- Subtrees: a path-prefix range (path > 'p.' AND path < 'p/'), covering the
-- folder count and the newest-first preview pick.
CREATE INDEX media_live_subtree ON media(path, type, created_at)
  WHERE status = 'active' AND is_current = 1;
CREATE INDEX media_versions ON media(root_id, created_at);
CREATE INDEX media_blob ON media(blob_key) WHERE blob_key IS NOT NULL;

CREATE TABLE frames (
  id         TEXT PRIMARY KEY,
  media_id   TEXT NOT NULL REFERENCES media(id),
  timestamp  TEXT NOT NULL,
  seconds    REAL NOT NULL,
  blob_key   TEXT NOT NULL,
  width      INTEGER NOT NULL,
  height     INTEGER NOT NULL,
  status     TEXT NOT NULL DEFAULT 'active',
  metadata   TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  created_by TEXT NOT NULL
);
CREATE INDEX frames_by_media ON frames(media_id, seconds);
CREATE INDEX frames_blob ON frames(blob_key);

CREATE TABLE captions (
  id         TEXT PRIMARY KEY,
  frame_id   TEXT NOT NULL REFERENCES frames(id),
  media_id   TEXT NOT NULL,
  text       TEXT NOT NULL,
  model      TEXT NOT NULL,
  -- 'model' rows are replaced by reprocessing; 'user' rows are the user's and survive it.
  source     TEXT NOT NULL DEFAULT 'model' CHECK (source IN ('model', 'user')),
  status     TEXT NOT NULL DEFAULT 'active',
  metadata   TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  created_by TEXT NOT NULL
);
CREATE INDEX captions_by_frame ON captions(frame_id);
CREATE INDEX captions_by_media ON captions(media_id);

CREATE TABLE detected_objects (
  id         TEXT PRIMARY KEY,
  frame_id   TEXT NOT NULL REFERENCES frames(id),
  media_id   TEXT NOT NULL,
  type       TEXT NOT NULL,
  label      TEXT NOT NULL,
  blob_key   TEXT,
  polygon    TEXT NOT NULL,
  confidence REAL,
  model      TEXT NOT NULL,
  source     TEXT NOT NULL DEFAULT 'model' CHECK (source IN ('model', 'user')),
  status     TEXT NOT NULL DEFAULT 'active',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX objects_by_frame ON detected_objects(frame_id);
CREATE INDEX objects_by_media ON detected_objects(media_id);

-- Tag index: one row per (live item, group, value), written in the same
-- transaction as media.metadata. Filters join it instead of parsing JSON.
CREATE TABLE media_tags (
  media_id   TEXT NOT NULL,
  dataset_id TEXT NOT NULL,
  grp        TEXT NOT NULL,
  value      TEXT NOT NULL,
  PRIMARY KEY (media_id, grp, value)
) WITHOUT ROWID;
CREATE INDEX media_tags_lookup ON media_tags(dataset_id, grp, value, media_id);
CREATE INDEX media_tags_value ON media_tags(dataset_id, value, media_id);

-- Per-collection counts of live items per tag value, kept by triggers, so the
-- /tags aggregation reads a few rows instead of the whole collection.
CREATE TABLE tag_counts (
  dataset_id TEXT NOT NULL,
  grp        TEXT NOT NULL,
  value      TEXT NOT NULL,
  count      INTEGER NOT NULL,
  PRIMARY KEY (dataset_id, grp, value)
) WITHOUT ROWID;

CREATE TRIGGER media_tags_count_insert AFTER INSERT ON media_tags BEGIN
  INSERT INTO tag_counts (dataset_id, grp, value, count) VALUES (NEW.dataset_id, NEW.grp, NEW.value, 1)
  ON CONFLICT (dataset_id, grp, value) DO UPDATE SET count = count + 1;
END;

CREATE TRIGGER media_tags_count_delete AFTER DELETE ON media_tags BEGIN
  UPDATE tag_counts SET count = count - 1
    WHERE dataset_id = OLD.dataset_id AND grp = OLD.grp AND value = OLD.value;
  DELETE FROM tag_counts
    WHERE dataset_id = OLD.dataset_id AND grp = OLD.grp AND value = OLD.value AND count <= 0;
END;
