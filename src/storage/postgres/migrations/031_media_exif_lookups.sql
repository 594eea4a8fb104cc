-- Lookups into media.exif (json) by the expressions the media store queries, each partial: only the rows
-- that have the key are in the index.

-- Live Photos: the still and the motion of one carry the same Apple content identifier
-- (findByContentIdentifier, as SQLite's migration 026).
CREATE INDEX media_content_identifier ON media (dataset_id, ((exif -> 'capture' ->> 'contentIdentifier')))
  WHERE (exif -> 'capture' ->> 'contentIdentifier') IS NOT NULL;

-- The files only exif names, for the orphan sweep (referencedBlobKeys): a video's web copy and a Live
-- Photo's movie kept on its still.
CREATE INDEX media_web_video_key ON media (((exif -> 'webVideo' ->> 'key')))
  WHERE type = 'video' AND (exif -> 'webVideo' ->> 'key') IS NOT NULL;
CREATE INDEX media_live_photo_key ON media (((exif -> 'livePhoto' ->> 'key')))
  WHERE type = 'image' AND (exif -> 'livePhoto' ->> 'key') IS NOT NULL;
