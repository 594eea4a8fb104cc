-- Albums and share links (issue 28, features/share).
-- An album: a named, ordered set of items of one collection; items are held by their root id (media.root_id),
-- so an edit's new current version stays in the album. `position` orders them (gaps allowed).
CREATE TABLE albums (
  id              TEXT PRIMARY KEY,
  dataset_id      TEXT NOT NULL REFERENCES collections(id),
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  name            TEXT NOT NULL,
  cover_media_id  TEXT,
  created_by      TEXT NOT NULL,
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL
);
CREATE INDEX albums_collection ON albums(dataset_id, updated_at);

CREATE TABLE album_items (
  album_id TEXT NOT NULL REFERENCES albums(id) ON DELETE CASCADE,
  media_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  added_at TEXT NOT NULL,
  PRIMARY KEY (album_id, media_id)
);
CREATE INDEX album_items_order ON album_items(album_id, position);
CREATE INDEX album_items_media ON album_items(media_id);

-- A share link: the token is stored only as its sha256 (token_hash); password_hash is an scrypt PHC string.
-- kind 'album' (target_id: the album), 'folder' (target_id: the folder's media id, NULL: the collection root;
-- live: new items appear), 'selection' (share_link_items: fixed root ids).
CREATE TABLE share_links (
  id                TEXT PRIMARY KEY,
  organization_id   TEXT NOT NULL REFERENCES organizations(id),
  dataset_id        TEXT NOT NULL REFERENCES collections(id),
  kind              TEXT NOT NULL CHECK (kind IN ('album', 'folder', 'selection')),
  target_id         TEXT,
  token_hash        TEXT NOT NULL UNIQUE,
  password_hash     TEXT,
  expires_at        TEXT,
  can_download      INTEGER NOT NULL DEFAULT 0,
  can_upload        INTEGER NOT NULL DEFAULT 0,
  show_organization INTEGER NOT NULL DEFAULT 0,
  name              TEXT NOT NULL,
  view_count        INTEGER NOT NULL DEFAULT 0,
  created_by        TEXT NOT NULL,
  created_at        TEXT NOT NULL,
  updated_at        TEXT NOT NULL,
  revoked_at        TEXT
);
CREATE INDEX share_links_collection ON share_links(dataset_id, created_at);

CREATE TABLE share_link_items (
  link_id  TEXT NOT NULL REFERENCES share_links(id) ON DELETE CASCADE,
  media_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  PRIMARY KEY (link_id, media_id)
);
CREATE INDEX share_link_items_order ON share_link_items(link_id, position);

-- Every share action: created, changed, revoked, password lockout, visitor upload. detail: a JSON object.
CREATE TABLE share_audit (
  id              TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL,
  link_id         TEXT,
  action          TEXT NOT NULL,
  actor_user_id   TEXT,
  client_address  TEXT,
  detail          TEXT NOT NULL DEFAULT '{}',
  at              TEXT NOT NULL
);
CREATE INDEX share_audit_org ON share_audit(organization_id, at);
