-- Albums and share links (issue 28, features/share).
-- An album: a named, ordered set of items of one collection; items are held by their root id (media.root_id),
-- so an edit's new current version stays in the album. `position` orders them (gaps allowed).
CREATE TABLE albums (
  id              text PRIMARY KEY,
  dataset_id      text NOT NULL REFERENCES collections(id),
  organization_id text NOT NULL REFERENCES organizations(id),
  name            text NOT NULL,
  cover_media_id  text,
  created_by      text NOT NULL,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL
);
CREATE INDEX albums_collection ON albums(dataset_id, updated_at);

CREATE TABLE album_items (
  album_id text NOT NULL REFERENCES albums(id) ON DELETE CASCADE,
  media_id text NOT NULL,
  position bigint NOT NULL,
  added_at timestamptz NOT NULL,
  PRIMARY KEY (album_id, media_id)
);
CREATE INDEX album_items_order ON album_items(album_id, position);
CREATE INDEX album_items_media ON album_items(media_id);

-- A share link: the token is stored only as its sha256 (token_hash); password_hash is an scrypt PHC string.
-- kind 'album' (target_id: the album), 'folder' (target_id: the folder's media id, NULL: the collection root;
-- live: new items appear), 'selection' (share_link_items: fixed root ids).
CREATE TABLE share_links (
  id                text PRIMARY KEY,
  organization_id   text NOT NULL REFERENCES organizations(id),
  dataset_id        text NOT NULL REFERENCES collections(id),
  kind              text NOT NULL CHECK (kind IN ('album', 'folder', 'selection')),
  target_id         text,
  token_hash        text NOT NULL UNIQUE,
  password_hash     text,
  expires_at        timestamptz,
  can_download      boolean NOT NULL DEFAULT false,
  can_upload        boolean NOT NULL DEFAULT false,
  show_organization boolean NOT NULL DEFAULT false,
  name              text NOT NULL,
  view_count        bigint NOT NULL DEFAULT 0,
  created_by        text NOT NULL,
  created_at        timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL,
  revoked_at        timestamptz
);
CREATE INDEX share_links_collection ON share_links(dataset_id, created_at);

CREATE TABLE share_link_items (
  link_id  text NOT NULL REFERENCES share_links(id) ON DELETE CASCADE,
  media_id text NOT NULL,
  position bigint NOT NULL,
  PRIMARY KEY (link_id, media_id)
);
CREATE INDEX share_link_items_order ON share_link_items(link_id, position);

-- Every share action: created, changed, revoked, password lockout, visitor upload. detail: a JSON object.
CREATE TABLE share_audit (
  id              text PRIMARY KEY,
  organization_id text NOT NULL,
  link_id         text,
  action          text NOT NULL,
  actor_user_id   text,
  client_address  text,
  detail          jsonb NOT NULL DEFAULT '{}',
  at              timestamptz NOT NULL
);
CREATE INDEX share_audit_org ON share_audit(organization_id, at);
