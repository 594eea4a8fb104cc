/**
 * Favourites, archive and trash over HTTP (issue #27): the flags through PATCH /api/media/{id} and the browse
 * and search filters; delete → trash → restore (a deleted folder path made again); purge by the job, with a
 * blob another item shares kept; a crash between the purge's two halves mended by the orphan sweep; roles and
 * other organizations' ids.
 */
import { utimes } from 'node:fs/promises';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkIntegrity } from '../../src/features/backup/integrity.js';
import { startTrashSchedule } from '../../src/features/library/trashJobs.js';
import { makeImage, startTestApp, waitForProcessing, type TestApp } from '../helpers/testApp.js';

interface Ctx {
  app: TestApp;
  ds: string;
  viewer: string;
  keyB: string;
  dsB: string;
}

const t = suite<Ctx>('favourites, archive and trash over HTTP');

t.before(async (ctx) => {
  const app = (ctx.app = await startTestApp());
  ctx.ds = await app.collection('Trash');
  ctx.viewer = (await app.request('POST', '/api/keys', { body: { role: 'viewer' } })).body.key;
  const orgB = (await app.request('POST', '/api/auth/organization/create', { body: { name: 'B' } })).body.organization
    .id;
  ctx.keyB = (await app.request('POST', '/api/keys', { body: { organizationId: orgB, role: 'owner' } })).body.key;
  ctx.dsB = (
    await app.request('POST', `/api/organization/${orgB}/datasets`, { key: ctx.keyB, body: { name: 'B' } })
  ).body.dataset.id;
});
t.after(async ({ app }) => app.close());

let shade = 0;
/** Uploads a distinct image (or `bytes`) and waits for its ingest (the owner's, without `key`); returns its id. */
async function upload(app: TestApp, ds: string, fields: Record<string, string> = {}, bytes?: Buffer, key?: string) {
  shade += 7;
  const image = bytes ?? (await makeImage({ color: { r: shade % 256, g: 90, b: 40 } }));
  const r = await app.upload({ datasetId: ds, ...fields }, { bytes: image, filename: `p${shade}.jpg` }, key);
  assert.is(r.status, 200, JSON.stringify(r.body));
  if (!key) await waitForProcessing(app, r.body.mediaId);
  return r.body.mediaId as string;
}

const ids = (r: { body: { media: Array<{ id: string }> } }) => r.body.media.map((m) => m.id).sort();

/** Waits for a job to finish; returns its status. */
async function settle(app: TestApp, jobId: number): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const job = await app.app.services.storage.jobs.get(jobId);
    if (job && ['succeeded', 'failed', 'cancelled'].includes(job.status)) return job.status;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`job ${jobId} did not finish`);
}

/** Makes a stored blob look older than the purge's freshness guard (a minute). */
async function age(app: TestApp, key: string) {
  const file = path.join(app.dataDir, 'files', key.slice(0, 2), key.slice(2, 4), key);
  const past = new Date(Date.now() - 3_600_000);
  await utimes(file, past, past);
}

t('flags: PATCH sets them, the item shows them, browse and search filter by them; viewers cannot', async (c) => {
  const { app } = c;
  const ds = await app.collection('Flags');
  const [a, b, z] = [await upload(app, ds), await upload(app, ds), await upload(app, ds, { name: 'zebra.jpg' })];
  const fav = await app.request('PATCH', `/api/media/${a}`, { body: { favorite: true } });
  assert.is(fav.status, 200, JSON.stringify(fav.body));
  assert.is(fav.body.media.favorite, true);
  assert.is(fav.body.media.archived, false);
  assert.is((await app.request('PATCH', `/api/media/${z}`, { body: { archived: true } })).body.media.archived, true);
  const list = (q: string) => app.request('GET', `/api/dataset/${ds}/media?limit=50${q}`);
  assert.equal(ids(await list('')), [a, b].sort(), 'archived items are out of the default view');
  assert.equal(ids(await list('&favorite=true')), [a]);
  assert.equal(ids(await list('&archived=only')), [z]);
  assert.equal(ids(await list('&archived=include&sortBy=name')), [a, b, z].sort());
  assert.is((await list('&archived=include')).body.pagination.total, 3);
  assert.is((await list('&archived=maybe')).status, 400);
  const search = (q: string) =>
    app.request('GET', `/api/search?q=zebra&organizationId=${app.orgId}${q}`).then((r) => r.body.results.length);
  assert.is(await search(''), 0, 'search leaves archived items out');
  assert.ok((await search('&archived=include')) > 0, 'unless asked');
  assert.is((await app.request('PATCH', `/api/media/${b}`, { key: c.viewer, body: { favorite: true } })).status, 403);
  assert.is((await app.request('PATCH', `/api/media/${b}`, { key: c.keyB, body: { favorite: true } })).status, 404);
  assert.is((await app.request('PATCH', `/api/media/${b}`, { body: { favorite: 'yes' } })).status, 400);
});

