import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeImage, startTestApp, waitForProcessing, type TestApp } from '../helpers/testApp.js';

/**
 * What the search screen needs from the API (issue #15): each match says why it matched (the text and
 * visual parts of its score and the region that matched), and organization search takes the collection
 * search's cut-off, filters and date order.
 */
const t = suite<{ app: TestApp; ds: string; ids: Record<string, string> }>('search explanations');

const COLOURS: Record<string, { r: number; g: number; b: number }> = {
  red1: { r: 220, g: 20, b: 20 },
  red2: { r: 200, g: 30, b: 25 },
  blue1: { r: 20, g: 30, b: 220 },
};

t.before(async (ctx) => {
  ctx.app = await startTestApp();
  ctx.ds = await ctx.app.collection('Explain');
  ctx.ids = {};
  for (const [name, color] of Object.entries(COLOURS)) {
    const up = await ctx.app.upload(
      { datasetId: ctx.ds, name: `${name}.jpg` },
      { bytes: await makeImage({ color }), filename: `${name}.jpg` },
    );
    ctx.ids[name] = up.body.mediaId;
    // Distinct creation times, so date order is well defined.
    await new Promise((r) => setTimeout(r, 15));
  }
  for (const id of Object.values(ctx.ids)) assert.is((await waitForProcessing(ctx.app, id)).processingStatus, 'ready');
});
t.after(async (ctx) => ctx.app.close());

const org = (app: TestApp, qs: string) => app.request('GET', `/api/search?organizationId=${app.orgId}&${qs}`);

t('_matchingFrames carry the text and visual parts and the matched region', async ({ app, ds, ids }) => {
  const r = await app.request('GET', `/api/dataset/${ds}/media?q=red&recursive=true&limit=10`);
  assert.is(r.status, 200);
  const top = r.body.media[0];
  assert.ok([ids.red1, ids.red2].includes(top.id));
  const mf = top._matchingFrames[0];
  assert.equal(Object.keys(mf).sort(), [
    'embeddingRank',
    'id',
    'objectId',
    'previewUrl',
    'score',
    'textRank',
    'thumbnailUrl',
  ]);
  assert.ok(mf.embeddingRank > 0.5, JSON.stringify(mf));
  assert.ok(mf.textRank >= 0 && mf.textRank <= 1);
  const objectIds = top.frames[0].objects.map((o: { id: string }) => o.id);
  assert.ok(objectIds.includes(mf.objectId), 'the matched region is one of the frame objects');
});

t('organization search names the matched region', async ({ app }) => {
  const r = await org(app, 'q=red');
  assert.is(r.status, 200);
  const hit = r.body.results[0];
  assert.ok(
    hit.objects.some((o: { id: string }) => o.id === hit.matchedObjectId),
    JSON.stringify(hit),
  );
});

t('organization search: minScore cuts, type and dates filter', async ({ app, ids }) => {
  // "blue" finds the blue picture clearly and the red ones (if at all) weakly: a cut-off between keeps only blue.
  const all = (await org(app, 'q=blue')).body.results;
  assert.is(all[0].media.id, ids.blue1);
  const cutAt = all[0].rank - 0.01;
  const cut = (await org(app, `q=blue&minScore=${cutAt}`)).body.results;
  assert.ok(cut.length >= 1 && cut.every((x: any) => x.rank >= cutAt));
  assert.not.ok(cut.some((x: any) => x.media.id === ids.red1 || x.media.id === ids.red2));
  assert.is((await org(app, 'q=red&type=video')).body.results.length, 0);
  assert.ok((await org(app, 'q=red&type=image')).body.results.length >= 2);
  assert.is((await org(app, 'q=red&dateTo=2000-01-01')).body.results.length, 0);
  const today = new Date().toISOString().slice(0, 10);
  assert.ok((await org(app, `q=red&dateFrom=${today}`)).body.results.length >= 2);
  assert.is((await org(app, 'q=red&dateFrom=yesterday')).status, 400);
  assert.is((await org(app, 'q=red&dateFrom=2030-01-02&dateTo=2030-01-01')).status, 400);
});

t('organization search: sortBy=createdAt orders the matches by date', async ({ app, ids }) => {
  const newest = (await org(app, 'q=red&minScore=0.5&sortBy=createdAt')).body.results.map((x: any) => x.media.id);
  assert.equal(newest, [ids.red2, ids.red1], 'newest first');
  const oldest = (await org(app, 'q=red&minScore=0.5&sortBy=createdAt&sortDirection=asc')).body.results;
  assert.equal(
    oldest.map((x: any) => x.media.id),
    [ids.red1, ids.red2],
  );
  assert.is((await org(app, 'q=red&sortBy=name')).status, 400);
});

t.run();
