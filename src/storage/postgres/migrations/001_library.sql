-- The relational schema on PostgreSQL: the same tables and column names as SQLite's (src/storage/sqlite/
-- SCHEMA.md), in PostgreSQL's types. Not carried over: SQLite's own speed structures (media_scope,
-- bitmaps, ranks, live_counts): PostgreSQL's btree, GIN and GiST indexes serve browse instead.
-- Numbering: later migrations take the range of the part they belong to (010 accounts, 020 jobs and
-- events, 030 media, 040 analysis and clusters, 050 text index); the vector index has a set of its own
-- (src/index/vector/postgres/migrations), since it needs the `vector` extension.

-- In public, so that every schema (search_path `<schema>, public`) sees its types.
CREATE EXTENSION IF NOT EXISTS ltree WITH SCHEMA public;

CREATE TABLE settings (
  key   text PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE organizations (
  id                text PRIMARY KEY,
  name              text NOT NULL,
  slug              text NOT NULL UNIQUE,
  storage_bytes     bigint NOT NULL DEFAULT 0,
  created_at        timestamptz NOT NULL,
  created_by_key_id text
);

CREATE TABLE users (
  id            text PRIMARY KEY,
  email         text NOT NULL UNIQUE,
  name          text NOT NULL,
  created_at    timestamptz NOT NULL,
  password_hash text
);
CREATE INDEX users_by_email_lower ON users (lower(email));

CREATE TABLE memberships (
  organization_id text NOT NULL REFERENCES organizations(id),
  user_id         text NOT NULL REFERENCES users(id),
  role            text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
  created_at      timestamptz NOT NULL,
  PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX memberships_by_user ON memberships (user_id);

CREATE TABLE api_keys (
  id              text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id),
  user_id         text NOT NULL REFERENCES users(id),
  name            text NOT NULL,
  role            text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
  key_hash        text NOT NULL UNIQUE,
  prefix          text NOT NULL,
  created_at      timestamptz NOT NULL,
  revoked_at      timestamptz
);
CREATE INDEX api_keys_by_org ON api_keys (organization_id, created_at);

CREATE TABLE sessions (
  id              text PRIMARY KEY,
  user_id         text NOT NULL REFERENCES users(id),
  organization_id text NOT NULL REFERENCES organizations(id),
  secret_hash     text NOT NULL UNIQUE,
  csrf_token      text NOT NULL,
  created_at      timestamptz NOT NULL,
  last_seen_at    timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL,
  revoked_at      timestamptz,
  user_agent      text,
  ip              text
);
CREATE INDEX sessions_by_user ON sessions (user_id, created_at);

CREATE TABLE invites (
  id              text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id),
  email           text NOT NULL,
  role            text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
  token_hash      text NOT NULL UNIQUE,
  invited_by      text NOT NULL REFERENCES users(id),
  created_at      timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL,
  accepted_at     timestamptz,
  accepted_by     text REFERENCES users(id),
  revoked_at      timestamptz
);
CREATE INDEX invites_by_org ON invites (organization_id, created_at);

CREATE TABLE login_failures (
  email text NOT NULL,
  at    timestamptz NOT NULL
);
CREATE INDEX login_failures_by_email ON login_failures (email, at);
CREATE INDEX login_failures_by_at ON login_failures (at);

CREATE TABLE collections (
  id              text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id),
  name            text NOT NULL,
  icon            text,
  type            text NOT NULL DEFAULT 'media',
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL,
  created_by      text NOT NULL
);
CREATE INDEX collections_by_org ON collections (organization_id, created_at);

-- path and parent_path are ltree: `<collection>.<folder>….<item>`, 32-hex labels. A subtree is `path <@ $1`.
-- exif and metadata are json (not jsonb): the document comes back with its keys in the order written.
CREATE TABLE media (
  id                text PRIMARY KEY,
  dataset_id        text NOT NULL REFERENCES collections(id),
  organization_id   text NOT NULL REFERENCES organizations(id),
  path              ltree NOT NULL UNIQUE,
  parent_path       ltree NOT NULL,
  type              text NOT NULL CHECK (type IN ('image', 'video', 'folder')),
  name              text NOT NULL,
  blob_key          text,
  mime_type         text,
  width             integer,
  height            integer,
  duration          double precision,
  size_bytes        bigint NOT NULL DEFAULT 0,
  exif              json NOT NULL DEFAULT '{}',
  metadata          json NOT NULL DEFAULT '{}',
  description       text,
  prompt            text,
  status            text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'deleted')),
  processing_status text NOT NULL CHECK (processing_status IN ('pending', 'processing', 'ready', 'failed')),
  processing_error  text,
  root_id           text NOT NULL,
  is_current        boolean NOT NULL DEFAULT true,
  created_at        timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL,
  created_by        text NOT NULL,
  updated_by        text,
  deleted_at        timestamptz,
  -- The capture time as the item states it (ISO text, as SQLite keeps it); null when unknown.
  taken_at          text
);
CREATE INDEX media_root ON media (root_id);
CREATE INDEX media_blob ON media (blob_key);
CREATE INDEX media_unfinished ON media (id) WHERE processing_status IN ('pending', 'processing') AND status = 'active';

