import { vectorFromBlob } from '../../index/faces/vectorBlob.js';
import type {
  DuplicateDismissal,
  DuplicateGroupRecord,
  DuplicateScanRecord,
  DuplicateStore,
} from '../duplicateStore.js';
import type { Db } from './database.js';

export interface ScanRow {
  dataset_id: string;
  model_id: string | null;
  threshold: number | null;
  items: number;
  scanned_at: string;
}

export const toScan = (r: ScanRow): DuplicateScanRecord => ({
  collectionId: r.dataset_id,
  modelId: r.model_id,
  threshold: r.threshold,
  items: r.items,
  scannedAt: r.scanned_at,
});

export const toGroup = (r: {
  kind: 'exact' | 'near';
  similarity: number;
  media_ids: string;
}): DuplicateGroupRecord => ({
  kind: r.kind,
  similarity: r.similarity,
  mediaIds: JSON.parse(r.media_ids) as string[],
});

export const toDismissal = (r: {
  media_ids: string;
  dismissed_by: string;
  dismissed_at: string;
}): DuplicateDismissal => ({
  mediaIds: JSON.parse(r.media_ids) as string[],
  dismissedById: r.dismissed_by,
  dismissedAt: r.dismissed_at,
});

/** A member list as stored: sorted, JSON. */
export const memberKey = (ids: string[]): string => JSON.stringify([...new Set(ids)].sort());

/** Items sharing their bytes: live, current images and videos of one collection with the same blob key. */
export const EXACT_GROUPS_SQL = (p: (n: number) => string) =>
  `SELECT blob_key, id FROM media
   WHERE dataset_id = ${p(1)} AND status = 'active' AND is_current = ${p(2)} AND type IN ('image', 'video')
     AND blob_key IN (
       SELECT blob_key FROM media
       WHERE dataset_id = ${p(1)} AND status = 'active' AND is_current = ${p(2)} AND type IN ('image', 'video')
         AND blob_key IS NOT NULL
       GROUP BY blob_key HAVING COUNT(*) > 1)
   ORDER BY blob_key, id`;

/**
 * One page of live images' whole-frame vectors under a model, by the embedding's object id: a range of the
 * model's index on object_embeddings (model, similarity model, collection, then object id), each row checked
 * against its object and item.
 */
export const IMAGE_VECTORS_SQL = (p: (n: number) => string) =>
  `SELECT e.object_id, e.media_id, e.vector FROM object_embeddings e
   JOIN detected_objects o ON o.id = e.object_id AND o.type = 'frame' AND o.status = 'active'
   JOIN media m ON m.id = e.media_id AND m.status = 'active' AND m.is_current = ${p(3)} AND m.type = 'image'
   WHERE e.model_id = ${p(1)} AND e.similarity_model = 'objects' AND e.dataset_id = ${p(2)} AND e.object_id > ${p(4)}
   ORDER BY e.object_id LIMIT ${p(5)}`;

/** Rows (key, id) ordered by key → the groups of ids. */
export function groupRows(rows: Array<{ blob_key: string; id: string }>): string[][] {
  const groups: string[][] = [];
  let last: string | null = null;
  for (const r of rows) {
    if (r.blob_key !== last) groups.push([]);
    groups[groups.length - 1].push(r.id);
    last = r.blob_key;
  }
  return groups;
}

/** Rows (object_id, media_id, vector) → pages as the store answers them. */
export const vectorRows = (rows: Array<{ object_id: string; media_id: string; vector: Uint8Array }>) =>
  rows.map((r) => ({ key: r.object_id, mediaId: r.media_id, vector: vectorFromBlob(r.vector) }));

/** Items read a page by exactGroups: a few milliseconds of the event loop each (SQLite answers synchronously). */
const BLOB_PAGE = 1000;

/**
 * exactGroups on SQLite, a page of items at a time in id order with a macrotask turn between pages: one query
 * over a 100,000-item collection held the event loop for over half a second under load (the duplicates scan
 * runs in the server process). The same answer as EXACT_GROUPS_SQL (PostgreSQL's, which does not block it).
 */
