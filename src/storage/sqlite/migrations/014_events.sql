-- The event log behind GET /api/events (src/features/events): what happened to the items of an
-- organization (created, processing status, thumbnail made, deleted) and the progress of its background
-- jobs, in the order it happened. The stores append an item's event in the same transaction as the change
-- it reports (src/storage/sqlite/eventLog.ts), so a reader never sees one without the other.
--
-- `id` is the Server-Sent Events id a client resumes from (Last-Event-ID): AUTOINCREMENT, so an id is never
-- reused, not even after trimming emptied the table. Trimming (by age and by count, periodically) deletes a
-- prefix of ids only, so the log always holds a contiguous run: a client whose last id is older than the
-- first one held is told to reload instead of being handed a log with a hole.

CREATE TABLE events (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  organization_id TEXT NOT NULL,
  -- The collection of the item (dataset_id as everywhere, see SCHEMA.md); NULL for organization-wide events.
  dataset_id      TEXT,
  media_id        TEXT,
  -- media.created, media.status, media.thumbnail, media.deleted, job.progress
  type            TEXT NOT NULL,
  -- The event's own fields as JSON (status, reason, path, …).
  data            TEXT NOT NULL DEFAULT '{}',
  created_at      TEXT NOT NULL
);
-- A stream reads its organization's events after the last id it sent.
CREATE INDEX events_by_org ON events(organization_id, id);
-- Trimming by age.
CREATE INDEX events_by_time ON events(created_at);
