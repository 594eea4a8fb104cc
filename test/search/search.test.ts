import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { sharedPath } from '../helpers/skip.js';
import { startTestApp, waitForProcessing, type TestApp } from '../helpers/testApp.js';

/**
 * Search end to end with the stand-in models (colour semantics): the embedder
 * maps an image to its dominant colour and a text to its colour words, so
 * "red" must find the red pictures.
 */
const t = suite<{ app: TestApp; ds: string; ids: Record<string, string> }>('search');

const solid = (r: number, g: number, b: number) =>
  sharp({ create: { width: 96, height: 72, channels: 3, background: { r, g, b } } })
    .jpeg()
    .toBuffer();
const COLOURS: Record<string, [number, number, number]> = {
  red1: [220, 20, 20],
  red2: [200, 30, 25],
  blue1: [20, 30, 220],
  green1: [20, 180, 30],
  yellow1: [240, 230, 20],
  grey1: [128, 128, 128],
};

t.before(async (ctx) => {
  ctx.app = await startTestApp();
  ctx.ds = await ctx.app.collection('Search');
  ctx.ids = {};
  for (const [name, rgb] of Object.entries(COLOURS)) {
    const fileName = name === 'grey1' ? 'holiday-zebra_crossing.jpg' : `${name}.jpg`;
    const up = await ctx.app.upload(
      { datasetId: ctx.ds, name: fileName },
      { bytes: await solid(...rgb), filename: fileName },
    );
    ctx.ids[name] = up.body.mediaId;
  }
  for (const id of Object.values(ctx.ids)) assert.is((await waitForProcessing(ctx.app, id)).processingStatus, 'ready');
});
t.after(async (ctx) => ctx.app.close());

const search = (app: TestApp, ds: string, qs: string) => app.request('GET', `/api/dataset/${ds}/media?${qs}`);

t('q=red ranks the red pictures first, with _score and _matchingFrames', async ({ app, ds, ids }) => {
  const r = await search(app, ds, 'q=red&limit=10');
  assert.is(r.status, 200, JSON.stringify(r.body));
  const top = r.body.media
    .slice(0, 2)
    .map((m: { id: string }) => m.id)
    .sort();
  assert.equal(top, [ids.red1, ids.red2].sort());
  for (const m of r.body.media) {
    assert.ok(m._score >= 0.05 && m._score <= 1, String(m._score));
    assert.ok(Array.isArray(m._matchingFrames));
  }
  const scores = r.body.media.map((m: { _score: number }) => m._score);
  assert.equal(
    scores,
    [...scores].sort((a, b) => b - a),
    'ranked by _score descending',
  );
  assert.is(r.body.media[0]._matchingFrames[0].id, r.body.media[0].frames[0].id);
  assert.ok(r.body.media[0]._score > 0.8, 'a clear match scores near 1');
});

t('minScore cuts; sortBy orders the items above it', async ({ app, ds, ids }) => {
  const strict = await search(app, ds, 'q=blue&minScore=0.5');
  assert.equal(
    strict.body.media.map((m: { id: string }) => m.id),
    [ids.blue1],
  );
  assert.is(strict.body.pagination.total, 1);
  const byName = await search(app, ds, 'q=red&minScore=0.5&sortBy=name&sortDirection=asc');
  assert.equal(
    byName.body.media.map((m: { name: string }) => m.name),
    ['red1.jpg', 'red2.jpg'],
  );
});

t('a match by text alone is found (a word in the file name)', async ({ app, ds, ids }) => {
  const r = await search(app, ds, 'q=zebra');
  assert.is(r.status, 200);
  assert.is(
    r.body.media[0]?.id,
    ids.grey1,
    JSON.stringify(r.body.media.map((m: { name: string; _score: number }) => [m.name, m._score])),
  );
  const org = await app.request('GET', `/api/search?q=zebra&organizationId=${app.orgId}`);
  assert.is(org.body.results[0].media.id, ids.grey1);
  assert.ok(org.body.results[0].rankingMetrics.textRank > 0);
});