t(
  'delete → trash → restore: one entry per delete, with when, who and where; the item is back in its folder',
  async (c) => {
    const { app } = c;
    const ds = await app.collection('Restore');
    const f = (await app.request('POST', '/api/folder', { body: { datasetId: ds, name: 'Trips' } })).body.folder;
    const x = await upload(app, ds, { path: f.path });
    const y = await upload(app, ds, { path: f.path });
    const del = await app.request('DELETE', `/api/media/${x}`);
    assert.equal(del.body, { id: x, deletedCount: 1 });
    const trash = await app.request('GET', `/api/dataset/${ds}/trash`, { key: c.viewer });
    assert.is(trash.status, 200, JSON.stringify(trash.body));
    const [entry] = trash.body.entries;
    assert.is(entry.id, x);
    assert.equal(entry.location, [{ id: f.id, name: 'Trips' }]);
    assert.ok(entry.deletedBy.id && typeof entry.deletedAt === 'string');
    assert.is(entry.media.status, 'deleted', "the spec's soft-delete state");
    assert.match(entry.media.thumbnailUrl ?? '', /^http/, 'with its thumbnail');
    // The folder goes as one entry; x stays its own; the folder path is purged, then x restored makes it again.
    assert.is((await app.request('DELETE', `/api/folder/${f.id}`)).body.deletedCount, 2);
    const listed = await app.request('GET', `/api/dataset/${ds}/trash`);
    assert.equal(
      listed.body.entries.map((e: { id: string }) => e.id),
      [f.id, x],
      'newest deletion first',
    );
    const purge = await app.request('POST', `/api/dataset/${ds}/trash/purge`, { body: { ids: [f.id] } });
    assert.is(purge.status, 202, JSON.stringify(purge.body));
    assert.is(await settle(app, purge.body.jobId), 'succeeded');
    assert.is((await app.request('GET', `/api/media/${y}`)).status, 404);
    const back = await app.request('POST', `/api/dataset/${ds}/trash/restore`, { body: { ids: [x] } });
    assert.equal(back.body, { restoredCount: 1 });
    const inFolder = await app.request('GET', `/api/dataset/${ds}/media?path=${f.path}`);
    assert.equal(ids(inFolder), [x], 'x is back in Trips, made again');
    const folder = await app.request('GET', `/api/media/${f.id}`);
    assert.is(folder.body.media.name, 'Trips');
    assert.is((await app.request('GET', `/api/dataset/${ds}/trash`)).body.pagination.total, 0);
  },
);

t('roles and organizations: viewers cannot restore or purge; other ids are 404, other collections 403', async (c) => {
  const { app, ds } = c;
  const m = await upload(app, ds);
  await app.request('DELETE', `/api/media/${m}`);
  const mine = { body: { ids: [m] } };
  assert.is((await app.request('POST', `/api/dataset/${ds}/trash/restore`, { ...mine, key: c.viewer })).status, 403);
  assert.is((await app.request('POST', `/api/dataset/${ds}/trash/purge`, { ...mine, key: c.viewer })).status, 403);
  assert.is((await app.request('GET', `/api/dataset/${ds}/trash`, { key: c.keyB })).status, 403);
  assert.is((await app.request('POST', `/api/dataset/${c.dsB}/trash/restore`, { ...mine, key: c.keyB })).status, 404);
  const theirs = await upload(app, c.dsB, {}, undefined, c.keyB);
  await app.request('DELETE', `/api/media/${theirs}`, { key: c.keyB });
  const cross = { body: { ids: [theirs] } };
  assert.is((await app.request('POST', `/api/dataset/${ds}/trash/restore`, cross)).status, 404);
  assert.is((await app.request('POST', `/api/dataset/${ds}/trash/purge`, cross)).status, 404);
  assert.is((await app.request('POST', `/api/dataset/${ds}/trash/restore`, { body: { ids: [] } })).status, 400);
  assert.is((await app.request('POST', `/api/dataset/${ds}/trash/restore`, { body: { ids: ['x'] } })).status, 404);
  assert.is((await app.request('POST', `/api/dataset/${ds}/trash/restore`, mine)).body.restoredCount, 1);
});

