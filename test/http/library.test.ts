import sharp from 'sharp';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeImage, startTestApp, type TestApp } from '../helpers/testApp.js';

const t = suite<{ app: TestApp; ds: string }>('library over HTTP');

t.before(async (ctx) => {
  ctx.app = await startTestApp();
  ctx.ds = await ctx.app.collection('Library');
});
t.after(async (ctx) => ctx.app.close());

const red = () => makeImage({ color: { r: 220, g: 20, b: 20 } });

t('healthz answers without a key; openapi lists every route', async ({ app }) => {
  const h = await app.request('GET', '/healthz', { key: null });
  assert.is(h.status, 200);
  assert.is(h.body.status, 'ok');
  const doc = await app.request('GET', '/api/openapi.json', { key: null });
  assert.is(doc.status, 200);
  for (const p of [
    '/api/dataset/{datasetId}/media',
    '/api/media/{mediaId}/move',
    '/api/folder',
    '/api/upload/multipart',
    '/api/keys',
  ]) {
    assert.ok(doc.body.paths[p], `openapi has ${p}`);
  }
  const params = doc.body.paths['/api/dataset/{datasetId}/media'].get.parameters.map((x: { name: string }) => x.name);
  for (const n of [
    'path',
    'recursive',
    'limit',
    'offset',
    'type',
    'dateFrom',
    'dateTo',
    'sortBy',
    'sortDirection',
    'dateField',
    'tags',
    'tagFilters',
    'mediaId',
    'clusterId',
  ]) {
    assert.ok(params.includes(n), `browse documents ${n}`);
  }
});

t('collections: list, get with and without hyphens, rename', async ({ app, ds }) => {
  const list = await app.request('GET', `/api/organization/${app.orgId}/datasets`);
  assert.is(list.status, 200);
  assert.ok(list.body.datasets.some((d: { id: string }) => d.id === ds));
  const one = await app.request('GET', `/api/dataset/${ds.replace(/-/g, '')}`);
  assert.is(one.status, 200);
  assert.is(one.body.dataset.id, ds);
  assert.is(one.body.dataset.organizationId, app.orgId);
  const renamed = await app.request('PATCH', `/api/dataset/${ds}`, { body: { name: 'Renamed', icon: 'camera' } });
  assert.is(renamed.body.dataset.name, 'Renamed');
  assert.is(renamed.body.dataset.icon, 'camera');
  assert.is((await app.request('GET', `/api/dataset/00000000-0000-0000-0000-000000000000`)).status, 404);
  assert.is((await app.request('GET', `/api/dataset/not-a-uuid`)).status, 404);
});

