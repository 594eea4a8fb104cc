/** GET /api/dataset/{id}/folders: one level of the folder tree with counts and breadcrumbs (the web app's sidebar). */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeImage, startTestApp, type TestApp } from '../helpers/testApp.js';

const t = suite<{ app: TestApp; ds: string }>('folder tree over HTTP');

t.before(async (ctx) => {
  ctx.app = await startTestApp();
  ctx.ds = await ctx.app.collection('Library');
});
t.after(async (ctx) => ctx.app.close());

async function newFolder(app: TestApp, datasetId: string, name: string, path?: string) {
  const r = await app.request('POST', '/api/folder', { body: { datasetId, name, path } });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.folder as { id: string; path: string };
}

t('lists child folders by name with counts, and the ancestors of the listed folder', async ({ app, ds }) => {
  const trips = await newFolder(app, ds, 'Trips');
  const art = await newFolder(app, ds, 'art');
  const rome = await newFolder(app, ds, 'Rome', trips.path);
  const up = await app.upload({ datasetId: ds, path: rome.path }, { bytes: await makeImage(), filename: 'a.png' });
  assert.is(up.status, 200, JSON.stringify(up.body));

  const root = await app.request('GET', `/api/dataset/${ds}/folders`);
  assert.is(root.status, 200);
  assert.equal(root.body.ancestors, []);
  assert.is(root.body.path, root.body.root);
  assert.equal(
    root.body.folders.map((f: any) => [f.name, f.childCount, f.folderCount, f.itemCount]),
    [
      ['art', 0, 0, 0],
      ['Trips', 1, 1, 1],
    ],
  );
  assert.equal(root.body.pagination, { total: 2, limit: 500, offset: 0, hasMore: false });
  assert.is(root.body.folders[0].id, art.id);

  const inRome = await app.request('GET', `/api/dataset/${ds}/folders?path=${rome.path}`);
  assert.is(inRome.status, 200);
  assert.equal(inRome.body.folders, []);
  assert.equal(
    inRome.body.ancestors.map((a: any) => [a.name, a.path]),
    [
      ['Trips', trips.path],
      ['Rome', rome.path],
    ],
  );
  const paged = await app.request('GET', `/api/dataset/${ds}/folders?limit=1&offset=1`);
  assert.equal(
    paged.body.folders.map((f: any) => f.name),
    ['Trips'],
  );
  assert.is(paged.body.pagination.hasMore, false);
});

t(
  'refusals: bad path 400, unknown folder 404, another organization 403, in the openapi document',
  async ({ app, ds }) => {
    assert.is((await app.request('GET', `/api/dataset/${ds}/folders?path=not-a-path`)).status, 400);
    assert.is((await app.request('GET', `/api/dataset/${ds}/folders?limit=0`)).status, 400);
    const root = (await app.request('GET', `/api/dataset/${ds}/folders`)).body.root as string;
    const missing = `${root}.${'0'.repeat(32)}`;
    assert.is((await app.request('GET', `/api/dataset/${ds}/folders?path=${missing}`)).status, 404);
    assert.is((await app.request('GET', `/api/dataset/${ds}/folders`, { key: null })).status, 401);

    const org = await app.request('POST', '/api/auth/organization/create', { body: { name: 'Other', slug: 'other' } });
    const key = await app.request('POST', '/api/keys', {
      body: { organizationId: org.body.organization.id, name: 'o' },
    });
    const other = await app.request('GET', `/api/dataset/${ds}/folders`, { key: key.body.key });
    assert.is(other.status, 403);
    assert.not.ok(other.body.folders, 'no data');

    const doc = await app.request('GET', '/api/openapi.json', { key: null });
    const op = doc.body.paths['/api/dataset/{datasetId}/folders'].get;
    assert.equal(op.parameters.map((p: any) => p.name).sort(), ['datasetId', 'limit', 'offset', 'path']);
  },
);

t.run();
