import type { TextIndexWriter } from '../../index/text/writer.js';
import type { Metadata } from '../types.js';
import type { Db } from './database.js';

/**
 * Keeps media_tags in step with one item's metadata.tags. Called inside the
 * transaction that writes the metadata (or changes whether the item is live),
 * so the index never disagrees with the document. Tag values are searchable:
 * the text index hears of every tag row deleted and inserted. Triggers on
 * media_tags keep tag_counts in step in turn.
 */
export function syncTags(
  db: Db,
  text: TextIndexWriter,
  mediaId: string,
  collectionId: string,
  live: boolean,
  metadata: Metadata | null,
): void {
  text.dropTags([mediaId]);
  db.prepare(`DELETE FROM media_tags WHERE media_id = ?`).run(mediaId);
  if (!live || !metadata) return;
  const insert = db.prepare(`INSERT OR IGNORE INTO media_tags (media_id, dataset_id, grp, value) VALUES (?, ?, ?, ?)`);
  for (const [group, values] of Object.entries(tagsOf(metadata))) {
    for (const value of values) {
      // A duplicate value (ignored) is already indexed.
      if (insert.run(mediaId, collectionId, group, value).changes > 0) text.addTag(mediaId, group, value);
    }
  }
}

/** Removes the tag rows of many items at once (they stopped being live). */
export function dropTags(db: Db, text: TextIndexWriter, mediaIds: string[]): void {
  if (mediaIds.length === 0) return;
  text.dropTags(mediaIds);
  db.prepare(`DELETE FROM media_tags WHERE media_id IN (SELECT value FROM json_each(?))`).run(JSON.stringify(mediaIds));
}

/** The well-formed part of metadata.tags: group → string values. */
export function tagsOf(metadata: Metadata): Record<string, string[]> {
  const tags = metadata.tags;
  if (!tags || typeof tags !== 'object' || Array.isArray(tags)) return {};
  // Group names are user strings: Object.fromEntries keeps `__proto__` an own property, not a prototype.
  const out: Array<[string, string[]]> = [];
  for (const [group, values] of Object.entries(tags)) {
    if (!Array.isArray(values)) continue;
    const strings = values.filter((v): v is string => typeof v === 'string');
    if (strings.length) out.push([group, strings]);
  }
  return Object.fromEntries(out);
}
