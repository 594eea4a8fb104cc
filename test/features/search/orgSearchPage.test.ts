import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Storage } from '../../../src/storage/storage.js';
import type { TextHit } from '../../../src/index/text/textIndex.js';
import { engineSql, onPostgres } from '../../helpers/engine.js';
import { startTestApp, type TestApp } from '../../helpers/testApp.js';

/**
 * GET /api/search's page assembly (src/features/search/orgSearch.ts) over the real
 * storage reads, with the two searches replaced by fixed hits so the ranking
 * is known: which frames a page shows, in which order, and every field of a
 * result as the spec's SearchResult has it.
 */
interface Ctx {
  app: TestApp;
  ds: string;
  storage: Storage;
  /** Frames asked per storage.media.pickFrames call, for every call since the last reset. */
  frameReads: number[];
  /** Ids per storage.media.summaries call. */
  itemReads: string[][];
}
const t = suite<Ctx>('organization search: the page');

const hex = (prefix: number, i: number) => prefix.toString(16).padStart(8, '0') + i.toString(16).padStart(24, '0');
const BLOB = (i: number) => `${i.toString(16).padStart(64, '0')}.jpg`;
const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
// Items: A image, B video (frames at 0 s and 5 s), C deleted, D and E images, F an old version of E, G scored nothing.
const A = hex(1, 1),
  B = hex(1, 2),
  C = hex(1, 3),
  D = hex(1, 4),
  E = hex(1, 5),
  F = hex(1, 6),
  G = hex(1, 7);
const frame = (media: string, n = 0) => hex(2, parseInt(media.slice(-4), 16) * 10 + n);

t.before(async (ctx) => {
  ctx.app = await startTestApp({ ingestConcurrency: 0 });
  ctx.ds = await ctx.app.collection('Page');
  ctx.storage = ctx.app.app.services.storage;
  // Plain SQL both engines read alike (fixed ids and times); paths are ltree labels on PostgreSQL.
  const sql = engineSql(ctx.app);
  const root = onPostgres ? ctx.ds.replace(/-/g, '') : '';
  const pathOf = (id: string) => (onPostgres ? `${root}.${id}` : `/${id}`);
  const media = (...p: Array<string | number | null>) =>
    sql.run(
      `INSERT INTO media (id, dataset_id, organization_id, path, parent_path, type, name, blob_key, mime_type, width, height, duration,
       size_bytes, status, processing_status, root_id, is_current, created_at, updated_at, created_by)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 640, 480, ?, 1000, ?, 'ready', ?, ?, ?, ?, 'test')`,
      ...p,
    );
  const frames = (...p: Array<string | number | null>) =>
    sql.run(
      `INSERT INTO frames (id, media_id, timestamp, seconds, blob_key, width, height, metadata, created_at, updated_at, created_by)
     VALUES (?, ?, ?, ?, ?, 320, 240, '{}', ?, ?, 'test')`,
      ...p,
    );
  const caption = (...p: Array<string | number | null>) =>
    sql.run(
      `INSERT INTO captions (id, frame_id, media_id, text, model, source, created_at, updated_at, created_by) VALUES (?, ?, ?, ?, 'm', 'model', ?, ?, 'model')`,
      ...p,
    );
  const object = (...p: Array<string | number | null>) =>
    sql.run(
      `INSERT INTO detected_objects (id, frame_id, media_id, type, label, blob_key, polygon, confidence, model, similarity_model, source, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'det', 'objects', 'model', ?, ?)`,
      ...p,
    );
  {
    let n = 0;
    const item = async (
      id: string,
      type: 'image' | 'video',
      opts: { status?: string; root?: string; current?: number } = {},
    ) => {
      const i = parseInt(id.slice(-4), 16);
      await media(
        id,
        ctx.ds,
        ctx.app.orgId,
        pathOf(id),
        onPostgres ? root : '/',
        type,
        `item ${i}.${type === 'video' ? 'mp4' : 'jpg'}`,
        BLOB(i),
        type === 'video' ? 'video/mp4' : 'image/jpeg',
        type === 'video' ? 10 : null,
        opts.status ?? 'active',
        opts.root ?? id,
        opts.current ?? 1,
        at(i),
        at(i),
      );
      for (const s of type === 'video' ? [5, 0] : [0]) {
        const f = frame(id, s);
        await frames(f, id, String(s), s, BLOB(1000 + i * 10 + s), at(i), at(i));
        // Two captions written newest first: the page lists them oldest first.
        await caption(hex(4, n++), f, id, `second caption of ${f}`, at(i + 2), at(i + 2));
        await caption(hex(4, n++), f, id, `first caption of ${f}`, at(i + 1), at(i + 1));
        await object(hex(3, n++), f, id, 'frame', 'frame', null, '[]', 1, at(i), at(i));
        await object(
          hex(3, n++),
          f,
          id,
          'object',
          'dog',
          BLOB(5000 + n),
          '[{"x":0.1,"y":0.2},{"x":0.5,"y":0.6}]',
          0.75,
          at(i + 1),
          at(i + 1),
        );
      }
    };
    await item(A, 'image');
    await item(B, 'video');
    await item(C, 'image', { status: 'deleted' });
    await item(D, 'image');
    await item(F, 'image', { root: F, current: 0 });
    await item(E, 'image', { root: F });
    await item(G, 'image');
  }

  // Fixed evidence: text hits only (scores are the text ranks), no embedding hits.
  const hits: TextHit[] = (
    [
      [A, frame(A), 0.95],
      [A, null, 0.9], // the item's own text: stands for A's first frame, already shown
      [B, frame(B, 5), 0.85],
      [C, frame(C), 0.8], // deleted
      [B, null, 0.75], // B's first frame (0 s), not shown yet
      [F, frame(F), 0.72], // not the current version
      [D, frame(D), 0.7],
      [E, frame(E), 0.6],
      [G, frame(G), 0], // no evidence: never read, never shown
    ] as const
  ).map(([mediaId, frameId, score]) => ({
    mediaId,
    frameId,
    collectionId: ctx.ds,
    score,
    bm25: 1,
    termsMatched: 1,
    termsTotal: 1,
    matchedFields: ['caption'],
  }));
  ctx.app.app.services.models.embedTexts = async () => [new Float32Array(8)];
  ctx.app.app.services.indexes.vectors.search = async () => [];
  ctx.app.app.services.indexes.text.search = async () => hits;
  ctx.frameReads = [];
  ctx.itemReads = [];
  const summaries0 = ctx.storage.media.summaries.bind(ctx.storage.media);
  ctx.storage.media.summaries = async (ids) => {
    ctx.itemReads.push(ids);
    return summaries0(ids);
  };
  const frames0 = ctx.storage.media.pickFrames.bind(ctx.storage.media);
  ctx.storage.media.pickFrames = async (refs) => {
    ctx.frameReads.push(refs.length);
    return frames0(refs);
  };
});
t.after(async (ctx) => ctx.app.close());