async function exactGroupsPaged(db: Db, collectionId: string): Promise<string[][]> {
  const page = db.prepare(
    `SELECT id, blob_key FROM media
     WHERE id > ? AND dataset_id = ? AND status = 'active' AND is_current = 1 AND type IN ('image', 'video')
       AND blob_key IS NOT NULL
     ORDER BY id LIMIT ?`,
  );
  const byKey = new Map<string, string[]>();
  for (let after = ''; ;) {
    const rows = page.all(after, collectionId, BLOB_PAGE) as Array<{ id: string; blob_key: string }>;
    for (const r of rows) {
      const ids = byKey.get(r.blob_key);
      if (ids) ids.push(r.id);
      else byKey.set(r.blob_key, [r.id]);
    }
    if (rows.length < BLOB_PAGE) break;
    after = rows[rows.length - 1].id;
    await new Promise((resolve) => setImmediate(resolve));
  }
  const keys = [...byKey.keys()].filter((k) => byKey.get(k)!.length > 1).sort();
  return keys.map((k) => byKey.get(k)!);
}

/** Duplicate scans, their groups and dismissals on SQLite (tables duplicate_scans, _groups, _dismissals). */
export function sqliteDuplicateStore(db: Db): DuplicateStore {
  const p = (n: number) => `@p${n}`;
  const args = (...values: unknown[]) => Object.fromEntries(values.map((v, i) => [`p${i + 1}`, v]));
  const saveScan = db.transaction((scan: DuplicateScanRecord, groups: DuplicateGroupRecord[]) => {
    db.prepare(`DELETE FROM duplicate_groups WHERE dataset_id = ?`).run(scan.collectionId);
    db.prepare(
      `INSERT INTO duplicate_scans (dataset_id, model_id, threshold, items, scanned_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (dataset_id) DO UPDATE SET model_id = excluded.model_id, threshold = excluded.threshold,
         items = excluded.items, scanned_at = excluded.scanned_at`,
    ).run(scan.collectionId, scan.modelId, scan.threshold, scan.items, scan.scannedAt);
    const insert = db.prepare(
      `INSERT INTO duplicate_groups (dataset_id, ord, kind, similarity, media_ids) VALUES (?, ?, ?, ?, ?)`,
    );
    groups.forEach((g, i) => insert.run(scan.collectionId, i, g.kind, g.similarity, memberKey(g.mediaIds)));
  });
  return {
    exactGroups: (collectionId) => exactGroupsPaged(db, collectionId),
    imageVectors: async (collectionId, modelId, after, limit) =>
      vectorRows(db.prepare(IMAGE_VECTORS_SQL(p)).all(args(modelId, collectionId, 1, after ?? '', limit)) as never),
    saveScan: async (scan, groups) => saveScan(scan, groups),
    async getScan(collectionId) {
      const row = db.prepare(`SELECT * FROM duplicate_scans WHERE dataset_id = ?`).get(collectionId) as
        ScanRow | undefined;
      return row ? toScan(row) : null;
    },
    groups: async (collectionId) =>
      (
        db
          .prepare(`SELECT kind, similarity, media_ids FROM duplicate_groups WHERE dataset_id = ? ORDER BY ord`)
          .all(collectionId) as never[]
      ).map(toGroup),
    async dismiss(collectionId, d) {
      db.prepare(
        `INSERT INTO duplicate_dismissals (dataset_id, media_ids, dismissed_by, dismissed_at) VALUES (?, ?, ?, ?)
         ON CONFLICT DO NOTHING`,
      ).run(collectionId, memberKey(d.mediaIds), d.dismissedById, d.dismissedAt);
    },
    dismissals: async (collectionId) =>
      (
        db
          .prepare(
            `SELECT media_ids, dismissed_by, dismissed_at FROM duplicate_dismissals WHERE dataset_id = ?
             ORDER BY dismissed_at, media_ids`,
          )
          .all(collectionId) as never[]
      ).map(toDismissal),
  };
}
