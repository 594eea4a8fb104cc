/**
 * The trash's records and reads (migration 027 / 060): MediaStore extends TrashReads. The writes the bulk
 * actions share (setFlags, trash, restore) are in storage.ts; softDelete makes an entry too.
 */
import type { MediaRecord } from './types.js';

/** A folder the trashed item was in, as it was named when it was deleted (outermost first). */
export interface TrashPlace {
  id: string;
  name: string;
}

/**
 * One entry of a collection's trash: what one delete took (an item with its versions, or a folder with its
 * subtree), with when, by whom and where it was. The entry's id is the id of the item or folder deleted.
 */
export interface TrashEntry {
  id: string;
  collectionId: string;
  organizationId: string;
  deletedAt: string;
  deletedById: string;
  /** The folders it was in when deleted, outermost first ([] for the collection root). */
  location: TrashPlace[];
  /** The deleted item or folder itself (status `deleted`). */
  item: MediaRecord;
  /** Media rows the entry holds (the item's versions, or the folder with everything beneath). */
  rowCount: number;
  /** The 256 px rendition of the item's first frame (its frames are deleted with it); null for folders or none. */
  thumbnailKey: string | null;
}

export interface TrashReads {
  /** A collection's trash, newest deletion first (ties by id), one page, with the number of entries. */
  listTrash(
    collectionId: string,
    page: { limit: number; offset: number },
  ): Promise<{ entries: TrashEntry[]; total: number }>;
  /** These trash entries (unknown ids left out), in no particular order. */
  trashEntries(ids: string[]): Promise<TrashEntry[]>;
  /**
   * Ids of trash entries deleted before `before` (ISO), oldest first, at most `limit`; of one collection, or
   * of every collection when `collectionId` is null.
   */
  trashBefore(before: string, collectionId: string | null, limit: number): Promise<string[]>;
  /**
   * Removes trash entries for good, in one transaction: their rows (media, frames, captions, objects,
   * embeddings, stages) and the entries. Returns the blob keys those rows referenced: the caller removes the
   * ones no other row references (referencedBlobKeys) after the commit; a crash in between leaves
   * unreferenced files, which the orphan sweep removes (row first, file second: never a row without its file).
   */
  purgeTrash(ids: string[]): Promise<{ purged: number; blobKeys: string[] }>;
}
