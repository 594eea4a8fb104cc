/**
 * The text index tests' fixture: a storage file per test, items written only
 * through the Storage interface (as ingest and the API write them), searches
 * with the result invariants checked, and assertInStep, which proves the index
 * holds exactly the live text after any write.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { newMediaId, newUuid, nowIso, pathLabel } from '../../../src/platform/ids.js';
import type { TextHit, TextIndex, TextSearchQuery } from '../../../src/index/text/textIndex.js';
import { scopeToken } from '../../../src/index/text/sqlite/schema.js';
import { sqliteTextIndex, type SqliteTextIndexOptions } from '../../../src/index/text/sqlite/textIndex.js';
import type { Db } from '../../../src/storage/sqlite/database.js';
import { openSqliteStorage, type SqliteStorage } from '../../../src/storage/sqlite/index.js';
import type { Storage } from '../../../src/storage/storage.js';
import type { Collection, MediaRecord, Metadata, NewObject, Organization, User } from '../../../src/storage/types.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'lumen-text-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
let fileNo = 0;
export const tempDb = () => path.join(tmp, `t${++fileNo}.db`);

// ---------------------------------------------------------------- fixture

/** A library on one engine (SQLite's by default), written through its Storage, and its text index. */
export interface Fx<S extends Storage = SqliteStorage> {
  s: S;
  user: User;
  org: Organization;
  coll: Collection;
  index: TextIndex;
}

export async function open(options: SqliteTextIndexOptions = {}): Promise<Fx> {
  const s = openSqliteStorage(tempDb());
  return { ...(await newLibrary(s)), s, index: sqliteTextIndex(s.db, options) };
}

/** A user, an organization and a collection in `s`. */
export async function newLibrary(s: Storage): Promise<{ user: User; org: Organization; coll: Collection }> {
  const user = await s.accounts.createUser({
    id: newUuid(),
    email: `u-${newUuid()}@example.com`,
    name: 'U',
    createdAt: nowIso(),
  });
  const orgId = newUuid();
  const org = await s.accounts.createOrganization(
    { id: orgId, name: 'Acme', slug: `acme-${orgId.slice(0, 8)}` },
    user.id,
  );
  const coll = await newCollection(s, org.id, user.id);
  return { user, org, coll };
}

export async function newCollection(s: Storage, organizationId: string, userId: string): Promise<Collection> {
  const at = nowIso();
  return s.collections.create({
    id: newUuid(),
    organizationId,
    name: 'Library',
    icon: null,
    type: 'media',
    createdAt: at,
    updatedAt: at,
    createdById: userId,
  });
}

/** A folder in the collection's root, or under `parentPath`. */
export async function newFolder(
  fx: Fx<Storage>,
  name: string,
  parentPath = pathLabel(fx.coll.id),
): Promise<MediaRecord> {
  const { folder } = await fx.s.media.insertFolder(
    {
      id: newMediaId(),
      collectionId: fx.coll.id,
      organizationId: fx.org.id,
      parentPath,
      type: 'folder',
      name,
      blobKey: null,
      mimeType: null,
      width: null,
      height: null,
      duration: null,
      sizeBytes: 0,
      exif: {},
      metadata: {},
      processingStatus: 'ready',
      createdById: fx.user.id,
    },
    false,
  );
  return folder;
}

export interface ItemSpec {
  name?: string;
  metadata?: Metadata;
  /** Per frame: captions and OCR lines. One empty frame by default. */
  frames?: Array<{ captions?: string[]; ocr?: string[] }>;
  coll?: Collection;
  rootId?: string;
  /** The folder the item goes in; the collection's root by default. */
  parentPath?: string;
}

export interface Item {
  id: string;
  frameIds: string[];
}

export const ocrObject = (text: string): NewObject => ({
  id: newMediaId(),
  type: 'text',
  label: text,
  blobKey: null,
  polygon: [
    { x: 0, y: 0 },
    { x: 1, y: 0 },
    { x: 1, y: 1 },
  ],
  confidence: 0.9,
  model: 'ocr-test',
  similarityModel: null,
  embedding: null,
});
export const boxObject = (label: string): NewObject => ({ ...ocrObject(label), type: 'object', model: 'yolo-test' });

