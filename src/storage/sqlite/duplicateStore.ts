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

/** One page of live images' whole-frame vectors under a model, by item id. */
export const IMAGE_VECTORS_SQL = (p: (n: number) => string) =>
  `SELECT m.id AS media_id, e.vector FROM media m
   JOIN detected_objects o ON o.media_id = m.id AND o.type = 'frame' AND o.status = 'active'
   JOIN object_embeddings e ON e.object_id = o.id AND e.model_id = ${p(1)}
   WHERE m.dataset_id = ${p(2)} AND m.status = 'active' AND m.is_current = ${p(3)} AND m.type = 'image'
     AND m.id > ${p(4)}
   ORDER BY m.id LIMIT ${p(5)}`;

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

/** Rows (media_id, vector) → one vector an item (its first frame object's, should an item have two). */
export function vectorRows(rows: Array<{ media_id: string; vector: Uint8Array }>) {
  const out: Array<{ mediaId: string; vector: Float32Array }> = [];
  for (const r of rows)
    if (out[out.length - 1]?.mediaId !== r.media_id)
      out.push({ mediaId: r.media_id, vector: vectorFromBlob(r.vector) });
  return out;
}

/** Duplicate scans, their groups and dismissals on SQLite (tables duplicate_scans, _groups, _dismissals). */
export function sqliteDuplicateStore(db: Db): DuplicateStore {
  const p = () => '?';
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
    exactGroups: async (collectionId) =>
      groupRows(db.prepare(EXACT_GROUPS_SQL(p)).all(collectionId, 1, collectionId, 1) as never),
    imageVectors: async (collectionId, modelId, afterId, limit) =>
      vectorRows(db.prepare(IMAGE_VECTORS_SQL(p)).all(modelId, collectionId, 1, afterId ?? '', limit) as never),
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
