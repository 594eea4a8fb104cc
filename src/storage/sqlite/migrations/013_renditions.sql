-- Small renditions of each frame (src/features/ingest/renditions.ts): WebP, longest side 256 px
-- (`thumbnail_key`, the API's thumbnailUrl) and 768 px (`preview_key`, previewUrl), never enlarged,
-- stored in the content-addressed file store like the frame itself. NULL until the rendition stage of
-- ingest (or the backfill) made them. An item's own thumbnail is its first active frame's: nothing is
-- stored twice.
--
-- They live beside blob_key on purpose: they describe that file, so they follow the frame's lifecycle
-- exactly (kept on soft delete like the frame's file, cleared when a re-extraction gives the frame another
-- file), and the orphan sweep counts them where it counts the frame's file (MediaStore.referencedBlobKeys).

ALTER TABLE frames ADD COLUMN thumbnail_key TEXT;
ALTER TABLE frames ADD COLUMN preview_key TEXT;

-- The orphan sweep asks whether a batch of keys is referenced.
CREATE INDEX frames_thumbnail ON frames(thumbnail_key) WHERE thumbnail_key IS NOT NULL;
CREATE INDEX frames_preview ON frames(preview_key) WHERE preview_key IS NOT NULL;
-- The backfill pages through the items with an active frame still lacking renditions; empty once all have them.
CREATE INDEX frames_without_renditions ON frames(media_id) WHERE thumbnail_key IS NULL AND status = 'active';
