import type { SearchIndexes } from '../../index/searchIndexes.js';
import { sqliteUsageStore } from './usageStore.js';
import { sqliteVectorIndex } from '../../index/vector/sqlite/sqliteVectorIndex.js';
import type { IndexWriters } from '../indexWriters.js';
import type { Storage } from '../storage.js';
import { sqliteAccountStore } from './accountStore.js';
import { sqliteCollectionStore } from './collectionStore.js';
import { openDatabase, type Db } from './database.js';
import { sqliteMediaStore } from './mediaStore.js';
import type { PlannerTuning } from './browsePlan.js';
import { sqliteJobStore } from './jobStore.js';
import { sqliteAnalysisStore } from './analysisStore.js';
import { sqliteClusterStore } from './clusterStore.js';
import { sqliteSessionStore } from './sessionStore.js';
import { sqliteInviteStore } from './inviteStore.js';
import { sqliteEventLog } from './eventLog.js';
import { sqliteWatchStore } from './watchStore.js';
import { sqliteBulkStore } from './bulkStore.js';
import { sqlitePlaceStore } from './placeStore.js';
import { sqliteTimelineStore } from './timelineStore.js';
import { sqliteClusterDismissals } from './clusterDismissals.js';
import { sqliteDuplicateStore } from './duplicateStore.js';
import { sqliteAlbumStore, sqliteShareStore } from './shareStore.js';
import { backupDatabase } from './backup.js';
import { sqliteTextIndex } from '../../index/text/sqlite/textIndex.js';
import { threadedTextIndex, type ThreadedTextIndexOptions } from '../../index/text/sqlite/thread.js';
import { sqliteTextIndexWriter } from '../../index/text/sqlite/writer.js';

export interface SqliteStorage extends Storage {
  /** The raw handle, for the later search and job modules that share the file. */
  db: Db;
  /**
   * The search indexes over the same file, beside the stores (the composition
   * root hands them out as Services.indexes); close() closes them too.
   */
  indexes: SearchIndexes;
}

export interface SqliteStorageOptions {
  /** Where text searches run (textIndexThread.ts). */
  text?: ThreadedTextIndexOptions;
  /** How listings are planned (tests make a small library take a big one's paths). */
  browse?: PlannerTuning;
}

/** The embedded default store: one SQLite file (`:memory:` for throwaway tests). */
export function openSqliteStorage(file: string, options: SqliteStorageOptions = {}): SqliteStorage {
  const db = openDatabase(file);
  // A file's text index may be searched from a worker thread with a connection of its own.
  const text = file === ':memory:' ? null : threadedTextIndex(db, file, options.text);
  const vectors = sqliteVectorIndex(db);
  // Both indexes are written by the stores, inside the transactions that change what they hold.
  const writers: IndexWriters = { vectors: vectors.sync, text: sqliteTextIndexWriter(db) };
  // Item events are appended by the stores inside the transactions of the changes they report.
  const events = sqliteEventLog(db);
  return {
    db,
    accounts: sqliteAccountStore(db),
    sessions: sqliteSessionStore(db),
    invites: sqliteInviteStore(db),
    collections: sqliteCollectionStore(db),
    media: sqliteMediaStore(db, writers, events.writer, options.browse),
    analysis: sqliteAnalysisStore(db, writers, events.writer),
    clusters: sqliteClusterStore(db),
    indexes: { vectors, text: text ?? sqliteTextIndex(db) },
    jobs: sqliteJobStore(db),
    events: events.store,
    watches: sqliteWatchStore(db),
    bulk: sqliteBulkStore(db, writers, events.writer),
    timeline: sqliteTimelineStore(db),
    clusterDismissals: sqliteClusterDismissals(db),
    duplicates: sqliteDuplicateStore(db),
    usage: sqliteUsageStore(db),
    albums: sqliteAlbumStore(db),
    shares: sqliteShareStore(db),
    places: sqlitePlaceStore(db),
    backupTo: (target, options) => backupDatabase(db, target, options?.pagesPerStep),
    async close() {
      await text?.close();
      if (db.open) {
        try {
          db.pragma('wal_checkpoint(TRUNCATE)');
        } catch (err) {
          // A full disk (SQLITE_FULL): the WAL stays as it is, whole, and the next open takes it up.
          if ((err as { code?: string }).code !== 'SQLITE_FULL') throw err;
        }
        db.close();
      }
    },
  };
}
