import type { WatchedFile, WatchedFolder, WatchStore } from '../watchStore.js';
import type { Db } from './database.js';

export interface FolderRow {
  id: string;
  dataset_id: string;
  organization_id: string;
  dir: string;
  into_path: string;
  /** 0/1 on SQLite, a boolean on PostgreSQL. */
  mirror_deletions: number | boolean;
  source: 'api' | 'env';
  created_by: string;
  created_at: string;
}

export interface FileRow {
  watch_id: string;
  rel_path: string;
  sha256: string;
  size_bytes: number;
  mtime_ms: number;
  media_id: string | null;
  /** 0/1 on SQLite, a boolean on PostgreSQL. */
  created: number | boolean;
  error: string | null;
}

export const toFolder = (r: FolderRow): WatchedFolder => ({
  id: r.id,
  collectionId: r.dataset_id,
  organizationId: r.organization_id,
  dir: r.dir,
  into: r.into_path,
  mirrorDeletions: Boolean(r.mirror_deletions),
  source: r.source,
  createdById: r.created_by,
  createdAt: r.created_at,
});

export const toFile = (r: FileRow): WatchedFile => ({
  watchId: r.watch_id,
  relPath: r.rel_path,
  sha256: r.sha256,
  sizeBytes: r.size_bytes,
  mtimeMs: r.mtime_ms,
  mediaId: r.media_id,
  created: Boolean(r.created),
  error: r.error,
});

/** Watched folders and their file records (migration 018). */
export function sqliteWatchStore(db: Db): WatchStore {
  const getOne = db.prepare(`SELECT * FROM watched_folders WHERE id = ?`);
  const byDir = db.prepare(`SELECT * FROM watched_folders WHERE dataset_id = ? AND dir = ?`);
  const insert = db.prepare(
    `INSERT INTO watched_folders (id, dataset_id, organization_id, dir, into_path, mirror_deletions, source,
       created_by, created_at)
     VALUES (@id, @collectionId, @organizationId, @dir, @into, @mirror, @source, @createdById, @createdAt)`,
  );
  const add = db.transaction((f: WatchedFolder) => {
    const existing = byDir.get(f.collectionId, f.dir) as FolderRow | undefined;
    if (existing) return { folder: toFolder(existing), created: false };
    insert.run({ ...f, mirror: f.mirrorDeletions ? 1 : 0 });
    return { folder: toFolder(getOne.get(f.id) as FolderRow), created: true };
  });
  const remove = db.transaction((id: string) => {
    db.prepare(`DELETE FROM watched_files WHERE watch_id = ?`).run(id);
    return db.prepare(`DELETE FROM watched_folders WHERE id = ?`).run(id).changes > 0;
  });
  const getFile = db.prepare(`SELECT * FROM watched_files WHERE watch_id = ? AND rel_path = ?`);
  const upsertFile = db.prepare(
    `INSERT INTO watched_files (watch_id, rel_path, sha256, size_bytes, mtime_ms, media_id, created, error, updated_at)
     VALUES (@watchId, @relPath, @sha256, @sizeBytes, @mtimeMs, @mediaId, @created, @error, @at)
     ON CONFLICT (watch_id, rel_path) DO UPDATE SET sha256 = excluded.sha256, size_bytes = excluded.size_bytes,
       mtime_ms = excluded.mtime_ms, media_id = excluded.media_id, created = excluded.created,
       error = excluded.error, updated_at = excluded.updated_at`,
  );
  return {
    add: async (f) => add(f),
    get: async (id) => {
      const row = getOne.get(id) as FolderRow | undefined;
      return row ? toFolder(row) : null;
    },
    list: async (collectionId) =>
      (collectionId === undefined
        ? (db.prepare(`SELECT * FROM watched_folders ORDER BY created_at, id`).all() as FolderRow[])
        : (db
            .prepare(`SELECT * FROM watched_folders WHERE dataset_id = ? ORDER BY created_at, id`)
            .all(collectionId) as FolderRow[])
      ).map(toFolder),
    remove: async (id) => remove(id),
    updateSettings: async (id, patch) => {
      db.prepare(`UPDATE watched_folders SET into_path = ?, mirror_deletions = ? WHERE id = ?`).run(
        patch.into,
        patch.mirrorDeletions ? 1 : 0,
        id,
      );
    },
    files: async (watchId) =>
      (db.prepare(`SELECT * FROM watched_files WHERE watch_id = ? ORDER BY rel_path`).all(watchId) as FileRow[]).map(
        toFile,
      ),
    file: async (watchId, relPath) => {
      const row = getFile.get(watchId, relPath) as FileRow | undefined;
      return row ? toFile(row) : null;
    },
    putFile: async (f) => {
      upsertFile.run({ ...f, created: f.created ? 1 : 0, at: new Date().toISOString() });
    },
    removeFile: async (watchId, relPath) => {
      db.prepare(`DELETE FROM watched_files WHERE watch_id = ? AND rel_path = ?`).run(watchId, relPath);
    },
  };
}
