import type { SearchIndexes } from '../../index/searchIndexes.js';
import { pgUsageStore } from './usageStore.js';
import { pgTextIndex } from '../../index/text/postgres/pgTextIndex.js';
import { pgVectorIndex } from '../../index/vector/postgres/pgVectorIndex.js';
import { openPgDb, type PgDb } from '../../platform/pgDb.js';
import type { Storage } from '../storage.js';
import { pgAccountStore } from './accountStore.js';
import { pgAnalysisStore } from './analysisStore.js';
import { pgClusterStore } from './clusterStore.js';
import { pgCollectionStore } from './collectionStore.js';
import { pgEventHub, pgEventLog } from './eventLog.js';
import { pgInviteStore } from './inviteStore.js';
import { pgJobStore } from './jobStore.js';
import { pgJobWakeups } from './jobWakeups.js';
import { tryExclusiveLock } from './exclusiveLock.js';
import { pgListener, type PgListener } from '../../platform/pgListener.js';
import { pgMediaStore } from './mediaStore.js';
import { LIBRARY_MIGRATIONS, migratePg, VECTOR_MIGRATIONS } from './migrate.js';
import { pgSessionStore } from './sessionStore.js';
import { checkServer, migrationStartupError } from './startupCheck.js';
import { pgWatchStore } from './watchStore.js';
import { pgBulkStore } from './bulkStore.js';
import { pgPlaceStore } from './placeStore.js';
import { pgTimelineStore } from './timelineStore.js';
import { pgClusterDismissals } from './clusterDismissals.js';
import { pgDuplicateStore } from './duplicateStore.js';
import { pgAlbumStore, pgShareStore } from './shareStore.js';

export interface PostgresStorage extends Storage {
  /** The pool, for the modules that share the database (jobs wake-ups, tests). */
  db: PgDb;
  /** The search indexes in the same database (pgvector, tsvector); close() closes them too. */
  indexes: SearchIndexes;
  /** Whether vector search is on (pgvector present and not VECTOR_SEARCH=off). */
  vectorSearch: boolean;
  /** The process's one LISTEN connection (event streams, job wake-ups); other caches may subscribe to it. */
  listener: PgListener;
}

export interface PostgresStorageOptions {
  /** The schema of the tables (default `public`); tests use one per store. */
  schema?: string;
  /** False (VECTOR_SEARCH=off): no pgvector needed; search by words, names and places only. Default true. */
  vectorSearch?: boolean;
  /** Pool size (default 10). */
  poolMax?: number;
}

/**
 * The scale-out store: one PostgreSQL database (DATABASE_URL) shared by any number of processes. Migrates
 * first (under an advisory lock, so processes may start together), then builds the stores and indexes.
 */
export async function openPostgresStorage(url: string, options: PostgresStorageOptions = {}): Promise<PostgresStorage> {
  const db = openPgDb(url, { schema: options.schema, max: options.poolMax });
  const vectorSearch = options.vectorSearch ?? true;
  try {
    await checkServer(db, url, vectorSearch);
    await migratePg(db, vectorSearch ? [LIBRARY_MIGRATIONS, VECTOR_MIGRATIONS] : [LIBRARY_MIGRATIONS]);
  } catch (err) {
    await db.close().catch(() => {});
    throw migrationStartupError(err);
  }
  // One listening connection per process: the event streams' and the job runner's wake-ups.
  const listener = pgListener(db);
  const hub = pgEventHub(db, listener);
  const jobWakeups = pgJobWakeups(listener);
  await hub.start();
  return {
    db,
    vectorSearch,
    listener,
    accounts: pgAccountStore(db),
    sessions: pgSessionStore(db),
    invites: pgInviteStore(db),
    collections: pgCollectionStore(db),
    media: pgMediaStore(db, hub),
    analysis: pgAnalysisStore(db, hub),
    clusters: pgClusterStore(db),
    jobs: pgJobStore(db),
    jobWakeups,
    events: pgEventLog(db, hub),
    watches: pgWatchStore(db),
    timeline: pgTimelineStore(db),
    bulk: pgBulkStore(db, hub),
    clusterDismissals: pgClusterDismissals(db),
    duplicates: pgDuplicateStore(db),
    usage: pgUsageStore(db),
    albums: pgAlbumStore(db),
    shares: pgShareStore(db),
    places: pgPlaceStore(db),
    tryExclusiveLock: (name) => tryExclusiveLock(db, name),
    indexes: { vectors: pgVectorIndex(db, { enabled: vectorSearch }), text: pgTextIndex(db) },
    async close() {
      await hub.stop();
      await db.close();
    },
  };
}
