/**
 * The prepared batch reads of the media store (getMany, summaries, frames, pickFrames) built on
 * rowReader: the same records as reading every column with better-sqlite3's
 * own row objects and the rows.ts mappings.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openSqliteStorage } from '../../src/storage/sqlite/index.js';
import { columnsOf, rowReader } from '../../src/storage/sqlite/rowReader.js';
import {
  toCaption,
  toFrame,
  toMedia,
  toObject,
  type CaptionRow,
  type FrameRow,
  type MediaRow,
  type ObjectRow,
} from '../../src/storage/sqlite/rows.js';
import type { FrameDetail } from '../../src/storage/types.js';

test('rowReader gives the objects better-sqlite3 would, keys in column order', () => {
  const { db, close } = openSqliteStorage(':memory:');
  try {
    db.exec(`CREATE TABLE t (a TEXT, b INTEGER, d REAL, e BLOB)`);
    db.prepare(`INSERT INTO t VALUES (?, ?, ?, ?)`).run('x', 1, 1.5, Buffer.from([1, 2]));
    db.prepare(`INSERT INTO t VALUES (NULL, NULL, NULL, NULL)`).run();
    const columns = columnsOf<{ a: unknown; b: unknown; d: unknown; e: unknown }>({ e: 1, a: 1, b: 1, d: 1 });
    const read = rowReader<Record<string, unknown>>(db, columns, `FROM t WHERE rowid >= ? ORDER BY rowid`);
    assert.equal(read(1), db.prepare(`SELECT e, a, b, d FROM t WHERE rowid >= ? ORDER BY rowid`).all(1));
    assert.equal(Object.keys(read(1)[0]), ['e', 'a', 'b', 'd']);
    assert.equal(read(3), []);
  } finally {
    void close();
  }
});

test('getMany, summaries, frames and pickFrames read what SELECT * and the rows.ts mappings read', async () => {
  const s = openSqliteStorage(':memory:');
  const { db } = s;
  try {
    const org = 'org',
      ds = 'ds',
      at = (n: number) => `2026-01-01T00:00:0${n}.000Z`;
    db.pragma('foreign_keys = OFF');
    const media = db.prepare(
      `INSERT INTO media (id, dataset_id, organization_id, path, parent_path, type, name, blob_key, mime_type, width, height, duration, size_bytes,
         exif, metadata, description, status, processing_status, processing_error, root_id, is_current, created_at, updated_at, created_by, updated_by)
       VALUES (?, ?, ?, ?, '/', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'u1', ?)`,
    );
    media.run(
      'm1',
      ds,
      org,
      '/m1',
      'image',
      'a.jpg',
      'k1.jpg',
      'image/jpeg',
      64,
      48,
      null,
      10,
      '{"Make":"Cam"}',
      '{"description":"d","tags":{"t":["v"]}}',
      'd',
      'active',
      'ready',
      null,
      'm1',
      1,
      at(1),
      at(2),
      'u2',
    );
    media.run(
      'm2',
      ds,
      org,
      '/m2',
      'video',
      'b.mp4',
      'k2.mp4',
      'video/mp4',
      320,
      240,
      12.5,
      99,
      '{}',
      '{}',
      null,
      'active',
      'failed',
      'boom',
      'm1',
      0,
      at(3),
      at(3),
      null,
    );
    media.run(
      'm3',
      ds,
      org,
      '/m3',
      'folder',
      'F',
      null,
      null,
      null,
      null,
      null,
      0,
      '{}',
      'not json',
      null,
      'deleted',
      'ready',
      null,
      'm3',
      1,
      at(4),
      at(4),
      null,
    );
    const frame = db.prepare(
      `INSERT INTO frames (id, media_id, timestamp, seconds, blob_key, width, height, status, metadata, created_at, updated_at, created_by) VALUES (?, ?, ?, ?, ?, 8, 6, ?, ?, ?, ?, 'u1')`,
    );
    frame.run('f1', 'm1', '0', 0, 'fk1', 'active', '{"i":1}', at(1), at(1));
    frame.run('f2b', 'm2', '3', 3, 'fk2', 'active', '{}', at(1), at(1));
    frame.run('f2a', 'm2', '1.5', 1.5, 'fk3', 'active', '{}', at(1), at(1));
    frame.run('f2x', 'm2', '2', 2, 'fk4', 'deleted', '{}', at(1), at(1));
    const caption = db.prepare(
      `INSERT INTO captions (id, frame_id, media_id, text, model, status, metadata, created_at, updated_at, created_by) VALUES (?, ?, ?, ?, 'cm', ?, '{}', ?, ?, 'model')`,
    );
    caption.run('c2', 'f1', 'm1', 'later', 'active', at(5), at(5));
    caption.run('c1', 'f1', 'm1', 'earlier', 'active', at(4), at(4));
    caption.run('c3', 'f2a', 'm2', 'gone', 'deleted', at(4), at(4));
    const object = db.prepare(
      `INSERT INTO detected_objects (id, frame_id, media_id, type, label, blob_key, polygon, confidence, model, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'om', 'active', ?, ?)`,
    );
    object.run('o1', 'f2a', 'm2', 'object', 'cat', 'ok1', '[{"x":1,"y":2}]', 0.5, at(2), at(2));
    object.run('o2', 'f1', 'm1', 'frame', 'frame', null, '[]', null, at(1), at(1));

    const ids = ['m2', 'missing', 'm1', 'm3'];
    const expectedMedia = (
      db
        .prepare(`SELECT * FROM media WHERE id IN (SELECT value FROM json_each(?))`)
        .all(JSON.stringify(ids)) as MediaRow[]
    ).map(toMedia);
    const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
    assert.equal((await s.media.getMany(ids)).sort(byId), expectedMedia.sort(byId));
    assert.equal(await s.media.getMany([]), []);
    for (const m of expectedMedia) assert.equal((await s.media.getMany([m.id]))[0], await s.media.get(m.id));
    // summaries: the same items, MediaSummary's fields of each.
    const summary = (m: (typeof expectedMedia)[number]) => ({
      id: m.id,
      collectionId: m.collectionId,
      type: m.type,
      name: m.name,
      blobKey: m.blobKey,
      width: m.width,
      height: m.height,
      duration: m.duration,
      status: m.status,
      isCurrent: m.isCurrent,
      createdAt: m.createdAt,
      favorite: m.favorite,
      archived: m.archived,
    });
    assert.equal((await s.media.summaries(ids)).sort(byId), expectedMedia.map(summary));
    assert.equal(await s.media.summaries([]), []);

    // The reference: every column, then captions and objects in (created_at, id) order.
    const reference = new Map<string, FrameDetail[]>();
    const frames = (
      db.prepare(`SELECT * FROM frames WHERE status = 'active' ORDER BY media_id, seconds, id`).all() as FrameRow[]
    ).map((r) => ({
      ...toFrame(r),
      captions: [],
      objects: [],
    })) as FrameDetail[];
    for (const f of frames) reference.set(f.mediaId, [...(reference.get(f.mediaId) ?? []), f]);
    for (const c of db
      .prepare(`SELECT * FROM captions WHERE status = 'active' ORDER BY created_at, id`)
      .all() as CaptionRow[])
      frames.find((f) => f.id === c.frame_id)?.captions.push(toCaption(c));
    for (const o of db
      .prepare(`SELECT * FROM detected_objects WHERE status = 'active' ORDER BY created_at, id`)
      .all() as ObjectRow[])
      frames.find((f) => f.id === o.frame_id)?.objects.push(toObject(o));
    const got = await s.media.frames(['m1', 'm2', 'm3']);
    assert.equal([...got.keys()].sort(), ['m1', 'm2']);
    assert.equal(got.get('m1'), reference.get('m1'));
    assert.equal(got.get('m2'), reference.get('m2'));
    assert.equal(
      got.get('m1')![0].captions.map((c) => c.text),
      ['earlier', 'later'],
    );
    assert.equal(
      got.get('m2')!.map((f) => f.id),
      ['f2a', 'f2b'],
    );
    // pickFrames: the same details, frame by frame; an item's first frame in time; nothing for a deleted frame,
    // another item's frame, a missing item or one without frames.
    const frameOf = (id: string) => frames.find((f) => f.id === id)!;
    const picked = await s.media.pickFrames([
      { mediaId: 'm2', frameId: 'f2b' },
      { mediaId: 'm2', frameId: null },
      { mediaId: 'm1', frameId: null },
      { mediaId: 'm2', frameId: 'f2x' },
      { mediaId: 'm1', frameId: 'f2a' },
      { mediaId: 'missing', frameId: null },
      { mediaId: 'm3', frameId: null },
      { mediaId: 'm1', frameId: 'f1' },
    ]);
    assert.equal(picked, [frameOf('f2b'), frameOf('f2a'), frameOf('f1'), null, null, null, null, frameOf('f1')]);
    assert.equal(await s.media.pickFrames([]), []);
  } finally {
    await s.close();
  }
});

test.run();
