/**
 * Fills a collection fast for the browser tests and the web bench. 100,000 items through
 * `storage.media.insert` take about 30 s (each insert also writes the text index), so the rows go in
 * with one INSERT … SELECT on the app's own connection: the media table's triggers keep the live
 * counters true and browse reads them as it reads any row. Not indexed for text search, no frames,
 * fake blob keys (the grid shows its placeholders, nothing is decoded).
 */
import type { SqliteStorage } from '../../src/storage/sqlite/index.js';
import type { TestApp } from '../helpers/testApp.js';
import { newMediaId } from '../../src/platform/ids.js';

export interface SeedOptions {
  datasetId: string;
  /** The folder (ltree path) to fill; default the collection root. */
  parentPath?: string;
  count: number;
  /** Item i is named `${prefix}${i padded to 6}.jpg`, every 10th a `.mp4` video; created one minute after item i − 1. */
  prefix?: string;
}

/** Inserts `count` live, ready items in one statement; returns how long it took (ms). */
export async function seedItems(app: TestApp, options: SeedOptions): Promise<number> {
  const { db } = app.app.services.storage as SqliteStorage;
  const me = (await app.request('GET', '/api/me')).body as { userId: string; organizationId: string };
  const parent = options.parentPath ?? options.datasetId.replace(/-/g, '');
  const started = performance.now();
  db.prepare(
    `WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < @count),
     rows AS (SELECT i, lower(hex(randomblob(16))) AS id, i % 10 = 9 AS video FROM seq)
     INSERT INTO media (id, dataset_id, organization_id, path, parent_path, type, name, blob_key, mime_type,
       width, height, duration, size_bytes, exif, metadata, status, processing_status, root_id, is_current,
       created_at, updated_at, created_by)
     SELECT id, @datasetId, @orgId, @parent || '.' || id, @parent, CASE WHEN video THEN 'video' ELSE 'image' END,
       @prefix || printf('%06d', i) || CASE WHEN video THEN '.mp4' ELSE '.jpg' END,
       id || CASE WHEN video THEN '.mp4' ELSE '.jpg' END, CASE WHEN video THEN 'video/mp4' ELSE 'image/jpeg' END,
       4032, 3024, CASE WHEN video THEN 12.5 ELSE NULL END, 1000, '{}', '{}', 'active', 'ready', id, 1,
       strftime('%Y-%m-%dT%H:%M:%fZ', '2024-01-01', '+' || i || ' minutes'),
       strftime('%Y-%m-%dT%H:%M:%fZ', '2024-01-01', '+' || i || ' minutes'), @userId
     FROM rows`,
  ).run({
    count: options.count,
    datasetId: options.datasetId,
    orgId: me.organizationId,
    parent,
    prefix: options.prefix ?? 'IMG_',
    userId: me.userId,
  });
  return performance.now() - started;
}

/** One item through `storage.media.insert` (tags, counters and text index as an upload would leave them). */
export async function insertItem(
  app: TestApp,
  item: {
    datasetId: string;
    parentPath?: string;
    name: string;
    type?: 'image' | 'video';
    processingStatus?: 'pending' | 'processing' | 'ready' | 'failed';
    processingError?: string;
    tags?: Record<string, string[]>;
    /** ISO time (default now). */
    createdAt?: string;
  },
): Promise<string> {
  const storage = app.app.services.storage as SqliteStorage;
  const me = (await app.request('GET', '/api/me')).body as { userId: string; organizationId: string };
  const id = newMediaId();
  const video = item.type === 'video';
  await storage.media.insert(
    {
      id,
      collectionId: item.datasetId,
      organizationId: me.organizationId,
      parentPath: item.parentPath ?? item.datasetId.replace(/-/g, ''),
      type: video ? 'video' : 'image',
      name: item.name,
      blobKey: `${id}.bin`,
      mimeType: video ? 'video/mp4' : 'image/png',
      width: 640,
      height: 480,
      duration: video ? 75 : null,
      sizeBytes: 1000,
      exif: {},
      metadata: item.tags ? { tags: item.tags } : {},
      processingStatus: item.processingStatus ?? 'ready',
      createdById: me.userId,
    },
    [],
  );
  if (item.processingError) await storage.media.setProcessingStatus(id, 'failed', item.processingError);
  if (item.createdAt)
    storage.db
      .prepare(`UPDATE media SET created_at = ?, updated_at = ? WHERE id = ?`)
      .run(item.createdAt, item.createdAt, id);
  return id;
}
