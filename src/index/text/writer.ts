/**
 * What the relational stores tell the text index as they write, inside their
 * own write transaction, so that the index never disagrees with the tables it
 * indexes (captions, OCR objects, items' names and descriptions, tag values).
 * One call per kind of change the index cares about; every method is safe on
 * rows the index does not hold (a folder, a deleted item, a non-text object):
 * it then does nothing. The SQLite implementation: sqlite/writer.ts.
 *
 * The stores call `reindex*` after writing a row (insert or change) and
 * `drop*` for rows about to be deleted, or, where said, after.
 */
export interface TextIndexWriter {
  /** After an item was inserted or its name or description changed: its own row (name, description) again. */
  reindexItemText(mediaId: string): void;
  /**
   * After items stopped or started being live (status, is_current), changed collection or type: every row of
   * theirs (own text, tags, frames' captions and OCR) goes, and comes back for those now live.
   */
  reindexMedia(mediaIds: string[]): void;
  /** Before these items' tag rows (media_tags) are deleted: their rows go. */
  dropTags(mediaIds: string[]): void;
  /** After a tag row was inserted (not one ignored as a duplicate): its row, when the item is live. */
  addTag(mediaId: string, group: string, value: string): void;
  /** After frames of an item changed status: their captions' and OCR rows go, and come back for active frames. */
  reindexFrames(mediaId: string, frameIds: string[]): void;
  /** After captions were inserted or changed (text, status, frame): their rows again, for the live ones. */
  reindexCaptions(captionIds: string[]): void;
  /** Captions deleted (before or after the DELETE): their rows go. */
  dropCaptions(captionIds: string[]): void;
  /** After objects were inserted or changed (label, status, type, frame): the rows of the live OCR text ones. */
  reindexObjects(objectIds: string[]): void;
  /** Objects deleted (before or after the DELETE): their OCR rows go. */
  dropObjects(objectIds: string[]): void;
}