CREATE TABLE media_tags (
  media_id   text NOT NULL,
  dataset_id text NOT NULL,
  grp        text NOT NULL,
  value      text NOT NULL,
  PRIMARY KEY (media_id, grp, value)
);
CREATE INDEX media_tags_lookup ON media_tags (dataset_id, grp, value, media_id);
CREATE INDEX media_tags_value ON media_tags (dataset_id, value, media_id);

CREATE TABLE frames (
  id            text PRIMARY KEY,
  media_id      text NOT NULL REFERENCES media(id),
  timestamp     text NOT NULL,
  seconds       double precision NOT NULL,
  blob_key      text NOT NULL,
  width         integer NOT NULL,
  height        integer NOT NULL,
  status        text NOT NULL DEFAULT 'active',
  metadata      json NOT NULL DEFAULT '{}',
  created_at    timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL,
  created_by    text NOT NULL,
  thumbnail_key text,
  preview_key   text
);
CREATE INDEX frames_by_media ON frames (media_id, seconds);
CREATE INDEX frames_blob ON frames (blob_key);
CREATE INDEX frames_thumbnail ON frames (thumbnail_key) WHERE thumbnail_key IS NOT NULL;
CREATE INDEX frames_preview ON frames (preview_key) WHERE preview_key IS NOT NULL;
CREATE INDEX frames_without_renditions ON frames (media_id) WHERE thumbnail_key IS NULL AND status = 'active';

CREATE TABLE captions (
  id         text PRIMARY KEY,
  frame_id   text NOT NULL REFERENCES frames(id),
  media_id   text NOT NULL,
  text       text NOT NULL,
  model      text NOT NULL,
  source     text NOT NULL DEFAULT 'model' CHECK (source IN ('model', 'user')),
  status     text NOT NULL DEFAULT 'active',
  metadata   json NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  created_by text NOT NULL
);
CREATE INDEX captions_by_frame ON captions (frame_id);
CREATE INDEX captions_by_media ON captions (media_id);

CREATE TABLE detected_objects (
  id               text PRIMARY KEY,
  frame_id         text NOT NULL REFERENCES frames(id),
  media_id         text NOT NULL,
  type             text NOT NULL,
  label            text NOT NULL,
  blob_key         text,
  polygon          json NOT NULL,
  confidence       double precision,
  model            text NOT NULL,
  source           text NOT NULL DEFAULT 'model' CHECK (source IN ('model', 'user')),
  status           text NOT NULL DEFAULT 'active',
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  similarity_model text
);
CREATE INDEX objects_by_frame ON detected_objects (frame_id);
CREATE INDEX objects_by_media ON detected_objects (media_id);
CREATE INDEX objects_blob ON detected_objects (blob_key) WHERE blob_key IS NOT NULL;