const search = (app: TestApp, limit: number) =>
  app.request('GET', `/api/search?q=anything&organizationId=${app.orgId}&limit=${limit}`);

t(
  'a frame is shown once, live items only, best first; a smaller page is a prefix of a bigger one',
  async ({ app, frameReads, itemReads }) => {
    const all = await search(app, 10);
    assert.equal(itemReads.flat().sort(), [A, B, C, D, E, F].sort(), 'the items of hits that scored, once each');
    itemReads.length = 0;
    await search(app, 1);
    assert.equal(itemReads.flat(), [A], 'a page of one reads the one item it shows');
    assert.is(all.status, 200, JSON.stringify(all.body));
    const ids = all.body.results.map((r: { id: string }) => r.id);
    assert.equal(ids, [frame(A), frame(B, 5), frame(B, 0), frame(D), frame(E)]);
    // Issue #14: frame-level results. The old count (6) took A's item-level hit as a result of its own, though it
    // stands for A's one frame, already counted; B's item-level hit stands for B at 0 s, shown (not known unread).
    assert.is(all.body.totalResults, 5, 'live frames among the hits, each once');
    for (const limit of [1, 2, 3, 4]) {
      frameReads.length = 0;
      const page = await search(app, limit);
      assert.equal(page.body.results, all.body.results.slice(0, limit), `limit ${limit}`);
      // Hits past the page are not read, so they count as live: a small page may still count the deleted C and the
      // old version F (6 at most: an item-level hit of an item with scored frames is not counted on its own).
      assert.ok(
        page.body.totalResults >= 5 && page.body.totalResults <= 6,
        `totalResults ${page.body.totalResults} for limit ${limit}`,
      );
      assert.is(page.body.limit, limit);
      assert.ok(
        frameReads.every((n) => n <= limit),
        `frame reads ${frameReads} for limit ${limit}`,
      );
    }
    // limit 3: the first read (A's frame, A's item hit: its first frame, the same; B at 5 s) yields two frames;
    // one more read finds B at 0 s.
    frameReads.length = 0;
    await search(app, 3);
    assert.equal(frameReads, [3, 1]);
  },
);

t('every field of a result as the spec has it', async ({ app, ds }) => {
  const r = await search(app, 3);
  const urls = app.app.services.urls;
  const b0 = r.body.results[2];
  const f = frame(B, 0);
  const caption = (first: boolean) =>
    (r.body.results[2].captions as Array<{ id: string; text: string }>).find((c) =>
      c.text.startsWith(first ? 'first' : 'second'),
    )!;
  const objects = (await app.request('GET', `/api/media/${B}`)).body.media.frames.find(
    (x: { id: string }) => x.id === f,
  ).objects;
  assert.equal(b0, {
    id: f,
    timestamp: '0',
    blob: urls.urlFor(BLOB(1000 + 2 * 10)),
    // Ours: the frame's renditions (none made for these rows written straight into the database).
    thumbnailUrl: null,
    previewUrl: null,
    width: 320,
    height: 240,
    media: {
      id: B,
      name: 'item 2.mp4',
      type: 'video',
      blob: urls.urlFor(BLOB(2), 'item 2.mp4'),
      width: 640,
      height: 480,
      duration: 10,
      createdAt: at(2),
      datasetId: ds,
    },
    captions: [
      { id: caption(true).id, text: `first caption of ${f}` },
      { id: caption(false).id, text: `second caption of ${f}` },
    ],
    objects: [
      { id: objects[0].id, type: 'frame', label: 'frame', blob: '', polygon: [], confidence: 1, model: 'det' },
      {
        id: objects[1].id,
        type: 'object',
        label: 'dog',
        blob: objects[1].blob,
        polygon: [
          { x: 0.1, y: 0.2 },
          { x: 0.5, y: 0.6 },
        ],
        confidence: 0.75,
        model: 'det',
      },
    ],
    rank: 0.75,
    matchedObjectId: null,
    rankingMetrics: { textRank: 0.75, objectEmbeddingRank: 0, totalRank: 0.75 },
  });
  assert.match(objects[1].blob, /\/files\/[\w-]{22}\/0+[0-9a-f]+\.jpg$/);
  assert.equal(Object.keys(r.body), ['results', 'query', 'limit', 'totalResults']);
  assert.is(r.body.query, 'anything');
});

t.run();