t("similarToObjectId: the object's own item first; unknown object 404; unknown model 400", async ({ app, ds, ids }) => {
  const m = (await app.request('GET', `/api/media/${ids.green1}`)).body.media;
  const frameObject = m.frameObjectId;
  assert.ok(frameObject);
  const r = await search(app, ds, `similarToObjectId=${frameObject}&similarToObjectModel=objects`);
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(r.body.media[0].id, ids.green1);
  assert.ok(r.body.media[0]._score > 0.9);
  assert.is((await search(app, ds, `similarToObjectId=${'0'.repeat(32)}&similarToObjectModel=objects`)).status, 404);
  assert.is((await search(app, ds, `similarToObjectId=${frameObject}&similarToObjectModel=cars`)).status, 400);
});

t('similarToObjectId of an object in another organization: 404, as for an unknown one', async ({ app, ids }) => {
  const frameObject = (await app.request('GET', `/api/media/${ids.red1}`)).body.media.frameObjectId;
  assert.ok(frameObject);
  const org = (await app.request('POST', '/api/auth/organization/create', { body: { name: 'Elsewhere' } })).body
    .organization;
  const key = (await app.request('POST', '/api/keys', { body: { organizationId: org.id, name: 'elsewhere' } })).body
    .key as string;
  const ds2 = (await app.request('POST', `/api/organization/${org.id}/datasets`, { key, body: { name: 'Theirs' } }))
    .body.dataset.id as string;
  const r = await app.request('GET', `/api/dataset/${ds2}/media?similarToObjectId=${frameObject}`, { key });
  assert.is(r.status, 404, JSON.stringify(r.body));
  assert.not.ok(JSON.stringify(r.body).includes(ids.red1));
});

t('filters combine with scoring: path, type, tags', async ({ app, ds, ids }) => {
  const folder = (await app.request('POST', '/api/folder', { body: { datasetId: ds, name: 'Reds' } })).body.folder;
  await app.request('PATCH', `/api/media/${ids.red2}/move`, { body: { destinationPath: folder.path } });
  const inFolder = await search(app, ds, `q=red&path=${folder.path}`);
  assert.equal(
    inFolder.body.media.map((m: { id: string }) => m.id),
    [ids.red2],
  );
  await app.request('POST', `/api/media/${ids.red1}/tags`, { body: { label: 'kind', value: 'keeper' } });
  const tagged = await search(app, ds, `q=red&tagFilters=${encodeURIComponent(JSON.stringify({ kind: ['keeper'] }))}`);
  assert.equal(
    tagged.body.media.map((m: { id: string }) => m.id),
    [ids.red1],
  );
  assert.is((await search(app, ds, 'q=red&type=video')).body.pagination.total, 0);
  const all = await search(app, ds, 'q=red&minScore=0.5');
  assert.is(all.body.pagination.total, 2, 'without a path the whole collection is searched');
});

t('organization search spans collections and respects access', async ({ app, ds }) => {
  const other = await app.collection('Second');
  const up = await app.upload(
    { datasetId: other, name: 'red-elsewhere.jpg' },
    { bytes: await solid(230, 15, 15), filename: 'r.jpg' },
  );
  await waitForProcessing(app, up.body.mediaId);
  const r = await app.request('GET', `/api/search?q=red&organizationId=${app.orgId}&limit=5`);
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(r.body.query, 'red');
  assert.is(r.body.limit, 5);
  const datasets = new Set(r.body.results.map((x: { media: { datasetId: string } }) => x.media.datasetId));
  assert.ok(datasets.has(ds) && datasets.has(other), 'results from both collections');
  const top = r.body.results[0];
  for (const k of [
    'id',
    'timestamp',
    'blob',
    'width',
    'height',
    'media',
    'captions',
    'objects',
    'rank',
    'rankingMetrics',
  ])
    assert.ok(k in top, k);
  assert.ok(top.rank > 0 && top.rank <= 1);
  for (const k of ['textRank', 'objectEmbeddingRank', 'totalRank'])
    assert.ok(top.rankingMetrics[k] >= 0 && top.rankingMetrics[k] <= 1);
  const ranks = r.body.results.map((x: { rank: number }) => x.rank);
  assert.equal(
    ranks,
    [...ranks].sort((a, b) => b - a),
  );
  assert.is((await app.request('GET', `/api/search?organizationId=${app.orgId}`)).status, 400);
  assert.is(
    (await app.request('GET', `/api/search?q=red&organizationId=00000000-0000-0000-0000-000000000000`)).status,
    404,
  );
  const newOrg = (await app.request('POST', '/api/auth/organization/create', { body: { name: 'Elsewhere' } })).body
    .organization;
  const key = (await app.request('POST', '/api/keys', { body: { organizationId: newOrg.id } })).body.key;
  assert.is((await app.request('GET', `/api/search?q=red&organizationId=${app.orgId}`, { key })).status, 403);
  const own = await app.request('GET', `/api/search?q=red&organizationId=${newOrg.id}`, { key });
  assert.equal(own.body.results, [], 'another organization sees none of these');
});