t('purge: files go, a blob another item shares stays; empty trash takes every entry', async (c) => {
  const { app } = c;
  const ds = await app.collection('Purge');
  const bytes = await makeImage({ color: { r: 1, g: 2, b: 3 } });
  const a = await upload(app, ds, { name: 'a.jpg' }, bytes);
  const b = await upload(app, ds, { name: 'b.jpg' }, bytes);
  const lone = await upload(app, ds);
  const { storage, blobs } = app.app.services;
  const shared = (await storage.media.get(a))!.blobKey!;
  const own = (await storage.media.get(lone))!.blobKey!;
  assert.is((await storage.media.get(b))!.blobKey, shared, 'same bytes, one blob');
  for (const key of [shared, own]) await age(app, key);
  await app.request('DELETE', `/api/media/${a}`);
  await app.request('DELETE', `/api/media/${lone}`);
  const r = await app.request('POST', `/api/dataset/${ds}/trash/purge`, { body: {} });
  assert.is(r.status, 202);
  assert.is(await settle(app, r.body.jobId), 'succeeded');
  assert.is((await app.request('GET', `/api/dataset/${ds}/trash`)).body.pagination.total, 0);
  assert.ok(await blobs.exists(shared), 'b still needs it');
  assert.not.ok(await blobs.exists(own), 'the purged item’s own file is gone');
  assert.is((await app.request('GET', `/api/media/${b}`)).status, 200);
});

t('a crash between the purge’s halves: rows gone first; the orphan sweep removes the files left', async (c) => {
  const { app } = c;
  const ds = await app.collection('Crash');
  const m = await upload(app, ds);
  const { storage, blobs } = app.app.services;
  const key = (await storage.media.get(m))!.blobKey!;
  await app.request('DELETE', `/api/media/${m}`);
  // The row half alone, as a crash right after its commit leaves it.
  const { blobKeys } = await storage.media.purgeTrash([m]);
  assert.ok(blobKeys.includes(key));
  assert.is(await storage.media.get(m), null, 'no dangling row');
  assert.ok(await blobs.exists(key), 'the file is still there');
  const services = { ...app.app.services, config: { dataDir: app.dataDir } };
  const before = await checkIntegrity(services, 0);
  assert.ok(
    before.untracked!.some((u) => u.key === key),
    'the integrity report shows it untracked',
  );
  assert.is(before.counts.missingOriginals, 0, 'and no row lacks its file');
  await blobs.sweepOrphans((keys) => storage.media.referencedBlobKeys(keys), 0);
  assert.not.ok(await blobs.exists(key), 'the sweep removed it');
  assert.is((await checkIntegrity(services, 0)).counts.untracked, 0);
});

t('automatic purge: entries older than TRASH_RETENTION_DAYS go by the scheduled job; younger ones stay', async (c) => {
  const { app } = c;
  const ds = await app.collection('Auto');
  const [old, young] = [await upload(app, ds), await upload(app, ds)];
  await app.request('DELETE', `/api/media/${old}`);
  await new Promise((r) => setTimeout(r, 1500));
  await app.request('DELETE', `/api/media/${young}`);
  const { services } = app.app;
  // A retention of about 0.86 s: the first entry is older, the second not yet.
  const schedule = startTrashSchedule({ ...services, config: { ...services.config, trashRetentionDays: 1e-5 } });
  schedule.stop();
  for (let i = 0; i < 100 && (await services.storage.media.get(old)); i++) await new Promise((r) => setTimeout(r, 50));
  assert.is(await services.storage.media.get(old), null, 'purged');
  assert.equal(
    (await app.request('GET', `/api/dataset/${ds}/trash`)).body.entries.map((e: { id: string }) => e.id),
    [young],
  );
});

t.run();