-- The source vectors (float32 little-endian, as SQLite's BLOB). The pgvector index is built from them
-- by the vector migration set; a server without pgvector still keeps every embedding here.
CREATE TABLE object_embeddings (
  object_id        text NOT NULL,
  model_id         text NOT NULL,
  similarity_model text NOT NULL,
  media_id         text NOT NULL,
  dataset_id       text NOT NULL,
  dims             integer NOT NULL,
  vector           bytea NOT NULL,
  created_at       timestamptz NOT NULL,
  PRIMARY KEY (object_id, model_id)
);
CREATE INDEX object_embeddings_by_media ON object_embeddings (media_id);
CREATE INDEX object_embeddings_by_model ON object_embeddings (model_id, similarity_model, dataset_id);

CREATE TABLE media_stages (
  media_id   text NOT NULL,
  stage      text NOT NULL,
  state      text NOT NULL CHECK (state IN ('done', 'waiting', 'off')),
  model      text,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (media_id, stage)
);
CREATE INDEX media_stages_waiting ON media_stages (model, media_id) WHERE state = 'waiting';

CREATE TABLE jobs (
  id               bigserial PRIMARY KEY,
  type             text NOT NULL,
  payload          json NOT NULL DEFAULT '{}',
  dedupe_key       text,
  priority         integer NOT NULL DEFAULT 0,
  status           text NOT NULL DEFAULT 'queued'
                   CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  attempts         integer NOT NULL DEFAULT 0,
  max_attempts     integer NOT NULL DEFAULT 5 CHECK (max_attempts >= 1),
  run_after        timestamptz NOT NULL,
  lease_owner      text,
  lease_expires_at timestamptz,
  last_error       text,
  progress         json,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  started_at       timestamptz,
  finished_at      timestamptz
);
CREATE INDEX jobs_claim ON jobs (status, priority, run_after, id);
CREATE INDEX jobs_leases ON jobs (lease_expires_at) WHERE status = 'running';
CREATE UNIQUE INDEX jobs_dedupe ON jobs (type, dedupe_key)
  WHERE dedupe_key IS NOT NULL AND status IN ('queued', 'running');
CREATE INDEX jobs_by_status ON jobs (status, id);

CREATE TABLE events (
  id              bigserial PRIMARY KEY,
  organization_id text NOT NULL,
  dataset_id      text,
  media_id        text,
  type            text NOT NULL,
  data            json NOT NULL DEFAULT '{}',
  created_at      timestamptz NOT NULL
);
CREATE INDEX events_by_org ON events (organization_id, id);
CREATE INDEX events_by_time ON events (created_at);

CREATE TABLE watched_folders (
  id               text PRIMARY KEY,
  dataset_id       text NOT NULL REFERENCES collections(id),
  organization_id  text NOT NULL REFERENCES organizations(id),
  dir              text NOT NULL,
  into_path        text NOT NULL DEFAULT '',
  mirror_deletions boolean NOT NULL DEFAULT false,
  source           text NOT NULL CHECK (source IN ('api', 'env')),
  created_by       text NOT NULL,
  created_at       timestamptz NOT NULL,
  UNIQUE (dataset_id, dir)
);

CREATE TABLE watched_files (
  watch_id   text NOT NULL REFERENCES watched_folders(id) ON DELETE CASCADE,
  rel_path   text NOT NULL,
  sha256     text NOT NULL,
  size_bytes bigint NOT NULL,
  mtime_ms   double precision NOT NULL,
  media_id   text,
  created    boolean NOT NULL DEFAULT false,
  error      text,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (watch_id, rel_path)
);

-- Face clusters (src/index/faces): centroid and vector_sum are float32 little-endian, as in SQLite.
CREATE TABLE clusters (
  id                 text PRIMARY KEY,
  dataset_id         text NOT NULL,
  model_id           text NOT NULL,
  similarity_model   text NOT NULL DEFAULT 'faces',
  dims               integer NOT NULL,
  centroid           bytea NOT NULL,
  vector_sum         bytea NOT NULL,
  size               integer NOT NULL,
  preview_object_id  text,
  preview_similarity double precision NOT NULL DEFAULT 0,
  dirty              boolean NOT NULL DEFAULT false,
  created_at         timestamptz NOT NULL,
  updated_at         timestamptz NOT NULL
);
CREATE INDEX clusters_by_model ON clusters (dataset_id, model_id);
CREATE INDEX clusters_by_size ON clusters (dataset_id, size DESC, id);
CREATE INDEX clusters_dirty ON clusters (dataset_id) WHERE dirty;

CREATE TABLE cluster_members (
  object_id  text NOT NULL,
  model_id   text NOT NULL,
  cluster_id text NOT NULL,
  media_id   text NOT NULL,
  similarity double precision NOT NULL,
  PRIMARY KEY (object_id, model_id)
);
CREATE INDEX cluster_members_by_cluster ON cluster_members (cluster_id, media_id);

CREATE TABLE cluster_pending (
  seq        bigserial PRIMARY KEY,
  dataset_id text NOT NULL,
  model_id   text NOT NULL,
  object_id  text NOT NULL,
  UNIQUE (object_id, model_id)
);
CREATE INDEX cluster_pending_by_group ON cluster_pending (dataset_id, model_id, seq);
