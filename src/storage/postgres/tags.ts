import type { PgRunner } from '../../platform/pgDb.js';
import { tagsOf } from '../sqlite/tagIndex.js';
import type { Metadata } from '../types.js';

/**
 * Keeps media_tags in step with one item's metadata.tags, inside the transaction that writes the metadata
 * (or changes whether the item is live), so the index never disagrees with the document. Only live items
 * have tag rows. The text index hears of the rows through its own triggers on media_tags.
 */
export async function syncTags(
  tx: PgRunner,
  mediaId: string,
  collectionId: string,
  live: boolean,
  metadata: Metadata | null,
): Promise<void> {
  await tx.query(`DELETE FROM media_tags WHERE media_id = $1`, [mediaId]);
  if (!live || !metadata) return;
  const groups: string[] = [];
  const values: string[] = [];
  for (const [group, list] of Object.entries(tagsOf(metadata))) {
    for (const value of list) {
      groups.push(group);
      values.push(value);
    }
  }
  if (groups.length === 0) return;
  // One statement for every tag; a value twice in a group is one row.
  await tx.query(
    `INSERT INTO media_tags (media_id, dataset_id, grp, value)
     SELECT $1, $2, g, v FROM unnest($3::text[], $4::text[]) AS t(g, v)
     ON CONFLICT DO NOTHING`,
    [mediaId, collectionId, groups, values],
  );
}

/** Removes the tag rows of many items at once (they stopped being live). */
export async function dropTags(tx: PgRunner, mediaIds: string[]): Promise<void> {
  if (mediaIds.length === 0) return;
  await tx.query(`DELETE FROM media_tags WHERE media_id = ANY($1::text[])`, [mediaIds]);
}

/**
 * MediaStore.tagGroups: the distinct (group, value) pairs of a collection's live items, in byte order. A
 * loose index scan over media_tags_lookup (dataset_id, grp, value, media_id): each step jumps to the next
 * pair, so the cost grows with the number of distinct pairs, not of tagged items (PostgreSQL before 18 has
 * no skip scan of its own), and no counter row is shared by concurrent writers.
 */
export async function tagGroups(q: PgRunner, collectionId: string): Promise<Record<string, string[]>> {
  const rows = await q.many<{ grp: string; value: string }>(
    `WITH RECURSIVE pairs AS (
       (SELECT grp, value FROM media_tags WHERE dataset_id = $1 ORDER BY grp, value LIMIT 1)
       UNION ALL
       SELECT next.grp, next.value FROM pairs p, LATERAL (
         SELECT grp, value FROM media_tags
         WHERE dataset_id = $1 AND (grp, value) > (p.grp, p.value)
         ORDER BY grp, value LIMIT 1
       ) next
     )
     SELECT grp, value FROM pairs ORDER BY grp COLLATE "C", value COLLATE "C"`,
    [collectionId],
  );
  // Group names are user strings (`constructor`, `__proto__`): gathered in a Map, then own properties.
  const out = new Map<string, string[]>();
  for (const row of rows) {
    const values = out.get(row.grp);
    if (values) values.push(row.value);
    else out.set(row.grp, [row.value]);
  }
  return Object.fromEntries(out);
}
