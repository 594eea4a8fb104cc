/**
 * Search by example through the real HTTP app: a dropped photo (sent as a data URI) finds its near duplicates
 * first, with scores, under the browse filters; and the server keeps nothing of it (no file, row or event).
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { withoutVectors } from '../../helpers/engine.js';
import { startTestApp, type TestApp } from '../../helpers/testApp.js';
import { photo, PHOTO_A, PHOTO_B, PHOTO_C, recompressed, resized, uploadReady } from './fixtures.js';

interface Ctx {
  app: TestApp;
  ds: string;
  ids: Record<string, string>;
}
const t = suite<Ctx>('search by image');
const a = photo(PHOTO_A);
const b = photo(PHOTO_B);
const c = photo(PHOTO_C);

t.before(async (ctx) => {
  if (!a || !b || !c) return;
  ctx.app = await startTestApp();
  ctx.ds = await ctx.app.collection('Examples');
  ctx.ids = {
    a: await uploadReady(ctx.app, ctx.ds, 'a.jpg', a),
    b: await uploadReady(ctx.app, ctx.ds, 'b.jpg', b),
    c: await uploadReady(ctx.app, ctx.ds, 'c.jpg', c),
  };
});
t.after(async (ctx) => ctx.app?.close());

const dataUri = (bytes: Buffer) => `data:image/jpeg;base64,${bytes.toString('base64')}`;
const url = (ds: string) => `/api/dataset/${ds}/media/search-by-image`;

/** Every file under the data directory but the database's own, with its size. */
function files(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (!/\.db(-wal|-shm)?$/.test(e.name)) out.push(`${path.relative(dir, p)} ${statSync(p).size}`);
    }
  };
  walk(dir);
  return out.sort();
}

(withoutVectors('search by image ranks by the embedding') ? t.skip : t)(
  'a resized, recompressed copy of a photo finds the photo first, with scores',
  async ({ app, ds, ids }) => {
    if (!app) return;
    const r = await app.request('POST', url(ds), { body: { image: dataUri(await recompressed(await resized(a!))) } });
    assert.is(r.status, 200, JSON.stringify(r.body));
    assert.is(r.body.media[0].id, ids.a);
    assert.ok(r.body.media[0]._score > 0.9, String(r.body.media[0]._score));
    const scores = r.body.media.map((m: { _score: number }) => m._score);
    assert.equal(
      scores,
      [...scores].sort((x: number, y: number) => y - x),
      'best first',
    );
    assert.ok(r.body.media[0]._matchingFrames.length > 0);
    assert.type(r.body.pagination.total, 'number');
  },
);

(withoutVectors('search by image ranks by the embedding') ? t.skip : t)(
  'filters apply: type and dates narrow, limit pages',
  async ({ app, ds, ids }) => {
    if (!app) return;
    const image = dataUri(await resized(a!));
    const videos = await app.request('POST', url(ds), { body: { image, type: 'video' } });
    assert.is(videos.status, 200, JSON.stringify(videos.body));
    assert.equal(videos.body.media, []);
    const past = await app.request('POST', url(ds), { body: { image, dateTo: '2001-01-01' } });
    assert.equal(past.body.media, []);
    const one = await app.request('POST', url(ds), { body: { image, limit: 1, minScore: 0 } });
    assert.equal(
      one.body.media.map((m: { id: string }) => m.id),
      [ids.a],
    );
    assert.ok(one.body.pagination.hasMore);
  },
);

t('nothing is stored: no file, no item, no event', async ({ app, ds }) => {
  if (!app) return;
  const before = files(app.dataDir);
  // Background work of the setup (ingest's last events, the places sweep) may still append: wait until the log
  // holds still for half a second, so what is compared below is the searches' own doing.
  let events = await app.app.services.storage.events.bounds();
  for (let still = 0; still < 5;) {
    await new Promise((r) => setTimeout(r, 100));
    const now = await app.app.services.storage.events.bounds();
    still = JSON.stringify(now) === JSON.stringify(events) ? still + 1 : 0;
    events = now;
  }
  const count = async () =>
    (await app.request('GET', `/api/dataset/${ds}/media?recursive=true&limit=1`)).body.pagination.total;
  const items = await count();
  for (let i = 0; i < 3; i++) {
    const r = await app.request('POST', url(ds), { body: { image: dataUri(await recompressed(b!)) } });
    assert.is(r.status, 200);
  }
  assert.equal(files(app.dataDir), before, 'no file added under DATA_DIR (blobs, tmp, outputs)');
  assert.is(await count(), items);
  assert.equal(await app.app.services.storage.events.bounds(), events, 'no event appended');
});

t('bad input is a 4xx; viewers may search; another organization may not', async ({ app, ds }) => {
  if (!app) return;
  const bad: Array<[unknown, number]> = [
    [{}, 400],
    [{ image: '' }, 400],
    [{ image: 'data:text/plain;base64,aGVsbG8=' }, 400],
    [{ image: 'data:image/png;base64,AAAA' }, 422],
    [{ image: dataUri(b!), type: 'nope' }, 400],
    [{ image: dataUri(b!), dateFrom: '2020-13-01' }, 400],
    [{ image: dataUri(b!), path: 'ffffffffffffffffffffffffffffffff' }, 400],
    [{ image: dataUri(b!), path: `${ds.replace(/-/g, '')}.ffffffffffffffffffffffffffffffff` }, 404],
  ];
  for (const [body, status] of bad) {
    const r = await app.request('POST', url(ds), { body });
    assert.is(r.status, status, `${JSON.stringify(body).slice(0, 80)} → ${JSON.stringify(r.body)}`);
    assert.type(r.body.message, 'string');
  }
  const viewer = (await app.request('POST', '/api/keys', { body: { role: 'viewer' } })).body.key;
  assert.is((await app.request('POST', url(ds), { key: viewer, body: { image: dataUri(b!) } })).status, 200);
  const org = (await app.request('POST', '/api/auth/organization/create', { body: { name: 'Other' } })).body
    .organization;
  const other = (await app.request('POST', '/api/keys', { body: { organizationId: org.id, name: 'o' } })).body.key;
  assert.is((await app.request('POST', url(ds), { key: other, body: { image: dataUri(b!) } })).status, 403);
});

t.run();