t.run();

const faces = suite('face clusters through the API (real UltraFace)');
faces('the same person uploaded twice forms one cluster; browse by clusterId returns both items', async () => {
  const detector = sharedPath('models/ultraface/version-RFB-320.onnx', 'face clusters over HTTP');
  const photo = sharedPath('fixtures/images/ulf_5.jpg', 'face clusters over HTTP');
  if (!detector || !photo) return;
  const modelsDir = mkdtempSync(path.join(os.tmpdir(), 'search-models-'));
  mkdirSync(path.join(modelsDir, 'ultraface-rfb-320'));
  symlinkSync(detector, path.join(modelsDir, 'ultraface-rfb-320', 'version-RFB-320.onnx'));
  const app = await startTestApp({ modelsDir });
  try {
    const ds = await app.collection('Faces');
    const bytes = readFileSync(photo);
    const a = (await app.upload({ datasetId: ds, name: 'a.jpg' }, { bytes, filename: 'a.jpg' })).body.mediaId;
    const b = (
      await app.upload(
        { datasetId: ds, name: 'b.jpg' },
        { bytes: await sharp(bytes).resize({ width: 800 }).jpeg({ quality: 80 }).toBuffer(), filename: 'b.jpg' },
      )
    ).body.mediaId;
    await waitForProcessing(app, a, 60_000);
    await waitForProcessing(app, b, 60_000);
    let clusters: any[] = [];
    for (let i = 0; i < 100 && !clusters.some((c) => c.mediaCount === 2); i++) {
      await new Promise((r) => setTimeout(r, 200));
      clusters = (await app.request('GET', `/api/dataset/${ds}/clusters`)).body.clusters;
    }
    const both = clusters.find((c) => c.mediaCount === 2);
    assert.ok(both, JSON.stringify(clusters));
    assert.is((await fetch(both.preview)).status, 200);
    const listed = await app.request('GET', `/api/dataset/${ds}/media?clusterId=${both.id}&recursive=true`);
    assert.equal(listed.body.media.map((m: { id: string }) => m.id).sort(), [a, b].sort());
    // similarity by a face: its own item first, the copy next.
    const face =
      (await app.request('GET', `/api/media/${a}`)).body.media.frames[0].objects.find(
        (o: { type: string; id: string }) => o.type === 'face' && o.id === both.previewObjectId,
      ) ??
      (await app.request('GET', `/api/media/${a}`)).body.media.frames[0].objects.find(
        (o: { type: string }) => o.type === 'face',
      );
    const sim = await app.request(
      'GET',
      `/api/dataset/${ds}/media?similarToObjectId=${face.id}&similarToObjectModel=faces`,
    );
    assert.is(sim.status, 200, JSON.stringify(sim.body));
    assert.equal(
      sim.body.media
        .slice(0, 2)
        .map((m: { id: string }) => m.id)
        .sort(),
      [a, b].sort(),
    );
  } finally {
    await app.close();
    rmSync(modelsDir, { recursive: true, force: true });
  }
});
faces.run();