t('upload an image: stored, queued for analysis, one frame, URL opens without a key', async ({ app, ds }) => {
  const up = await app.upload({ datasetId: ds, name: 'red.jpg' }, { bytes: await red(), filename: 'whatever.bin' });
  assert.is(up.status, 200, JSON.stringify(up.body));
  assert.match(up.body.mediaId, /^[0-9a-f]{32}$/);
  assert.is(up.body.message, 'uploaded');
  const got = await app.request('GET', `/api/media/${up.body.mediaId}`);
  assert.is(got.status, 200);
  const m = got.body.media;
  assert.is(m.type, 'image');
  assert.is(m.name, 'red.jpg');
  assert.is(m.width, 64);
  assert.is(m.height, 48);
  assert.is(m.duration, null);
  assert.ok(['pending', 'processing', 'ready'].includes(m.processingStatus), m.processingStatus);
  assert.is(m.totalVersions, 1);
  assert.is(m.folderItemCount, null);
  assert.is(m.folderPreviews, null);
  assert.is(m.path, `${ds.replace(/-/g, '')}.${m.id}`);
  assert.is(m.frames.length, 1);
  assert.is(m.frames[0].timestamp, '0');
  assert.match(m.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal(m.exif.tags, {});
  assert.equal(m.metadata, { tags: {} }, 'metadata.tags is present when there are none');
  const file = await fetch(m.blob);
  assert.is(file.status, 200);
  assert.is(file.headers.get('content-type'), 'image/jpeg');
  assert.is(up.body.url, m.blob);
  const frame = await fetch(m.frames[0].blob);
  assert.is(frame.status, 200);
  // A URL with a tampered signature does not open.
  const tampered = m.blob.replace(
    /\/files\/([^/]+)\//,
    (_: string, sig: string) => `/files/${sig.startsWith('A') ? 'B' : 'A'}${sig.slice(1)}/`,
  );
  assert.is((await fetch(tampered)).status, 404);
});

t('folders: create, reuse, nest, list with counts and previews', async ({ app, ds }) => {
  const root = ds.replace(/-/g, '');
  const a = await app.request('POST', '/api/folder', { body: { datasetId: ds, name: 'Trips' } });
  assert.is(a.status, 200, JSON.stringify(a.body));
  const folder = a.body.folder;
  assert.is(folder.type, 'folder');
  assert.is(folder.blob, 'folder');
  assert.is(folder.datasetId, ds);
  assert.is(folder.collectionId, ds);
  assert.is(folder.path, `${root}.${folder.id}`);
  const again = await app.request('POST', '/api/folder', { body: { datasetId: ds, name: 'Trips', reuse: true } });
  assert.is(again.body.folder.id, folder.id);
  const dup = await app.request('POST', '/api/folder', { body: { datasetId: ds, name: 'Trips' } });
  assert.is.not(dup.body.folder.id, folder.id);
  const sub = await app.request('POST', '/api/folder', { body: { datasetId: ds, name: '2024', path: folder.path } });
  assert.is(sub.body.folder.path, `${folder.path}.${sub.body.folder.id}`);
  for (let i = 0; i < 4; i++) {
    const r = await app.upload(
      { datasetId: ds, path: sub.body.folder.path, name: `p${i}.jpg` },
      { bytes: await red(), filename: `p${i}.jpg` },
    );
    assert.is(r.status, 200);
  }
  const folders = await app.request('GET', `/api/dataset/${ds}/media?type=folder&limit=100`);
  const trips = folders.body.media.find((f: { id: string }) => f.id === folder.id);
  assert.is(trips.folderItemCount, 4);
  assert.is(trips.folderPreviews.length, 3);
  assert.is((await fetch(trips.folderPreviews[0])).status, 200);
  const inside = await app.request('GET', `/api/dataset/${ds}/media?path=${sub.body.folder.path}`);
  assert.is(inside.body.pagination.total, 4);
  const getFolder = await app.request('GET', `/api/folder/${folder.id}`);
  assert.is(getFolder.body.folder.id, folder.id);
  const renamed = await app.request('PATCH', `/api/folder/${folder.id}`, { body: { name: 'Travel' } });
  assert.is(renamed.body.folder.name, 'Travel');
  // Errors the spec lists.
  assert.is((await app.request('POST', '/api/folder', { body: { name: 'x' } })).status, 400);
  assert.is(
    (
      await app.request('POST', '/api/folder', {
        body: { datasetId: ds, name: 'x', path: `${root}.${'0'.repeat(32)}` },
      })
    ).status,
    404,
  );
});

t('browse: pagination, sorting, type and date filters, bad parameters', async ({ app }) => {
  const ds = await app.collection('Browse');
  const names = ['b.jpg', 'A.jpg', 'c.jpg', 'd.jpg', 'e.jpg'];
  for (const n of names) await app.upload({ datasetId: ds, name: n }, { bytes: await red(), filename: n });
  const first = await app.request('GET', `/api/dataset/${ds}/media?limit=2`);
  assert.is(first.status, 200);
  assert.equal(first.body.pagination, { total: 5, limit: 2, offset: 0, hasMore: true });
  const seen = new Set<string>();
  for (let offset = 0; offset < 5; offset += 2) {
    const page = await app.request('GET', `/api/dataset/${ds}/media?limit=2&offset=${offset}`);
    for (const m of page.body.media) seen.add(m.id);
  }
  assert.is(seen.size, 5);
  const byName = await app.request('GET', `/api/dataset/${ds}/media?sortBy=name&sortDirection=asc`);
  assert.equal(
    byName.body.media.map((m: { name: string }) => m.name),
    ['A.jpg', 'b.jpg', 'c.jpg', 'd.jpg', 'e.jpg'],
  );
  const newest = await app.request('GET', `/api/dataset/${ds}/media`);
  const created = newest.body.media.map((m: { createdAt: string }) => m.createdAt);
  assert.equal(created, [...created].sort().reverse(), 'default is createdAt desc');
  const today = new Date().toISOString().slice(0, 10);
  assert.is(
    (await app.request('GET', `/api/dataset/${ds}/media?dateFrom=${today}&dateTo=${today}`)).body.pagination.total,
    5,
  );
  assert.is((await app.request('GET', `/api/dataset/${ds}/media?dateTo=2000-01-01`)).body.pagination.total, 0);
  assert.is((await app.request('GET', `/api/dataset/${ds}/media?type=video`)).body.pagination.total, 0);
  const one = await app.request('GET', `/api/dataset/${ds}/media?mediaId=${first.body.media[0].id}`);
  assert.is(one.body.media.length, 1);
  for (const bad of [
    'dateFrom=2024-13-01',
    'dateTo=yesterday',
    'sortBy=size',
    'sortDirection=up',
    'dateField=updatedAt',
    'tagFilters=notjson',
    'tagFilters=%7B%22a%22%3A%22b%22%7D',
    'limit=0',
    'limit=5000',
    'offset=-1',
    'type=pdf',
    'recursive=maybe',
  ]) {
    const r = await app.request('GET', `/api/dataset/${ds}/media?${bad}`);
    assert.is(r.status, 400, bad);
    assert.is(r.body.error, 'Bad Request');
    assert.type(r.body.message, 'string');
  }
  const scored = await app.request('GET', `/api/dataset/${ds}/media?q=red`);
  assert.ok([200, 501].includes(scored.status));
});

t('takenAt: from EXIF on upload, sortBy=takenAt, and dateFrom/dateTo over it', async ({ app }) => {
  const ds = await app.collection('Taken');
  const shot = (when: string | null) => {
    const image = sharp({ create: { width: 32, height: 24, channels: 3, background: '#484' } }).jpeg();
    return (
      when ? image.withExif({ IFD2: { DateTimeOriginal: when, OffsetTimeOriginal: '+01:00' } }) : image
    ).toBuffer();
  };
  const ids: Record<string, string> = {};
  for (const [name, when] of [
    ['2015.jpg', '2015:08:01 10:00:00'],
    ['none.jpg', null],
    ['2003.jpg', '2003:03:03 09:30:00'],
  ] as const) {
    const up = await app.upload({ datasetId: ds, name }, { bytes: await shot(when), filename: name });
    assert.is(up.status, 200, JSON.stringify(up.body));
    ids[name] = up.body.mediaId;
  }
  const got = await app.request('GET', `/api/media/${ids['2015.jpg']}`);
  assert.is(got.body.media.takenAt, '2015-08-01T09:00:00.000Z', 'the offset applied');
  assert.is((await app.request('GET', `/api/media/${ids['none.jpg']}`)).body.media.takenAt, null);
  const names = async (query: string) => {
    const r = await app.request('GET', `/api/dataset/${ds}/media?${query}`);
    assert.is(r.status, 200, JSON.stringify(r.body));
    return r.body.media.map((m: { name: string }) => m.name);
  };
  // Without a capture time an item sits at its createdAt (today): after both photos.
  assert.equal(await names('sortBy=takenAt&sortDirection=asc'), ['2003.jpg', '2015.jpg', 'none.jpg']);
  assert.equal(await names('sortBy=takenAt'), ['none.jpg', '2015.jpg', '2003.jpg'], 'desc by default');
  // Sorted by takenAt, the date range is over it; otherwise over createdAt unless dateField says takenAt.
  assert.equal(await names('sortBy=takenAt&dateFrom=2010-01-01&dateTo=2016-12-31'), ['2015.jpg']);
  assert.equal(await names('dateFrom=2010-01-01&dateTo=2016-12-31'), [], 'createdAt: all uploaded today');
  assert.equal(await names('dateField=takenAt&sortBy=name&sortDirection=asc&dateTo=2015-08-01'), [
    '2003.jpg',
    '2015.jpg',
  ]);
  assert.equal(await names('sortBy=takenAt&dateField=createdAt&dateTo=2016-12-31'), []);
});

t('tags: add, 409 on duplicate, filter, aggregate, remove value and group, rename group', async ({ app }) => {
  const ds = await app.collection('Tags');
  const ids: string[] = [];
  for (let i = 0; i < 3; i++)
    ids.push((await app.upload({ datasetId: ds }, { bytes: await red(), filename: `t${i}.jpg` })).body.mediaId);
  const add = (id: string, label: string, value: string) =>
    app.request('POST', `/api/media/${id}/tags`, { body: { label, value } });
  let r = await add(ids[0], 'color', 'red');
  assert.is(r.status, 200);
  assert.equal(r.body.media.metadata.tags, { color: ['red'] });
  assert.is((await add(ids[0], 'color', 'red')).status, 409);
  await add(ids[0], 'color', 'blue');
  await add(ids[0], 'place', 'beach');
  await add(ids[1], 'color', 'blue');
  await add(ids[2], 'place', 'beach');
  const agg = await app.request('GET', `/api/dataset/${ds}/tags`);
  assert.equal(agg.body.tags, { color: ['blue', 'red'], place: ['beach'] });
  const filter = (f: object) =>
    app.request('GET', `/api/dataset/${ds}/media?tagFilters=${encodeURIComponent(JSON.stringify(f))}`);
  assert.is((await filter({ color: ['red', 'blue'] })).body.pagination.total, 2, 'OR within a group');
  assert.is((await filter({ color: ['blue'], place: ['beach'] })).body.pagination.total, 1, 'AND between groups');
  assert.is((await app.request('GET', `/api/dataset/${ds}/media?tags=blue`)).body.pagination.total, 2);
  assert.is((await app.request('GET', `/api/dataset/${ds}/media?tags=blue,beach`)).body.pagination.total, 1);
  r = await app.request('DELETE', `/api/media/${ids[1]}/tags`, { body: { label: 'color', value: 'blue' } });
  assert.is(r.status, 200);
  assert.equal(r.body.metadata.tags, {}, 'last value removes the group');
  assert.equal(r.body.media.metadata.tags, {});
  r = await app.request('PATCH', `/api/media/${ids[0]}/tags`, { body: { oldLabel: 'color', newLabel: 'colour' } });
  assert.equal(r.body.media.metadata.tags, { colour: ['blue', 'red'], place: ['beach'] });
  r = await app.request('DELETE', `/api/media/${ids[0]}/tags`, { body: { label: 'place' } });
  assert.equal(r.body.metadata.tags, { colour: ['blue', 'red'] });
  assert.equal((await app.request('GET', `/api/dataset/${ds}/tags`)).body.tags, {
    colour: ['blue', 'red'],
    place: ['beach'],
  });
  assert.is((await app.request('POST', `/api/media/${ids[0]}/tags`, { body: { label: 'x' } })).status, 400);
});

t('PATCH media: rename, replace metadata (not merged), 400 without fields', async ({ app, ds }) => {
  const id = (await app.upload({ datasetId: ds }, { bytes: await red(), filename: 'm.jpg' })).body.mediaId;
  await app.request('POST', `/api/media/${id}/tags`, { body: { label: 'a', value: '1' } });
  const r = await app.request('PATCH', `/api/media/${id}`, {
    body: { name: 'new name', metadata: { description: 'hello' } },
  });
  assert.is(r.status, 200);
  assert.is(r.body.media.id, id);
  assert.is(r.body.media.name, 'new name');
  assert.ok(r.body.media.updatedById);
  assert.ok(r.body.media.updatedAt);
  const got = await app.request('GET', `/api/media/${id}`);
  // Issue #14: metadata always holds tags (the spec); replaced wholesale, the tags are gone: an empty object.
  assert.equal(got.body.media.metadata, { description: 'hello', tags: {} });
  assert.is((await app.request('PATCH', `/api/media/${id}`, { body: {} })).status, 400);
  assert.is(
    (await app.request('PATCH', `/api/media/${id}`, { body: { metadata: { tags: { a: 'notarray' } } } })).status,
    400,
  );
});

t('move: item and subtree; the spec 400 rules', async ({ app }) => {
  const ds = await app.collection('Move');
  const other = await app.collection('Other');
  const mk = async (name: string, path?: string) =>
    (await app.request('POST', '/api/folder', { body: { datasetId: ds, name, path } })).body.folder;
  const a = await mk('A');
  const b = await mk('B');
  const a1 = await mk('A1', a.path);
  const img = (await app.upload({ datasetId: ds, path: a1.path }, { bytes: await red(), filename: 'x.jpg' })).body
    .mediaId;
  const moved = await app.request('PATCH', `/api/media/${a.id}/move`, { body: { destinationPath: b.path } });
  assert.is(moved.status, 200, JSON.stringify(moved.body));
  assert.equal(moved.body, { id: a.id, newPath: `${b.path}.${a.id}`, success: true });
  const item = (await app.request('GET', `/api/media/${img}`)).body.media;
  assert.is(item.path, `${b.path}.${a.id}.${a1.id}.${img}`);
  const bList = await app.request('GET', `/api/dataset/${ds}/media?path=${b.path}&recursive=true`);
  assert.is(bList.body.pagination.total, 3);
  const itemMove = await app.request('PATCH', `/api/media/${img}/move`, {
    body: { destinationPath: ds.replace(/-/g, '') },
  });
  assert.is(itemMove.body.newPath, `${ds.replace(/-/g, '')}.${img}`);
  const newA = (await app.request('GET', `/api/folder/${a.id}`)).body.folder;
  const bad = async (id: string, body: object) =>
    (await app.request('PATCH', `/api/media/${id}/move`, { body })).status;
  assert.is(await bad(a.id, {}), 400, 'destinationPath missing');
  assert.is(await bad(a.id, { destinationPath: newA.path }), 400, 'into itself');
  assert.is(await bad(a.id, { destinationPath: `${newA.path}.${a1.id}` }), 400, 'into its own subfolder');
  assert.is(await bad(a.id, { destinationPath: other.replace(/-/g, '') }), 400, 'another collection');
  assert.is(await bad(a.id, { destinationPath: 'not a path' }), 400);
  assert.is(await bad('0'.repeat(32), { destinationPath: b.path }), 404);
});

t('delete: item, folder subtree, deletedCount, gone from listings and tags', async ({ app }) => {
  const ds = await app.collection('Delete');
  const f = (await app.request('POST', '/api/folder', { body: { datasetId: ds, name: 'F' } })).body.folder;
  const inF = (await app.upload({ datasetId: ds, path: f.path }, { bytes: await red(), filename: 'a.jpg' })).body
    .mediaId;
  await app.request('POST', `/api/media/${inF}/tags`, { body: { label: 'k', value: 'v' } });
  const loose = (await app.upload({ datasetId: ds }, { bytes: await red(), filename: 'b.jpg' })).body.mediaId;
  const del = await app.request('DELETE', `/api/media/${loose}`, { headers: { 'content-type': 'application/json' } });
  assert.equal(del.body, { id: loose, deletedCount: 1 });
  assert.is((await app.request('GET', `/api/media/${loose}`)).status, 404);
  assert.is((await app.request('DELETE', `/api/media/${loose}`)).status, 404);
  const delF = await app.request('DELETE', `/api/folder/${f.id}`);
  assert.is(delF.status, 200);
  assert.is(delF.body.deletedCount, 2);
  assert.is((await app.request('GET', `/api/dataset/${ds}/media?recursive=true`)).body.pagination.total, 0);
  assert.equal((await app.request('GET', `/api/dataset/${ds}/tags`)).body.tags, {});
});

t('errors: unknown route 404 JSON; bad JSON 400; success bodies never carry error', async ({ app, ds }) => {
  const r = await app.request('GET', '/api/nope');
  assert.is(r.status, 404);
  assert.is(r.body.error, 'Not Found');
  const badJson = await app.request('POST', '/api/folder', {
    body: '{"datasetId":',
    headers: { 'content-type': 'application/json' },
  });
  assert.is(badJson.status, 400);
  assert.is(badJson.body.error, 'Bad Request');
  const ok = await app.request('GET', `/api/dataset/${ds}/media`);
  assert.is(ok.body.error, undefined);
  assert.ok(ok.headers.get('x-request-id'));
});

t.run();
