/**
 * The timeline over HTTP (issue #26): a collection's month buckets with browse's filters, the organization's
 * buckets over every collection, the organization's date-range listing that fills a month, OpenAPI, viewers,
 * other organizations and bad parameters (4xx, never 5xx). Items are inserted through the store (their
 * capture times set), read through the real app.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newMediaId } from '../../src/platform/ids.js';
import { startTestApp, type TestApp } from '../helpers/testApp.js';

interface Ctx {
  app: TestApp;
  me: { userId: string; organizationId: string };
  a: string;
  b: string;
  viewer: string;
  keyB: string;
  orgB: string;
  dsB: string;
  ids: Record<string, string>;
}

const t = suite<Ctx>('timeline over HTTP');

async function add(
  c: Ctx,
  ds: string,
  name: string,
  takenAt: string | null,
  o: { type?: 'video'; tags?: Record<string, string[]> } = {},
) {
  const id = newMediaId();
  await c.app.app.services.storage.media.insert(
    {
      id,
      collectionId: ds,
      organizationId: c.me.organizationId,
      parentPath: ds.replace(/-/g, ''),
      type: o.type ?? 'image',
      name,
      blobKey: `${id}.bin`,
      mimeType: o.type ? 'video/mp4' : 'image/jpeg',
      width: 64,
      height: 48,
      duration: o.type ? 3 : null,
      sizeBytes: 100,
      exif: {},
      metadata: o.tags ? { tags: o.tags } : {},
      processingStatus: 'ready',
      createdById: c.me.userId,
      takenAt,
    },
    [],
  );
  c.ids[name] = id;
  return id;
}

t.before(async (c) => {
  const app = (c.app = await startTestApp());
  c.me = (await app.request('GET', '/api/me')).body;
  c.ids = {};
  c.a = await app.collection('Holidays');
  c.b = await app.collection('Family');
  c.viewer = (await app.request('POST', '/api/keys', { body: { role: 'viewer' } })).body.key;
  c.orgB = (await app.request('POST', '/api/auth/organization/create', { body: { name: 'B' } })).body.organization.id;
  c.keyB = (await app.request('POST', '/api/keys', { body: { organizationId: c.orgB, role: 'owner' } })).body.key;
  c.dsB = (
    await app.request('POST', `/api/organization/${c.orgB}/datasets`, { key: c.keyB, body: { name: 'B' } })
  ).body.dataset.id;
  await add(c, c.a, 'lisbon1', '2019-03-02T10:00:00.000Z', { tags: { trip: ['lisbon'] } });
  await add(c, c.a, 'lisbon2', '2019-03-20T10:00:00.000Z', { tags: { trip: ['lisbon'] } });
  await add(c, c.a, 'clip', '2019-03-21T10:00:00.000Z', { type: 'video' });
  await add(c, c.a, 'old', '2004-12-25T08:00:00.000Z');
  await add(c, c.b, 'birthday', '2019-03-10T10:00:00.000Z');
  await add(c, c.b, 'newyear', '2010-01-01T00:30:00.000Z');
  await c.app.request('POST', `/api/dataset/${c.a}/folders`, { body: { name: 'Empty folder' } });
});
t.after(async ({ app }) => app.close());

t('a collection: month buckets newest first, with the browse filters', async (c) => {
  const get = (q = '') => c.app.request('GET', `/api/dataset/${c.a}/timeline${q}`);
  const r = await get();
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body, {
    buckets: [
      { month: '2019-03', count: 3 },
      { month: '2004-12', count: 1 },
    ],
    total: 4,
  });
  assert.equal((await get('?type=video')).body.buckets, [{ month: '2019-03', count: 1 }]);
  assert.equal((await get('?tags=lisbon')).body.total, 2);
  assert.equal((await get('?dateFrom=2000-01-01&dateTo=2005-01-01')).body.buckets, [{ month: '2004-12', count: 1 }]);
  const patched = await c.app.request('PATCH', `/api/media/${c.ids.old}`, { body: { archived: true } });
  assert.is(patched.status, 200);
  assert.is((await get()).body.total, 3, 'archived items leave the default timeline');
  assert.is((await get('?archived=include')).body.total, 4);
  await c.app.request('PATCH', `/api/media/${c.ids.old}`, { body: { archived: false } });
  assert.is((await c.app.request('DELETE', `/api/media/${c.ids.clip}`)).status, 200);
  assert.is((await get()).body.total, 3, 'a trashed item leaves it');
  await c.app.request('POST', `/api/dataset/${c.a}/trash/restore`, { body: { ids: [c.ids.clip] } });
});

t('the organization: buckets over every collection, and the date-range listing that fills a month', async (c) => {
  const org = c.me.organizationId;
  const r = await c.app.request('GET', `/api/organization/${org}/timeline`, { key: c.viewer });
  assert.is(r.status, 200, JSON.stringify(r.body));
  const months = Object.fromEntries(r.body.buckets.map((b: { month: string; count: number }) => [b.month, b.count]));
  assert.is(months['2019-03'], (await c.app.request('GET', `/api/dataset/${c.a}/timeline`)).body.buckets[0].count + 1);
  assert.is(months['2010-01'], 1);
  assert.equal(
    r.body.buckets.map((b: { month: string }) => b.month),
    [...r.body.buckets.map((b: { month: string }) => b.month)].sort().reverse(),
  );
  const page = (q: string) => c.app.request('GET', `/api/organization/${org}/media?${q}`, { key: c.viewer });
  const march = await page('dateFrom=2019-03-01&dateTo=2019-03-31&limit=2');
  assert.is(march.status, 200, JSON.stringify(march.body));
  assert.equal(
    march.body.media.map((m: { id: string }) => m.id),
    [c.ids.clip, c.ids.lisbon2],
  );
  assert.equal(march.body.pagination, { total: 4, limit: 2, offset: 0, hasMore: true });
  assert.is(march.body.media[0].datasetId, c.a);
  const rest = await page('dateFrom=2019-03-01&dateTo=2019-03-31&limit=2&offset=2');
  assert.equal(
    rest.body.media.map((m: { id: string; datasetId: string }) => [m.id, m.datasetId]),
    [
      [c.ids.birthday, c.b],
      [c.ids.lisbon1, c.a],
    ],
    'merged across collections by capture time',
  );
  const oldest = await page('sortDirection=asc&limit=1');
  assert.equal(oldest.body.media[0].id, c.ids.old);
  const one = await page(`datasetId=${c.b}&limit=10`);
  assert.equal(
    one.body.media.map((m: { id: string }) => m.id),
    [c.ids.birthday, c.ids.newyear],
  );
});

t('access: viewers read, other organizations are refused, bad parameters answer 400', async (c) => {
  const org = c.me.organizationId;
  assert.is((await c.app.request('GET', `/api/dataset/${c.a}/timeline`, { key: c.viewer })).status, 200);
  assert.is((await c.app.request('GET', `/api/dataset/${c.a}/timeline`, { key: c.keyB })).status, 403);
  assert.is((await c.app.request('GET', `/api/organization/${org}/timeline`, { key: c.keyB })).status, 403);
  assert.is((await c.app.request('GET', `/api/organization/${org}/media`, { key: c.keyB })).status, 403);
  const foreign = await c.app.request('GET', `/api/organization/${org}/media?datasetId=${c.dsB}`);
  assert.is(foreign.status, 403, 'another organization’s collection, as browse answers');
  assert.not.ok(JSON.stringify(foreign.body).includes('birthday'));
  const bad = [
    `/api/dataset/${c.a}/timeline?dateFrom=2019-13-01`,
    `/api/dataset/${c.a}/timeline?type=folder`,
    `/api/dataset/${c.a}/timeline?tagFilters=%7Bnope`,
    `/api/dataset/${c.a}/timeline?dateFrom=2020-01-02&dateTo=2020-01-01`,
    `/api/dataset/${c.a}/timeline?sortBy=name`,
    `/api/organization/${org}/media?limit=5000`,
    `/api/organization/${org}/media?offset=19999&limit=10`,
    `/api/organization/${org}/timeline?path=x`,
  ];
  for (const url of bad) {
    const r = await c.app.request('GET', url);
    assert.is(r.status, 400, `${url}: ${JSON.stringify(r.body)}`);
    assert.type(r.body.message, 'string');
  }
  assert.is((await c.app.request('GET', `/api/dataset/${newMediaId()}/timeline`)).status, 404);
  assert.is((await c.app.request('GET', `/api/dataset/${c.a}/timeline?path=nowhere`)).status, 400);
  assert.is((await c.app.request('GET', `/api/organization/${newMediaId()}/timeline`)).status, 404);
});

t('OpenAPI documents the three routes', async (c) => {
  const doc = (await c.app.request('GET', '/api/openapi.json')).body;
  for (const p of ['/api/dataset/{datasetId}/timeline', '/api/organization/{orgId}/timeline'])
    assert.ok(doc.paths[p]?.get, p);
  assert.ok(
    doc.paths['/api/organization/{orgId}/media']?.get?.parameters?.some((x: { name: string }) => x.name === 'dateFrom'),
  );
});

t.run();