export async function addItem(fx: Fx<Storage>, spec: ItemSpec = {}): Promise<Item> {
  const id = newMediaId();
  const coll = spec.coll ?? fx.coll;
  const frames = (spec.frames ?? [{}]).map((_, i) => ({
    id: newMediaId(),
    timestamp: String(i * 2),
    blobKey: `frame-${id}-${i}`,
    width: 64,
    height: 48,
  }));
  await fx.s.media.insert(
    {
      id,
      collectionId: coll.id,
      organizationId: coll.organizationId,
      parentPath: spec.parentPath ?? pathLabel(coll.id),
      type: frames.length > 1 ? 'video' : 'image',
      name: spec.name ?? `file-${id.slice(0, 6)}.jpg`,
      blobKey: `blob-${id}`,
      mimeType: 'image/jpeg',
      width: 64,
      height: 48,
      duration: null,
      sizeBytes: 100,
      exif: {},
      metadata: spec.metadata ?? {},
      processingStatus: 'ready',
      createdById: fx.user.id,
      ...(spec.rootId ? { rootId: spec.rootId } : {}),
    },
    frames,
  );
  for (const [i, f] of (spec.frames ?? [{}]).entries()) {
    if (!f.captions?.length && !f.ocr?.length) continue;
    await analyse(fx, frames[i].id, f.captions ?? [], f.ocr ?? []);
  }
  return { id, frameIds: frames.map((f) => f.id) };
}

/** What ingest writes for a frame: model captions and objects (here OCR text plus a non-text box). */
export const analyse = (fx: Fx<Storage>, frameId: string, captions: string[], ocr: string[]) =>
  fx.s.analysis.replaceFrameAnalysis(frameId, {
    captions: captions.map((text) => ({ id: newMediaId(), text, model: 'caption-test' })),
    objects: [...ocr.map(ocrObject), boxObject('zebra')],
  });

export async function search(fx: Fx<Storage>, query: string, over: Partial<TextSearchQuery> = {}): Promise<TextHit[]> {
  const hits = await fx.index.search({ query, collectionIds: [fx.coll.id], limit: 50, ...over });
  for (const h of hits) assert.ok(h.score >= 0 && h.score <= 1, `score ${h.score} in 0..1`);
  for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1].score >= hits[i].score, 'best first');
  return hits;
}
/** "mediaId/frameId" of each hit ("mediaId/-" for item hits), sorted. */
export const keys = (hits: TextHit[]) => hits.map((h) => `${h.mediaId}/${h.frameId ?? '-'}`).sort();
export const itemsOf = (hits: TextHit[]) => [...new Set(hits.map((h) => h.mediaId))].sort();

/**
 * The index holds exactly the live text: one docs row (and one FTS row) per
 * live caption, OCR object, item and tag value, the FTS row count agrees, the
 * row count kept for idf agrees, and FTS5's own integrity check passes.
 */
export function assertInStep(db: Db): void {
  const expected = db
    .prepare(
      `SELECT 'item' AS kind, source, media_id, NULL AS frame_id FROM text_index_items
       UNION ALL SELECT 'tag', media_id || char(31) || grp || char(31) || tag, media_id, NULL FROM text_index_tags
       UNION ALL SELECT 'caption', source, media_id, frame_id FROM text_index_captions
       UNION ALL SELECT 'ocr', source, media_id, frame_id FROM text_index_ocr
       ORDER BY 1, 2`,
    )
    .all();
  const actual = db.prepare(`SELECT kind, source, media_id, frame_id FROM text_index_docs ORDER BY 1, 2`).all();
  assert.equal(actual, expected, 'text_index_docs holds exactly the live rows');
  const ftsRows = db.prepare(`SELECT count(*) FROM text_index`).pluck().get();
  assert.is(ftsRows, actual.length, 'one FTS row per docs row');
  const kept = db.prepare(`SELECT rows FROM text_index_rows WHERE id = 1`).pluck().get();
  assert.is(kept, actual.length, 'text_index_rows follows inserts and deletes');
  const orphans = db
    .prepare(`SELECT count(*) FROM text_index WHERE rowid NOT IN (SELECT id FROM text_index_docs)`)
    .pluck()
    .get();
  assert.is(orphans, 0, 'no FTS row without its docs row');
  const perCollection = db
    .prepare(
      `SELECT m.dataset_id AS id, count(*) AS n FROM text_index_docs d JOIN media m ON m.id = d.media_id GROUP BY m.dataset_id`,
    )
    .all() as Array<{ id: string; n: number }>;
  for (const c of perCollection) {
    const scoped = db
      .prepare(`SELECT count(*) FROM text_index WHERE text_index MATCH ?`)
      .pluck()
      .get(`scope : "${scopeToken(c.id)}"`);
    assert.is(scoped, c.n, 'each row carries its collection');
  }
  db.exec(`INSERT INTO text_index (text_index) VALUES ('integrity-check')`);
}
