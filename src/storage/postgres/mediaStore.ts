/**
 * The media store on PostgreSQL, in parts as on SQLite: the writes of single items (mediaWrites.ts),
 * deletes and moves of subtrees (mediaTree.ts), the batch reads (mediaReads.ts, frameDetails.ts),
 * listings (browse.ts, browseFilter.ts), folders (folders.ts), tags (tags.ts) and versions (versions.ts).
 * The text and vector indexes keep themselves in step by their own triggers on these tables; the events
 * are appended in each write's transaction (appendEvent) and announced through `hub` after its commit.
 */
import type { PgDb } from '../../platform/pgDb.js';
import type { MediaStore } from '../storage.js';
import { pgBlobReferences } from './blobReferencePages.js';
import { pgBrowse } from './browse.js';
import type { PgEventHub } from './eventHub.js';
import { pgFolders } from './folders.js';
import { frameDetails } from './frameDetails.js';
import { mediaContent } from './mediaContent.js';
import { mediaReads } from './mediaReads.js';
import { mediaTree } from './mediaTree.js';
import { mediaWrites } from './mediaWrites.js';
import { tagGroups } from './tags.js';
import { pgVersions } from './versions.js';
import { pgTrash } from './trashStore.js';

/** The media store on PostgreSQL; events it appends in its transactions are announced through `hub`. */
export function pgMediaStore(db: PgDb, hub: PgEventHub): MediaStore {
  return {
    ...mediaWrites(db, hub),
    ...mediaTree(db, hub),
    ...mediaReads(db),
    ...mediaContent(db),
    ...pgBlobReferences(db),
    ...frameDetails(db),
    ...pgBrowse(db),
    ...pgFolders(db),
    ...pgVersions(db, hub),
    ...pgTrash(db, hub),
    tagGroups: (collectionId) => tagGroups(db, collectionId),
  };
}
