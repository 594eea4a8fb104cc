/**
 * The PostgreSQL analysis store on PGlite, item by item as the contract suite's 'analysis', 'analysis
 * stages' and 'renditions' tests check it (test/storage/suite.ts), with the items and the reads the media
 * store would give written as plain SQL (test/helpers/pgItems.ts), so these run before that store exists;
 * plus what only PostgreSQL has: set-based writes that leave the same rows when run twice, the events in
 * the log, the triggers' queue.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newMediaId } from '../../src/platform/ids.js';
import { openPostgresStorage, type PostgresStorage } from '../../src/storage/postgres/index.js';
import type { NewObject } from '../../src/storage/types.js';
import { freshSchema, pglite } from '../helpers/pglite.js';
import { postgresServer } from '../helpers/postgresServer.js';
import { pgItem, pgOwner, pgSoftDelete, type PgOwner } from '../helpers/pgItems.js';

const server = process.env.TEST_DATABASE_URL ? await postgresServer() : await pglite();
const test = suite('postgres analysis store');
let s: PostgresStorage;
let owner: PgOwner;

test.before.each(async () => {
  s = await openPostgresStorage(server.url, { schema: freshSchema(), vectorSearch: server.vector });
  owner = await pgOwner(s.db);
});
test.after.each(async () => {
  await s.close();
});

const sorted = (ids: string[]) => [...ids].sort();

const objectFor = (label: string, o: Partial<NewObject> = {}): NewObject => ({
  id: newMediaId(),
  type: 'object',
  label,
  blobKey: `crop-${label}`,
  polygon: [
    { x: 0, y: 0 },
    { x: 1, y: 0 },
    { x: 1, y: 1 },
  ],
  confidence: 0.9,
  model: 'det:1',
  similarityModel: 'objects',
  embedding: { modelId: 'emb:1', vector: new Float32Array([0.6, 0.8, 0, 0, 0, 0, 0, 0]) },
  ...o,
});

/** The frame's active captions' texts and objects' labels, sorted (what media.frames() would show). */
async function detail(frameId: string) {
  const captions = await s.db.many<{ text: string }>(
    `SELECT text FROM captions WHERE frame_id = $1 AND status = 'active' ORDER BY text`,
    [frameId],
  );
  const objects = await s.db.many<{ id: string; label: string }>(
    `SELECT id, label FROM detected_objects WHERE frame_id = $1 AND status = 'active' ORDER BY label`,
    [frameId],
  );
  return { captions: captions.map((c) => c.text), objects };
}
const count = async (sql: string, params: unknown[] = []) => (await s.db.one<{ n: number }>(sql, params))!.n;
const events = () =>
  s.db.many<{ type: string; media_id: string; data: Record<string, unknown> }>(
    `SELECT type, media_id, data FROM events ORDER BY id`,
  );

test('replaceFrameAnalysis replaces only the model rows; twice leaves the same rows; the user keeps theirs', async () => {
  const item = await pgItem(s.db, owner);
  const [frameId] = item.frameIds;
  const result = {
    captions: [{ id: newMediaId(), text: 'a red bus', model: 'cap:1' }],
    objects: [objectFor('bus'), objectFor('person', { type: 'face', similarityModel: 'faces' })],
  };
  await s.analysis.replaceFrameAnalysis(frameId, result);
  await s.analysis.replaceFrameAnalysis(frameId, result); // the same ids again: a retried job
  let d = await detail(frameId);
  assert.equal(d.captions, ['a red bus']);
  assert.equal(
    d.objects.map((o) => o.label),
    ['bus', 'person'],
  );
  assert.is(await count(`SELECT count(*) AS n FROM object_embeddings`), 2);
  assert.is(await count(`SELECT count(*) AS n FROM cluster_pending`), 1, 'the face queued once');

  const run = () =>
    s.analysis.replaceFrameAnalysis(frameId, {
      captions: [{ id: newMediaId(), text: 'a red bus', model: 'cap:1' }],
      objects: [objectFor('bus'), objectFor('person', { type: 'face', similarityModel: 'faces' })],
    });
  await run();
  const bus = (await detail(frameId)).objects.find((o) => o.label === 'bus')!;
  await s.analysis.correctObject(bus.id, { label: 'tram' });
  await s.analysis.addUserCaption(frameId, { id: newMediaId(), text: 'my caption', model: 'user' }, owner.userId);
  await run();
  d = await detail(frameId);
  assert.equal(d.captions, ['a red bus', 'my caption']);
  assert.equal(
    d.objects.map((o) => o.label),
    ['bus', 'person', 'tram'],
  );
  assert.equal(
    (await s.analysis.userObjects(frameId)).map((o) => o.label),
    ['tram'],
  );
  const person = d.objects.find((o) => o.label === 'person')!;
  const gone = await s.analysis.correctObject(person.id, { deleted: true });
  assert.is(gone.status, 'deleted');
  assert.ok(!(await detail(frameId)).objects.some((o) => o.id === person.id));
  assert.is((await s.analysis.userObjects(frameId)).length, 2, 'deleted corrections are listed for the pipeline');
  assert.is(await count(`SELECT count(*) AS n FROM cluster_pending`), 0, 'the deleted face left the queue');
  const polygon = (await s.analysis.getObject(bus.id))!.polygon;
  assert.equal(polygon, objectFor('x').polygon, 'json comes back as written');
  try {
    await s.analysis.replaceFrameAnalysis(newMediaId(), { captions: [], objects: [] });
    assert.unreachable('no such frame');
  } catch (err) {
    assert.match(String(err), /frame not found/);
  }
});

