-- The text index is kept in step by its writer, called by the stores inside
-- their write transactions (src/index/text/sqlite/writer.ts), no longer by
-- triggers: this drops the triggers of migration 005 on the source tables and
-- the procedure views (with their INSTEAD OF triggers) they wrote to. The
-- index's tables (text_index, text_index_docs), its row counter (008) and the
-- views naming what is indexed (text_index_items, text_index_tags,
-- text_index_captions, text_index_ocr, read by the writer) stay, with their data.

DROP TRIGGER text_index_media_insert;
DROP TRIGGER text_index_media_live;
DROP TRIGGER text_index_media_text;
DROP TRIGGER text_index_tag_insert;
DROP TRIGGER text_index_tag_delete;
DROP TRIGGER text_index_tag_update;
DROP TRIGGER text_index_frame_update;
DROP TRIGGER text_index_caption_insert;
DROP TRIGGER text_index_caption_delete;
DROP TRIGGER text_index_caption_update;
DROP TRIGGER text_index_ocr_insert;
DROP TRIGGER text_index_ocr_delete;
DROP TRIGGER text_index_ocr_update;

-- Dropping a view drops its INSTEAD OF trigger (text_index_add_run, ...).
DROP VIEW text_index_add;
DROP VIEW text_index_add_tag;
DROP VIEW text_index_drop;
DROP VIEW text_index_add_media;
DROP VIEW text_index_drop_media;
DROP VIEW text_index_add_frame;
DROP VIEW text_index_drop_frame;
