/**
 * Duplicates through the real HTTP app: a scan finds exact copies (same bytes) and near duplicates (a real
 * photo resized and recompressed with sharp), the listing suggests the one to keep, resolving keeps it with the
 * others' tags and trashes the rest, dismissing hides a group for good; roles and other organizations.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApp, type TestApp } from '../../helpers/testApp.js';
import { photo, PHOTO_A, PHOTO_B, PHOTO_C, recompressed, resized, uploadReady } from './fixtures.js';

interface Ctx {
  app: TestApp;
  ds: string;
  ids: Record<string, string>;
  viewer: string;
}
const t = suite<Ctx>('duplicates: scan, review, resolve, dismiss');
const a = photo(PHOTO_A);
const b = photo(PHOTO_B);
const c = photo(PHOTO_C);

t.before(async (ctx) => {
  if (!a || !b || !c) return;
  ctx.app = await startTestApp();
  ctx.ds = await ctx.app.collection('Dupes');
  const files: Record<string, Buffer> = {
    a: a,
    aCopy: a,
    aSmall: await resized(a),
    aSquashed: await recompressed(a),
    b: b,
    bCopy: b,
    c: c,
  };
  ctx.ids = {};
  for (const [name, bytes] of Object.entries(files))
    ctx.ids[name] = await uploadReady(ctx.app, ctx.ds, `${name}.jpg`, bytes);
  ctx.viewer = (await ctx.app.request('POST', '/api/keys', { body: { role: 'viewer' } })).body.key;
});
t.after(async (ctx) => ctx.app?.close());

const list = (app: TestApp, ds: string, key?: string) =>
  app.request('GET', `/api/dataset/${ds}/duplicates?limit=10`, { key });

async function scan(app: TestApp, ds: string) {
  const r = await app.request('POST', `/api/dataset/${ds}/duplicates/scan`);
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.type(r.body.jobId, 'number');
  for (const until = Date.now() + 20_000; Date.now() < until;) {
    const l = await list(app, ds);
    if (l.body.scan.status === 'done') return l;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error('scan did not finish');
}

t('before a scan: status none, no groups (the empty state)', async ({ app, ds }) => {
  if (!app) return;
  const r = await list(app, ds);
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(r.body.scan.status, 'none');
  assert.equal(r.body.groups, []);
  assert.equal(r.body.pagination, { total: 0, limit: 10, offset: 0, hasMore: false });
});

t(
  'a viewer reads but may not scan, resolve or dismiss; another organization gets 403',
  async ({ app, ds, ids, viewer }) => {
    if (!app) return;
    assert.is((await list(app, ds, viewer)).status, 200);
    assert.is((await app.request('POST', `/api/dataset/${ds}/duplicates/scan`, { key: viewer })).status, 403);
    const body = { keepId: ids.a, trashIds: [ids.aCopy] };
    assert.is((await app.request('POST', `/api/dataset/${ds}/duplicates/resolve`, { key: viewer, body })).status, 403);
    const dismiss = { mediaIds: [ids.a, ids.aCopy] };
    assert.is(
      (await app.request('POST', `/api/dataset/${ds}/duplicates/dismiss`, { key: viewer, body: dismiss })).status,
      403,
    );

    const org = (await app.request('POST', '/api/auth/organization/create', { body: { name: 'Elsewhere' } })).body
      .organization;
    const other = (await app.request('POST', '/api/keys', { body: { organizationId: org.id, name: 'other' } })).body
      .key;
    const theirs = await list(app, ds, other);
    assert.is(theirs.status, 403);
    assert.not.match(JSON.stringify(theirs.body), ids.a);
    assert.is((await app.request('POST', `/api/dataset/${ds}/duplicates/resolve`, { key: other, body })).status, 403);
    const otherDs = (
      await app.request('POST', `/api/organization/${org.id}/datasets`, { key: other, body: { name: 'X' } })
    ).body.dataset.id;
    const cross = await app.request('POST', `/api/dataset/${otherDs}/duplicates/resolve`, { key: other, body });
    assert.is(cross.status, 404, 'our items are not found from their collection');
    assert.is((await app.request('GET', `/api/dataset/00000000000000000000000000000000/duplicates`)).status, 404);
  },
);

t('the scan groups exact copies and near duplicates; the suggestion keeps the biggest, best described', async (ctx) => {
  const { app, ds, ids } = ctx;
  if (!app) return;
  await app.request('POST', `/api/media/${ids.aCopy}/tags`, { body: { label: 'place', value: 'kitchen' } });
  await app.request('POST', `/api/media/${ids.aSmall}/tags`, { body: { label: 'trip', value: 'paris' } });
  const r = await scan(app, ds);
  assert.is(r.body.scan.threshold, 0.98, "the stand-in embedder's catalog fact");
  assert.is(r.body.groups.length, 2, JSON.stringify(r.body.groups.map((g: { items: unknown[] }) => g.items.length)));
  const [exact, near] = r.body.groups;
  assert.is(exact.kind, 'exact');
  assert.is(exact.similarity, 1);
  assert.equal(exact.items.map((m: { id: string }) => m.id).sort(), [ids.b, ids.bCopy].sort());
  assert.is(near.kind, 'near');
  assert.equal(
    near.items.map((m: { id: string }) => m.id).sort(),
    [ids.a, ids.aCopy, ids.aSmall, ids.aSquashed].sort(),
    'the copy, the resized and the recompressed one join the original; the other photos stay out',
  );
  assert.ok(near.similarity >= 0.98 && near.similarity <= 1, String(near.similarity));
  assert.is(near.keepId, ids.aCopy, 'full size, biggest file, and a tag: the tagged full-size copy');
  const small = near.items.find((m: { id: string }) => m.id === ids.aSmall);
  for (const f of ['width', 'height', 'sizeBytes', 'createdAt', 'thumbnailUrl']) assert.ok(small[f] !== undefined, f);
  assert.equal(small.folder, { path: small.path.split('.').slice(0, -1).join('.'), name: null });
  assert.is(r.body.pagination.total, 2);
  const paged = await app.request('GET', `/api/dataset/${ds}/duplicates?limit=1&offset=1`);
  assert.equal(
    paged.body.groups.map((g: { id: string }) => g.id),
    [near.id],
  );
  assert.is(paged.body.pagination.hasMore, false);
});

t('resolve keeps one, merges tags, trashes the rest (soft delete); bad requests are 4xx', async ({ app, ds, ids }) => {
  if (!app) return;
  const url = `/api/dataset/${ds}/duplicates/resolve`;
  const bad = [
    [{ keepId: ids.a, trashIds: [ids.a] }, 400],
    [{ keepId: ids.a, trashIds: [] }, 400],
    [{ keepId: ids.a, trashIds: ['ffffffffffffffffffffffffffffffff'] }, 404],
    [{ keepId: ids.a }, 400],
    [{ keepId: ids.a, trashIds: [ids.b], extra: 1 }, 400],
  ] as const;
  for (const [body, status] of bad)
    assert.is((await app.request('POST', url, { body })).status, status, JSON.stringify(body));
  const trash = [ids.a, ids.aSmall, ids.aSquashed];
  const r = await app.request('POST', url, { body: { keepId: ids.aCopy, trashIds: trash, name: 'a.jpg' } });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.kept.metadata.tags, { place: ['kitchen'], trip: ['paris'] });
  assert.is(r.body.kept.name, 'a.jpg');
  assert.equal(r.body.trashed.map((x: { id: string }) => x.id).sort(), [...trash].sort());
  for (const id of trash) assert.is((await app.request('GET', `/api/media/${id}`)).status, 404, 'in the trash');
  const bin = await app.request('GET', `/api/dataset/${ds}/trash?limit=50`);
  assert.equal(
    bin.body.entries.map((e: { id: string }) => e.id).sort(),
    [...trash].sort(),
    'listed in the trash, restorable',
  );
  const l = await list(app, ds);
  assert.equal(
    l.body.groups.map((g: { kind: string }) => g.kind),
    ['exact'],
    'the resolved group is gone',
  );
});

t('dismiss hides a group, and a new scan does not bring it back', async ({ app, ds, ids }) => {
  if (!app) return;
  const url = `/api/dataset/${ds}/duplicates/dismiss`;
  assert.is((await app.request('POST', url, { body: { mediaIds: [ids.b] } })).status, 400);
  const r = await app.request('POST', url, { body: { mediaIds: [ids.bCopy, ids.b] } });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.equal((await list(app, ds)).body.groups, []);
  const again = await scan(app, ds);
  assert.equal(again.body.groups, [], 'still dismissed after a new scan');
});

t.run();