test('frameVector, objectVector, addEmbeddings, objectsToReembed', async () => {
  const item = await pgItem(s.db, owner);
  const [frameId] = item.frameIds;
  assert.is(await s.analysis.frameVector(frameId, 'emb:1'), null);
  const vector = new Float32Array([0, 0.6, 0.8, 0, 0, 0, 0, 0]);
  await s.analysis.replaceModelObjects(frameId, 'frame', [
    objectFor('frame', { type: 'frame', embedding: { modelId: 'emb:1', vector } }),
  ]);
  await s.analysis.replaceModelObjects(frameId, 'frame', [
    objectFor('frame', { type: 'frame', embedding: { modelId: 'emb:1', vector } }),
  ]);
  assert.equal([...(await s.analysis.frameVector(frameId, 'emb:1'))!], [...vector]);
  assert.is(await s.analysis.frameVector(frameId, 'emb:2'), null, 'another model made none');
  assert.is(
    await count(`SELECT count(*) AS n FROM detected_objects WHERE frame_id = $1`, [frameId]),
    1,
    'no duplicates',
  );

  const crop = objectFor('dog', { similarityModel: null, embedding: null });
  await s.analysis.replaceModelObjects(frameId, 'object', [crop]);
  assert.is(await s.analysis.objectVector(crop.id, 'objects'), null);
  const v2 = new Float32Array([1, 0, 0, 0]);
  const v3 = new Float32Array([0, 1, 0, 0]);
  await s.analysis.addEmbeddings([
    { objectId: crop.id, modelId: 'emb:2', similarityModel: 'objects', vector: v2 },
    { objectId: crop.id, modelId: 'emb:2', similarityModel: 'objects', vector: v3 },
    { objectId: newMediaId(), modelId: 'emb:2', similarityModel: 'objects', vector: v2 },
  ]);
  const got = (await s.analysis.objectVector(crop.id, 'objects'))!;
  assert.equal([got.modelId, [...got.vector]], ['emb:2', [...v3]], 'the last row wins; unknown objects are skipped');
  assert.equal(
    (await s.analysis.objectsToReembed(item.mediaId)).map((o) => o.blobKey).sort(),
    ['crop-dog', 'crop-frame'],
    "active objects of the 'objects' model, the crop that just became one included",
  );
  assert.ok(await s.analysis.frameVector(frameId, 'emb:1'), 'the frame object stays beside objects of another type');
});

test('syncFrames keeps frames whose timestamp returns, adds new ones, deletes the rest with what hangs off them', async () => {
  const video = await pgItem(s.db, owner, { type: 'video', frames: [] });
  const mk = (t: string) => ({ id: newMediaId(), timestamp: t, blobKey: `f-${t}`, width: 64, height: 36 });
  const first = await s.analysis.syncFrames(video.mediaId, [mk('0'), mk('2.5'), mk('5')], owner.userId);
  assert.equal(
    first.map((f) => f.timestamp),
    ['0', '2.5', '5'],
  );
  await s.analysis.replaceFrameAnalysis(first[1].id, {
    captions: [{ id: newMediaId(), text: 'middle', model: 'cap:1' }],
    objects: [],
  });
  await s.analysis.replaceFrameAnalysis(first[2].id, {
    captions: [],
    objects: [objectFor('face', { type: 'face', similarityModel: 'faces' })],
  });
  const second = await s.analysis.syncFrames(video.mediaId, [mk('0'), mk('2.5'), mk('7.5')], owner.userId);
  assert.equal(
    second.map((f) => f.timestamp),
    ['0', '2.5', '7.5'],
  );
  assert.is(second[0].id, first[0].id, 'same timestamp, same frame id');
  assert.is(second[1].id, first[1].id);
  assert.is(second[1].blobKey, 'f-2.5');
  assert.equal(second[0].metadata, {});
  assert.equal((await detail(first[1].id)).captions, ['middle'], 'what was found on a kept frame stays');
  assert.is((await s.analysis.getFrame(first[2].id))!.status, 'deleted');
  assert.equal((await detail(first[2].id)).objects, [], "the deleted frame's objects are gone");
  assert.is(await count(`SELECT count(*) AS n FROM object_embeddings`), 0);
  assert.is(await count(`SELECT count(*) AS n FROM cluster_pending`), 0);
  assert.equal(
    (await s.analysis.framesOf(video.mediaId)).map((f) => f.id),
    second.map((f) => f.id),
  );
});

