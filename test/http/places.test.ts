/**
 * Issue 26, places: real GPS photos of ../shared/fixtures/images (Arezzo, Tuscany) get their place offline at
 * ingest, are found by `q=<city>`, `q=<country>`, and by the country/place/camera/bbox filters of browse, the
 * organization search and the bulk selection; the places, cameras and map listings; bad filter values 400.
 * Skipped with a message when ../shared is absent.
 */
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sharedPath } from '../helpers/skip.js';
import { startTestApp, waitForProcessing, type TestApp } from '../helpers/testApp.js';

const FILES = ['exif_gps_DSCN0010.jpg', 'exif_gps_DSCN0029.jpg'];

const t = suite<{ app: TestApp; ds: string; ids: string[]; plain: string; skip: boolean }>('places');

t.before(async (ctx) => {
  ctx.app = await startTestApp();
  ctx.ds = await ctx.app.collection('Places');
  ctx.ids = [];
  const paths = FILES.map((f) => sharedPath(`fixtures/images/${f}`, 'places: GPS fixtures'));
  ctx.skip = paths.some((p) => !p);
  if (ctx.skip) return;
  for (const p of paths) {
    const up = await ctx.app.upload({ datasetId: ctx.ds }, { bytes: readFileSync(p!), filename: p!.split('/').pop()! });
    assert.is(up.status, 200, JSON.stringify(up.body));
    ctx.ids.push(up.body.mediaId);
  }
  const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#3060c0' } })
    .png()
    .toBuffer();
  const up = await ctx.app.upload({ datasetId: ctx.ds }, { bytes: png, filename: 'no-gps.png' });
  ctx.plain = up.body.mediaId;
  for (const id of [...ctx.ids, ctx.plain]) assert.is((await waitForProcessing(ctx.app, id)).processingStatus, 'ready');
});
t.after(async (ctx) => ctx.app.close());

const ids = (body: { media: Array<{ id: string }> }) => body.media.map((m) => m.id).sort();

t('a GPS photo gets its city, region and country on the media object', async ({ app, ids: got, skip }) => {
  if (skip) return;
  const m = (await app.request('GET', `/api/media/${got[0]}`)).body.media;
  assert.equal(m.location.place, { city: 'Arezzo', region: 'Tuscany', country: 'Italy', countryCode: 'IT' });
});

t('q=<city>, q=<region>, q=<country> find the photos taken there', async ({ app, ds, ids: got, plain, skip }) => {
  if (skip) return;
  for (const q of ['Arezzo', 'Tuscany', 'italy', 'Italy%202008']) {
    const r = await app.request('GET', `/api/dataset/${ds}/media?q=${q}&limit=50`);
    assert.is(r.status, 200);
    for (const id of got) assert.ok(ids(r.body).includes(id), `q=${q} finds ${id}`);
    assert.not.ok(ids(r.body).includes(plain), `q=${q} leaves out the photo without a position`);
  }
});

t('browse filters: country, place, camera, bbox (any case), alone and with q', async ({ app, ds, ids: got, skip }) => {
  if (skip) return;
  const list = async (qs: string) => {
    const r = await app.request('GET', `/api/dataset/${ds}/media?recursive=true&limit=50&${qs}`);
    assert.is(r.status, 200, `${qs}: ${JSON.stringify(r.body)}`);
    return ids(r.body);
  };
  const all = [...got].sort();
  assert.equal(await list('country=it'), all);
  assert.equal(await list('place=AREZZO'), all);
  assert.equal(await list('camera=coolpix%20p6000'), all);
  assert.equal(await list('bbox=11,43,12,44'), all);
  assert.equal(await list('bbox=170,43,-170,44'), [], 'a box across the antimeridian elsewhere');
  assert.equal(await list('country=PT'), []);
  assert.equal(await list('country=IT&q=Arezzo'), all);
  assert.equal(await list('country=PT&q=Arezzo'), []);
});

t('bad filter values answer 400 with a clear message', async ({ app, ds }) => {
  for (const [qs, words] of [
    ['country=ITA', 'ISO 3166-1'],
    ['country=1T', 'ISO 3166-1'],
    ['place=%20', 'place'],
    ['bbox=1,2,3', 'four numbers'],
    ['bbox=a,b,c,d', 'four numbers'],
    ['bbox=0,50,10,40', 'south'],
    ['bbox=0,-95,10,40', 'latitudes'],
    ['bbox=-190,0,10,40', 'longitudes'],
  ]) {
    for (const path of [`/api/dataset/${ds}/media?${qs}`, `/api/dataset/${ds}/map?${qs}`]) {
      const r = await app.request('GET', path);
      assert.is(r.status, 400, `${path}: ${r.status}`);
      assert.ok(String(r.body.message).includes(words), r.body.message);
    }
  }
  assert.is((await app.request('GET', `/api/dataset/${ds}/places?country=Italy`)).status, 400);
  const search = await app.request('GET', `/api/search?q=x&organizationId=${app.orgId}&bbox=1`);
  assert.is(search.status, 400);
});

