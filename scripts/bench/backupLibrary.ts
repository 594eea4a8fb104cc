/**
 * The backup bench's library: `items` images, each an original of `originalBytes` random bytes and a frame of a
 * tenth of that (both real blobs under files/), written through the stores with synchronous=OFF (a bench
 * set-up, not a library to keep).
 */
import { randomBytes, createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LocalBlobStore } from '../../src/files/localBlobStore.js';
import { newMediaId } from '../../src/platform/ids.js';
import { openSqliteStorage, type SqliteStorage } from '../../src/storage/sqlite/index.js';
import type { BrowseQuery } from '../../src/storage/types.js';
import { benchCollection } from './benchCollection.js';

export interface BenchLibrary {
  storage: SqliteStorage;
  blobs: LocalBlobStore;
  collectionId: string;
  root: string;
  /** Adds `n` more items (an incremental backup's new files); returns the bytes they brought. */
  add(n: number): Promise<number>;
  /** A browse of the collection root, a page of 100 (what a grid asks). */
  browse(): BrowseQuery;
}

export async function benchLibrary(dataDir: string, items: number, originalBytes: number): Promise<BenchLibrary> {
  const storage = openSqliteStorage(path.join(dataDir, 'library.db'));
  storage.db.pragma('synchronous = OFF');
  const blobs = new LocalBlobStore(dataDir);
  await blobs.init();
  const { userId, organizationId, collectionId, root } = await benchCollection(storage, 'Bench');
  const blob = (size: number, ext: string) => {
    const bytes = randomBytes(size);
    const key = `${createHash('sha256').update(bytes).digest('hex')}.${ext}`;
    const file = blobs.pathFor(key);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, bytes);
    return key;
  };
  const add = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const id = newMediaId();
      const original = blob(originalBytes, 'jpg');
      const frame = blob(Math.ceil(originalBytes / 10), 'webp');
      await storage.media.insert(
        {
          ...{ id, collectionId, organizationId, parentPath: root, type: 'image', name: `p${i}.jpg` },
          ...{ blobKey: original, mimeType: 'image/jpeg', width: 640, height: 480, duration: null },
          ...{ sizeBytes: originalBytes, exif: {}, metadata: {}, processingStatus: 'ready', createdById: userId },
        },
        [{ id: newMediaId(), timestamp: '0', blobKey: frame, width: 640, height: 480 }],
      );
    }
    return n * (originalBytes + Math.ceil(originalBytes / 10));
  };
  await add(items);
  storage.db.pragma('synchronous = FULL');
  const browse = (): BrowseQuery => ({
    ...{ collectionId, path: root, recursive: false, types: null, createdFrom: null, createdBefore: null },
    ...{ tagFilters: null, tagValues: null, mediaId: null, clusterId: null },
    ...{ sortBy: 'createdAt', sortDirection: 'desc', limit: 100, offset: 0 },
  });
  return { storage, blobs, collectionId, root, add, browse };
}
