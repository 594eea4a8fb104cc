/**
 * POST /api/media/bulk through the real HTTP app: tags by ids, selections by query against browse (seeded,
 * random), moves, all or nothing, other organizations' ids, viewers, and undo of exactly what changed.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newMediaId } from '../../src/platform/ids.js';
import { seededRandom } from '../../src/platform/random.js';
import type { PgDb } from '../../src/platform/pgDb.js';
import type { SqliteStorage } from '../../src/storage/sqlite/index.js';
import { startTestApp, type TestApp } from '../helpers/testApp.js';

interface Ctx {
  app: TestApp;
  ds: string;
  me: { userId: string; organizationId: string };
}
const t = suite<Ctx>('http: bulk actions');

t.before.each(async (ctx) => {
  ctx.app = await startTestApp();
  ctx.ds = await ctx.app.collection();
  ctx.me = (await ctx.app.request('GET', '/api/me')).body;
});
t.after.each(async (ctx) => ctx.app.close());

async function item(
  ctx: Ctx,
  o: { parentPath?: string; tags?: Record<string, string[]>; type?: 'image' | 'video'; createdAt?: string } = {},
) {
  const id = newMediaId();
  await ctx.app.app.services.storage.media.insert(
    {
      id,
      collectionId: ctx.ds,
      organizationId: ctx.me.organizationId,
      parentPath: o.parentPath ?? ctx.ds.replace(/-/g, ''),
      type: o.type ?? 'image',
      name: `n-${id.slice(0, 8)}.jpg`,
      blobKey: `${id}.bin`,
      mimeType: 'image/jpeg',
      width: 1,
      height: 1,
      duration: null,
      sizeBytes: 1,
      exif: {},
      metadata: o.tags ? { tags: o.tags } : {},
      processingStatus: 'ready',
      createdById: ctx.me.userId,
      ...(o.createdAt ? { takenAt: o.createdAt } : {}),
    },
    [],
  );
  return id;
}
const folder = async (ctx: Ctx, name: string, path?: string) =>
  (await ctx.app.request('POST', '/api/folder', { body: { datasetId: ctx.ds, name, ...(path ? { path } : {}) } })).body
    .folder as { id: string; path: string };
const tags = async (ctx: Ctx, id: string) =>
  (await ctx.app.request('GET', `/api/media/${id}`)).body.media.metadata.tags;
const bulk = (ctx: Ctx, body: unknown, key?: string) => ctx.app.request('POST', '/api/media/bulk', { body, key });
const listIds = async (ctx: Ctx, query: string) => {
  const r = await ctx.app.request('GET', `/api/dataset/${ctx.ds}/media?limit=1000&${query}`);
  assert.is(r.status, 200, JSON.stringify(r.body));
  return (r.body.media as Array<{ id: string }>).map((m) => m.id).sort();
};

t('ids: adds a tag where it lacks; tag listings follow; undo removes only those; twice is refused', async (ctx) => {
  const had = await item(ctx, { tags: { place: ['beach'] } });
  const others = [await item(ctx), await item(ctx, { tags: { who: ['ann'] } })];
  const ids = [had, ...others];
  const r = await bulk(ctx, { ids, operation: { type: 'addTags', tags: [{ label: 'place', value: ' beach ' }] } });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.equal([r.body.selected, r.body.changed, r.body.unchanged, r.body.errorCount], [3, 2, 1, 0]);
  assert.equal(await listIds(ctx, 'tags=beach'), [...ids].sort());
  assert.equal((await ctx.app.request('GET', `/api/dataset/${ctx.ds}/tags`)).body.tags.place, ['beach']);
  // The text index heard of each tag row: a search for the word finds the three items by their tag.
  const found = async (word: string) =>
    (await ctx.app.app.services.indexes.text.search({ query: word, collectionIds: [ctx.ds], limit: 10, prefix: false }))
      .filter((h) => h.matchedFields.includes('tag'))
      .map((h) => h.mediaId)
      .sort();
  assert.equal(await found('beach'), [...ids].sort());
  // The last action survives a reload: the page asks for it.
  const last = (await ctx.app.request('GET', '/api/media/bulk/last')).body.action;
  assert.equal([last.id, last.changedCount, last.undoable], [r.body.actionId, 2, true]);
  const u = await ctx.app.request('POST', `/api/media/bulk/${r.body.actionId}/undo`);
  assert.is(u.status, 200, JSON.stringify(u.body));
  assert.equal(await tags(ctx, had), { place: ['beach'] });
  assert.equal(await tags(ctx, others[0]), {});
  assert.equal(await tags(ctx, others[1]), { who: ['ann'] });
  assert.equal(await listIds(ctx, 'tags=beach'), [had]);
  assert.equal(await found('beach'), [had]);
  assert.equal(await found('ann'), [others[1]], 'the tags the undo kept are still searchable');
  const again = await ctx.app.request('POST', `/api/media/bulk/${r.body.actionId}/undo`);
  assert.is(again.status, 409);
  assert.ok(again.body.error && again.body.message);
  assert.is((await ctx.app.request('GET', '/api/media/bulk/last')).body.action.undoable, false);
});

t("another organization's ids answer exactly as ids that exist nowhere, and are left alone", async (ctx) => {
  const mine = await item(ctx);
  const org = await ctx.app.request('POST', '/api/auth/organization/create', { body: { name: 'O', slug: 'o-bulk' } });
  const otherKey = (
    await ctx.app.request('POST', '/api/keys', { body: { organizationId: org.body.organization.id, name: 'o' } })
  ).body.key as string;
  const otherDs = (
    await ctx.app.request('POST', `/api/organization/${org.body.organization.id}/datasets`, {
      body: { name: 'X' },
      key: otherKey,
    })
  ).body.dataset.id as string;
  const theirs = newMediaId();
  await ctx.app.app.services.storage.media.insert(
    {
      ...(await ctx.app.app.services.storage.media.get(mine))!,
      id: theirs,
      collectionId: otherDs,
      organizationId: org.body.organization.id,
      parentPath: otherDs.replace(/-/g, ''),
      blobKey: 'x.bin',
    },
    [],
  );
  const nowhere = newMediaId();
  const r = await bulk(ctx, {
    ids: [mine, theirs, nowhere],
    operation: { type: 'addTags', tags: [{ label: 'g', value: 'v' }] },
  });
  assert.is(r.status, 200);
  assert.is(r.body.changed, 1);
  const byId = new Map(
    (r.body.errors as Array<{ id: string; error: string }>).map((e) => [e.id, { ...e, id: undefined }]),
  );
  assert.equal(byId.get(theirs), byId.get(nowhere));
  assert.is(byId.get(theirs)?.error, 'not_found');
  const theirTags = (await ctx.app.request('GET', `/api/media/${theirs}`, { key: otherKey })).body.media.metadata;
  assert.equal(theirTags, { tags: {} });
  // By query: another organization's collection is refused as browse refuses it.
  const q = await bulk(ctx, { selection: { datasetId: otherDs, query: {} }, operation: { type: 'reprocess' } });
  assert.is(q.status, 403);
});

t('viewers are refused and nothing changes; bad requests are clear 400s', async (ctx) => {
  const id = await item(ctx);
  const viewerKey = (await ctx.app.request('POST', '/api/keys', { body: { role: 'viewer' } })).body.key as string;
  const op = { type: 'addTags', tags: [{ label: 'g', value: 'v' }] };
  const r = await bulk(ctx, { ids: [id], operation: op }, viewerKey);
  assert.is(r.status, 403);
  assert.equal(await tags(ctx, id), {});
  const sel = await bulk(ctx, { selection: { datasetId: ctx.ds, query: {} }, operation: op }, viewerKey);
  assert.is(sel.status, 403);
  const bad = [
    { ids: [id], operation: { type: 'explode' } },
    { ids: [id], selection: { datasetId: ctx.ds, query: {} }, operation: op },
    { operation: op },
    { ids: Array.from({ length: 10_001 }, () => id), operation: op },
    { ids: [id], operation: { type: 'addTags', tags: [{ label: ' ', value: 'v' }] } },
    { selection: { datasetId: ctx.ds, query: { recursive: 'maybe' } }, operation: op },
    { selection: { datasetId: ctx.ds, query: { limit: 5 } }, operation: op },
    { ids: [id], operation: { type: 'move', destinationPath: 'not a path' } },
  ];
  for (const body of bad) {
    const b = await bulk(ctx, body);
    assert.is(b.status, 400, JSON.stringify(body).slice(0, 100));
    assert.ok(b.body.error && b.body.message);
  }
});

t('all or nothing: a failure in the middle of the transaction leaves every item as it was', async (ctx) => {
  const ids = [await item(ctx), await item(ctx), await item(ctx), await item(ctx)];
  // A trigger that fails the third item's write: the engine's own error, in the middle of the transaction.
  const storage = ctx.app.app.services.storage as unknown as { db: SqliteStorage['db'] | PgDb };
  const pg = 'pool' in storage.db ? storage.db : null;
  if (pg) {
    await pg.query(`CREATE FUNCTION fail_mid() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.id = '${ids[2]}' THEN RAISE EXCEPTION 'disk on fire'; END IF; RETURN NEW; END $$`);
    await pg.query(
      `CREATE TRIGGER fail_mid BEFORE UPDATE OF metadata ON media FOR EACH ROW EXECUTE FUNCTION fail_mid()`,
    );
  } else
    (storage.db as SqliteStorage['db']).exec(`CREATE TEMP TRIGGER fail_mid BEFORE UPDATE OF metadata ON media
      WHEN NEW.id = '${ids[2]}' BEGIN SELECT RAISE(ABORT, 'disk on fire'); END`);
  const r = await bulk(ctx, { ids, operation: { type: 'addTags', tags: [{ label: 'g', value: 'v' }] } });
  assert.ok(r.status >= 400, JSON.stringify(r.body));
  for (const id of ids) assert.equal(await tags(ctx, id), {}, 'no item was tagged');
  assert.equal(await listIds(ctx, 'tags=v'), []);
  if (pg) await pg.query(`DROP TRIGGER fail_mid ON media`);
  else (storage.db as SqliteStorage['db']).exec(`DROP TRIGGER fail_mid`);
});

t('selection by query lists exactly what browse lists (seeded random filters), less exclusions', async (ctx) => {
  const rnd = seededRandom(27);
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
  const root = ctx.ds.replace(/-/g, '');
  const a = await folder(ctx, 'A');
  const b = await folder(ctx, 'B', a.path);
  const places = [root, a.path, b.path];
  for (let i = 0; i < 60; i++) {
    const t2: Record<string, string[]> = {};
    if (rnd() < 0.6) t2.color = [pick(['red', 'blue', 'green'])];
    if (rnd() < 0.4) t2.size = [pick(['big', 'small'])];
    await item(ctx, { parentPath: pick(places), tags: t2, type: rnd() < 0.2 ? 'video' : 'image' });
  }
  for (let round = 0; round < 14; round++) {
    const q: Record<string, string> = {};
    if (rnd() < 0.7) q.path = pick(places);
    if (rnd() < 0.5) q.recursive = 'true';
    if (rnd() < 0.4) q.type = pick(['image', 'video', 'folder']);
    if (rnd() < 0.4) q.tags = pick(['red', 'blue', 'big', 'red,big']);
    if (rnd() < 0.3) q.tagFilters = JSON.stringify({ color: [pick(['red', 'green'])], size: ['small'] });
    const want = await listIds(ctx, new URLSearchParams(q).toString());
    const exclude = want.filter(() => rnd() < 0.2);
    const label = `r${round}`;
    const r = await bulk(ctx, {
      selection: { datasetId: ctx.ds, query: q },
      exclude,
      operation: { type: 'addTags', tags: [{ label: 'round', value: label }] },
    });
    assert.is(r.status, 200, JSON.stringify(r.body));
    const got = await listIds(ctx, `recursive=true&tags=${label}`);
    assert.equal(got, want.filter((id) => !exclude.includes(id)).sort(), JSON.stringify(q));
  }
});

t('move a selection by query into a folder; undo puts each item back where it was', async (ctx) => {
  const root = ctx.ds.replace(/-/g, '');
  const a = await folder(ctx, 'A');
  const dest = await folder(ctx, 'Dest');
  const inRoot = [await item(ctx, { tags: { k: ['x'] } }), await item(ctx, { tags: { k: ['x'] } })];
  const inA = await item(ctx, { parentPath: a.path, tags: { k: ['x'] } });
  await item(ctx, { tags: { k: ['y'] } });
  const r = await bulk(ctx, {
    selection: { datasetId: ctx.ds, query: { recursive: true, tags: 'x' } },
    operation: { type: 'move', destinationPath: dest.path },
  });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(r.body.changed, 3);
  assert.equal(await listIds(ctx, `path=${dest.path}`), [...inRoot, inA].sort());
  const into = await bulk(ctx, { ids: [a.id], operation: { type: 'move', destinationPath: a.path } });
  assert.equal([into.body.changed, into.body.errors[0]?.error], [0, 'invalid_input']);
  assert.is(into.body.actionId, null, 'nothing changed: nothing recorded');
  assert.is((await ctx.app.request('GET', '/api/media/bulk/last')).body.action.id, r.body.actionId);
  assert.is((await ctx.app.request('POST', `/api/media/bulk/${r.body.actionId}/undo`)).status, 200);
  assert.equal(await listIds(ctx, `path=${a.path}`), [inA]);
  const atRoot = await listIds(ctx, `path=${root}`);
  assert.ok(inRoot.every((id) => atRoot.includes(id)));
  assert.equal(await listIds(ctx, `path=${dest.path}`), []);
});

t('favourite, archive, delete to the trash and restore from it, by ids and by query', async (ctx) => {
  const ids = [await item(ctx), await item(ctx), await item(ctx)];
  const op = async (type: string, body: object = { ids }) => {
    const r = await bulk(ctx, { ...body, operation: { type } });
    assert.is(r.status, 200, JSON.stringify(r.body));
    return r.body;
  };
  const media = async (id: string) => (await ctx.app.request('GET', `/api/media/${id}`)).body.media;
  assert.is((await op('favorite', { ids: ids.slice(0, 2) })).changed, 2);
  assert.equal((await op('favorite')).changed, 1, 'the two already favourites are unchanged');
  assert.equal(await listIds(ctx, 'favorite=true'), [...ids].sort());
  await op('unfavorite', { ids: [ids[0]] });
  assert.is((await media(ids[0])).favorite, false);
  await op('archive', { selection: { datasetId: ctx.ds, query: { favorite: true } } });
  assert.equal(await listIds(ctx, ''), [ids[0]], 'archived items leave the default listing');
  assert.equal((await listIds(ctx, 'archived=only')).length, 2);
  await op('unarchive', { selection: { datasetId: ctx.ds, query: { archived: 'only' } } });
  assert.is((await op('delete')).changed, 3);
  assert.equal(await listIds(ctx, ''), []);
  assert.is((await op('delete')).errorCount, 3, 'deleted items are not live any more');
  assert.is((await op('restore', { ids: [ids[0], ids[1]] })).changed, 2);
  assert.equal(await listIds(ctx, ''), [ids[0], ids[1]].sort());
  const again = await op('restore', { ids: [ids[0]] });
  assert.equal([again.changed, again.errors[0].error], [0, 'not_found'], 'a live item is not in the trash');
});

t.run();
