-- Favourites, archive and trash (issue #27), as SQLite's migration 027 (src/storage/sqlite/SCHEMA.md):
-- media.favorite / media.archived (each version of an item carries its flags), media.trash_id (the trash
-- entry a deleted row belongs to: the id of the item or folder the delete named) and `trash`, one row per
-- entry with when, by whom and where (the folders it was in, by id and name, outermost first). The listings
-- test the flags per row (browseFilter.ts); favourites are few, so a partial index finds them.
ALTER TABLE media ADD COLUMN favorite boolean NOT NULL DEFAULT false;
ALTER TABLE media ADD COLUMN archived boolean NOT NULL DEFAULT false;
ALTER TABLE media ADD COLUMN trash_id text;
CREATE INDEX media_trash ON media (trash_id) WHERE trash_id IS NOT NULL;
CREATE INDEX media_favorites ON media (dataset_id, id) WHERE favorite AND status = 'active' AND is_current;

CREATE TABLE trash (
  id              text PRIMARY KEY,
  dataset_id      text NOT NULL,
  organization_id text NOT NULL,
  deleted_at      timestamptz NOT NULL,
  deleted_by      text NOT NULL,
  location        json NOT NULL DEFAULT '[]'
);
CREATE INDEX trash_by_collection ON trash (dataset_id, deleted_at, id);
CREATE INDEX trash_by_age ON trash (deleted_at);
