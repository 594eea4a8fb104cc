import type { PgDb } from '../../platform/pgDb.js';
import { toFile, toFolder, type FileRow, type FolderRow } from '../sqlite/watchStore.js';
import type { WatchStore } from '../watchStore.js';

/** Watched folders and their file records on PostgreSQL (tables watched_folders, watched_files). */
export function pgWatchStore(db: PgDb): WatchStore {
  const getOne = (id: string) => db.one<FolderRow>(`SELECT * FROM watched_folders WHERE id = $1`, [id]);
  return {
    async add(f) {
      // Inserted unless the (collection, dir) pair exists; then the existing folder is the answer.
      const inserted = await db.one<FolderRow>(
        `INSERT INTO watched_folders (id, dataset_id, organization_id, dir, into_path, mirror_deletions, source,
           created_by, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (dataset_id, dir) DO NOTHING RETURNING *`,
        [
          f.id,
          f.collectionId,
          f.organizationId,
          f.dir,
          f.into,
          f.mirrorDeletions,
          f.source,
          f.createdById,
          f.createdAt,
        ],
      );
      if (inserted) return { folder: toFolder(inserted), created: true };
      const existing = await db.one<FolderRow>(`SELECT * FROM watched_folders WHERE dataset_id = $1 AND dir = $2`, [
        f.collectionId,
        f.dir,
      ]);
      return { folder: toFolder(existing!), created: false };
    },
    async get(id) {
      const row = await getOne(id);
      return row ? toFolder(row) : null;
    },
    async list(collectionId) {
      const rows =
        collectionId === undefined
          ? await db.many<FolderRow>(`SELECT * FROM watched_folders ORDER BY created_at, id`)
          : await db.many<FolderRow>(`SELECT * FROM watched_folders WHERE dataset_id = $1 ORDER BY created_at, id`, [
              collectionId,
            ]);
      return rows.map(toFolder);
    },
    async remove(id) {
      // watched_files go with their folder (ON DELETE CASCADE).
      const result = await db.query(`DELETE FROM watched_folders WHERE id = $1`, [id]);
      return (result.rowCount ?? 0) > 0;
    },
    async updateSettings(id, patch) {
      await db.query(`UPDATE watched_folders SET into_path = $2, mirror_deletions = $3 WHERE id = $1`, [
        id,
        patch.into,
        patch.mirrorDeletions,
      ]);
    },
    async files(watchId) {
      const rows = await db.many<FileRow>(
        `SELECT * FROM watched_files WHERE watch_id = $1 ORDER BY rel_path COLLATE "C"`,
        [watchId],
      );
      return rows.map(toFile);
    },
    async file(watchId, relPath) {
      const row = await db.one<FileRow>(`SELECT * FROM watched_files WHERE watch_id = $1 AND rel_path = $2`, [
        watchId,
        relPath,
      ]);
      return row ? toFile(row) : null;
    },
    async putFile(f) {
      await db.query(
        `INSERT INTO watched_files (watch_id, rel_path, sha256, size_bytes, mtime_ms, media_id, created, error, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now())
         ON CONFLICT (watch_id, rel_path) DO UPDATE SET sha256 = excluded.sha256, size_bytes = excluded.size_bytes,
           mtime_ms = excluded.mtime_ms, media_id = excluded.media_id, created = excluded.created,
           error = excluded.error, updated_at = excluded.updated_at`,
        [f.watchId, f.relPath, f.sha256, f.sizeBytes, f.mtimeMs, f.mediaId, f.created, f.error],
      );
    },
    async removeFile(watchId, relPath) {
      await db.query(`DELETE FROM watched_files WHERE watch_id = $1 AND rel_path = $2`, [watchId, relPath]);
    },
  };
}