t('places, cameras and map listings; a viewer reads them', async ({ app, ds, ids: got, skip }) => {
  if (skip) return;
  const viewer = (await app.request('POST', '/api/keys', { body: { role: 'viewer' } })).body.key as string;
  const places = await app.request('GET', `/api/dataset/${ds}/places`, { key: viewer });
  assert.is(places.status, 200);
  assert.equal(places.body.countries, [{ countryCode: 'IT', country: 'Italy', count: 2 }]);
  assert.is(places.body.places.length, 1);
  const [arezzo] = places.body.places;
  assert.equal(
    { ...arezzo, latitude: 0, longitude: 0 },
    {
      city: 'Arezzo',
      region: 'Tuscany',
      country: 'Italy',
      countryCode: 'IT',
      count: 2,
      latitude: 0,
      longitude: 0,
    },
  );
  assert.ok(Math.abs(arezzo.latitude - 43.47) < 0.01 && Math.abs(arezzo.longitude - 11.88) < 0.01);
  assert.equal((await app.request('GET', `/api/dataset/${ds}/places?country=pt`)).body.places, []);
  const cameras = await app.request('GET', `/api/dataset/${ds}/cameras`, { key: viewer });
  assert.equal(cameras.body, { cameras: [{ make: 'NIKON', model: 'COOLPIX P6000', count: 2 }] });
  const map = await app.request('GET', `/api/dataset/${ds}/map`, { key: viewer });
  assert.is(map.status, 200);
  assert.is(map.body.total, 2);
  assert.equal([...map.body.ids].sort(), [...got].sort());
  for (const x of [...map.body.latitudes, ...map.body.longitudes])
    assert.is(Math.round(x * 1e5) / 1e5, x, '5 decimals');
  assert.is((await app.request('GET', `/api/dataset/${ds}/map?country=PT`)).body.total, 0);
  assert.is((await app.request('GET', `/api/dataset/${ds}/map?camera=COOLPIX%20P6000&bbox=11,43,12,44`)).body.total, 2);
});

t(
  'trash and archive leave the counts; the organization search filters by place',
  async ({ app, ds, ids: got, skip }) => {
    if (skip) return;
    const patch = await app.request('PATCH', `/api/media/${got[0]}`, { body: { archived: true } });
    assert.is(patch.status, 200, JSON.stringify(patch.body));
    assert.is((await app.request('GET', `/api/dataset/${ds}/places`)).body.countries[0].count, 1);
    assert.is((await app.request('GET', `/api/dataset/${ds}/map`)).body.total, 1);
    assert.is((await app.request('GET', `/api/dataset/${ds}/map?archived=include`)).body.total, 2);
    await app.request('PATCH', `/api/media/${got[0]}`, { body: { archived: false } });
    const found = async (qs: string) =>
      (await app.request('GET', `/api/search?q=Arezzo&organizationId=${app.orgId}&limit=50&${qs}`)).body.results.map(
        (r: { media: { id: string } }) => r.media.id,
      ) as string[];
    const it = await found('country=IT');
    for (const id of got) assert.ok(it.includes(id), 'found in Italy');
    assert.equal(await found('country=FR'), []);
  },
);

t('a bulk selection by query takes the place filters', async ({ app, ds, ids: got, plain, skip }) => {
  if (skip) return;
  const tag = async (query: Record<string, string>, value: string) => {
    const body = {
      selection: { datasetId: ds, query },
      operation: { type: 'addTags', tags: [{ label: 'trip', value }] },
    };
    const r = await app.request('POST', '/api/media/bulk', { body });
    assert.is(r.status, 200, JSON.stringify(r.body));
  };
  await tag({ country: 'it', camera: 'COOLPIX P6000' }, 'italy');
  await tag({ bbox: '170,43,-170,44' }, 'nowhere');
  const r = await app.request('GET', `/api/dataset/${ds}/media?recursive=true&limit=50&tags=italy`);
  assert.equal(ids(r.body), [...got].sort());
  assert.not.ok(ids(r.body).includes(plain));
  const none = await app.request('GET', `/api/dataset/${ds}/media?recursive=true&limit=50&tags=nowhere`);
  assert.equal(ids(none.body), []);
  const bad = { selection: { datasetId: ds, query: { country: 'Italy' } }, operation: { type: 'reprocess' } };
  assert.is((await app.request('POST', '/api/media/bulk', { body: bad })).status, 400);
});

t('a folder filter and another organization', async ({ app, ds }) => {
  const org = await app.request('POST', '/api/auth/organization/create', { body: { name: 'Other', slug: 'other-pl' } });
  const key = await app.request('POST', '/api/keys', { body: { organizationId: org.body.organization.id, name: 'o' } });
  for (const path of ['places', 'cameras', 'map']) {
    const r = await app.request('GET', `/api/dataset/${ds}/${path}`, { key: key.body.key });
    assert.ok(r.status === 403 || r.status === 404, `${path}: ${r.status}`);
  }
  const missing = await app.request('GET', `/api/dataset/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}/places`);
  assert.is(missing.status, 404);
});

t.run();