test('stages: set replaces, stagesOf reads, waitingFor pages; a ready item’s catch-up is a media.status event', async () => {
  const a = await pgItem(s.db, owner, { status: 'processing' });
  const b = await pgItem(s.db, owner);
  const c = await pgItem(s.db, owner);
  const waiting = (model: string) => ({ stage: 'caption', state: 'waiting' as const, model });
  await s.analysis.setStages(a.mediaId, [{ stage: 'embeddings', state: 'done', model: 'emb' }, waiting('cap')]);
  await s.analysis.setStages(b.mediaId, [waiting('cap'), { stage: 'faces', state: 'waiting', model: 'face' }]);
  await s.analysis.setStages(c.mediaId, [waiting('cap')]);
  await s.analysis.setStages(c.mediaId, [{ stage: 'caption', state: 'done', model: 'cap' }]);
  const got = await s.analysis.stagesOf([a.mediaId, c.mediaId, newMediaId()]);
  assert.is(got.size, 2);
  assert.equal(got.get(c.mediaId), [{ stage: 'caption', state: 'done', model: 'cap' }]);
  assert.equal((await s.analysis.stagesOf([])).size, 0);
  assert.equal(await s.analysis.waitingFor(['cap'], 10), [b.mediaId], 'only ready items (a is processing)');
  await s.db.query(`UPDATE media SET processing_status = 'ready' WHERE id = $1`, [a.mediaId]);
  const ab = sorted([a.mediaId, b.mediaId]);
  assert.equal(await s.analysis.waitingFor(['face', 'cap'], 10), ab, 'each item once');
  assert.equal(await s.analysis.waitingFor(['cap'], 1), [ab[0]]);
  assert.equal(await s.analysis.waitingFor(['cap'], 10, ab[0]), [ab[1]]);
  assert.equal(await s.analysis.waitingFor([], 10), []);

  const log = await events();
  assert.equal(
    log.map((e) => [e.type, e.media_id]),
    [
      ['media.status', b.mediaId],
      ['media.status', c.mediaId],
      ['media.status', c.mediaId],
    ],
    "ready items' waiting changes only (a was processing)",
  );
  assert.equal(log[2].data.waiting, []);
  await s.analysis.setStages(c.mediaId, [{ stage: 'caption', state: 'done', model: 'cap' }]);
  assert.is((await events()).length, 3, 'nothing changed, no event');
  await pgSoftDelete(s.db, b.mediaId);
  assert.equal(await s.analysis.waitingFor(['face'], 10), [], 'only active items');
});

test('renditions: only while the frame shows that file; the first frame’s is a media.thumbnail event; backfill', async () => {
  const video = await pgItem(s.db, owner, { type: 'video', frames: [] });
  const mk = (t: string, blobKey = `f-${t}`) => ({ id: newMediaId(), timestamp: t, blobKey, width: 64, height: 36 });
  const r = (n: string) => ({ thumbnailKey: `thumb-${n}`, previewKey: `preview-${n}` });
  const [f0, f1] = await s.analysis.syncFrames(video.mediaId, [mk('0'), mk('2')], owner.userId);
  assert.is(f0.thumbnailKey, null);
  assert.equal(await s.analysis.itemsLackingRenditions(10), [video.mediaId]);
  assert.ok(await s.analysis.setFrameRenditions(f1.id, 'f-2', r('b')));
  assert.equal(await events(), [], 'not the item’s thumbnail');
  assert.ok(await s.analysis.setFrameRenditions(f0.id, 'f-0', r('a')));
  assert.equal(
    (await events()).map((e) => [e.type, e.media_id, e.data.path]),
    [
      [
        'media.thumbnail',
        video.mediaId,
        (await s.db.one<{ p: string }>(`SELECT path::text AS p FROM media WHERE id = $1`, [video.mediaId]))!.p,
      ],
    ],
  );
  assert.not.ok(await s.analysis.setFrameRenditions(f1.id, 'another-file', r('c')), 'made from another file');
  assert.equal(await s.analysis.itemsLackingRenditions(10), []);
  const frames = await s.analysis.syncFrames(video.mediaId, [mk('0'), mk('2', 'f-2-new')], owner.userId);
  assert.equal(frames[0].thumbnailKey, 'thumb-a', 'the same file keeps its renditions');
  assert.equal([frames[1].thumbnailKey, frames[1].previewKey], [null, null], 'another file needs new ones');
  assert.equal(await s.analysis.itemsLackingRenditions(10), [video.mediaId]);
  assert.equal(await s.analysis.itemsLackingRenditions(10, video.mediaId), []);
  const pending = await pgItem(s.db, owner, { status: 'pending' });
  assert.not.ok((await s.analysis.itemsLackingRenditions(10)).includes(pending.mediaId), 'its ingest makes them');
  await pgSoftDelete(s.db, video.mediaId);
  assert.not.ok(await s.analysis.setFrameRenditions(frames[1].id, 'f-2-new', r('d')), 'not on deleted frames');
});

test.run();
