import Database from 'better-sqlite3';
import { referencedBlobKeys } from '../transfer/verify.js';
import type { Db } from './database.js';

/**
 * SQLite's online backup of the open database into `target`: a consistent copy at one moment while the server
 * goes on reading and writing. Writes through this same connection are carried into the copy as it goes; a
 * write by another connection (another process) restarts the copy at the next step, so a tool running beside
 * the server passes a step big enough to copy everything at once. Then the copy is opened on its own to list
 * the blob keys it references (the query `npm run migrate` checks files with).
 */
export async function backupDatabase(db: Db, target: string, pagesPerStep = 1024): Promise<{ blobKeys: string[] }> {
  await db.backup(target, { progress: () => pagesPerStep });
  // The copy keeps WAL mode in its header; in rollback mode it stands alone as one file (no -wal, no -shm).
  const copy = new Database(target, { fileMustExist: true });
  try {
    copy.pragma('journal_mode = DELETE');
    return { blobKeys: referencedBlobKeys(copy) };
  } finally {
    copy.close();
  }
}
