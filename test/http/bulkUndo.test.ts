/**
 * Undo of the flag and trash bulk operations through the real HTTP app: favourite, archive, delete to the trash
 * and restore answer an actionId whose undo reverses exactly the items changed; reprocess says `undoable: false`.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newMediaId } from '../../src/platform/ids.js';
import { startTestApp, type TestApp } from '../helpers/testApp.js';

interface Ctx {
  app: TestApp;
  ds: string;
  me: { userId: string; organizationId: string };
}
const t = suite<Ctx>('http: undo of flag and trash bulk actions');

t.before.each(async (ctx) => {
  ctx.app = await startTestApp();
  ctx.ds = await ctx.app.collection();
  ctx.me = (await ctx.app.request('GET', '/api/me')).body;
});
t.after.each(async (ctx) => ctx.app.close());

async function item(ctx: Ctx, parentPath = ctx.ds.replace(/-/g, '')) {
  const id = newMediaId();
  await ctx.app.app.services.storage.media.insert(
    {
      id,
      collectionId: ctx.ds,
      organizationId: ctx.me.organizationId,
      parentPath,
      type: 'image',
      name: `n-${id.slice(0, 8)}.jpg`,
      blobKey: `${id}.bin`,
      mimeType: 'image/jpeg',
      width: 1,
      height: 1,
      duration: null,
      sizeBytes: 1,
      exif: {},
      metadata: { tags: { place: ['beach'] } },
      processingStatus: 'ready',
      createdById: ctx.me.userId,
    },
    [],
  );
  return id;
}
const op = async (ctx: Ctx, type: string, ids: string[]) => {
  const r = await ctx.app.request('POST', '/api/media/bulk', { body: { ids, operation: { type } } });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body as { actionId: string | null; undoable: boolean; changed: number };
};
const undo = async (ctx: Ctx, actionId: string | null) => {
  const r = await ctx.app.request('POST', `/api/media/bulk/${actionId}/undo`);
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.reverted as number;
};
const listIds = async (ctx: Ctx, query: string) => {
  const r = await ctx.app.request('GET', `/api/dataset/${ctx.ds}/media?limit=1000&${query}`);
  assert.is(r.status, 200, JSON.stringify(r.body));
  return (r.body.media as Array<{ id: string }>).map((m) => m.id).sort();
};

t('favourite and archive: undo sets back only the items the action changed', async (ctx) => {
  const ids = [await item(ctx), await item(ctx), await item(ctx)];
  await op(ctx, 'favorite', [ids[0]]);
  const fav = await op(ctx, 'favorite', ids);
  assert.equal([fav.changed, fav.undoable, typeof fav.actionId], [2, true, 'string']);
  const last = (await ctx.app.request('GET', '/api/media/bulk/last')).body.action;
  assert.equal([last.id, last.operation.type, last.changedCount, last.undoable], [fav.actionId, 'favorite', 2, true]);
  assert.is(await undo(ctx, fav.actionId), 2);
  assert.equal(await listIds(ctx, 'favorite=true'), [ids[0]]);
  const arch = await op(ctx, 'archive', ids);
  assert.equal(await listIds(ctx, ''), []);
  assert.is(await undo(ctx, arch.actionId), 3);
  assert.equal(await listIds(ctx, ''), [...ids].sort());
});

t('delete to the trash: undo puts the items back in their folder, out of the trash, tags listed again', async (ctx) => {
  const f = (await ctx.app.request('POST', '/api/folder', { body: { datasetId: ctx.ds, name: 'Trip' } })).body.folder;
  const ids = [await item(ctx, f.path), await item(ctx)];
  const del = await op(ctx, 'delete', ids);
  assert.equal([del.changed, del.undoable], [2, true]);
  assert.equal(await listIds(ctx, 'recursive=true&tags=beach'), []);
  assert.is((await ctx.app.request('GET', `/api/dataset/${ctx.ds}/trash`)).body.pagination.total, 2);
  assert.is(await undo(ctx, del.actionId), 2);
  assert.is((await ctx.app.request('GET', `/api/dataset/${ctx.ds}/trash`)).body.pagination.total, 0);
  assert.equal(await listIds(ctx, `path=${f.path}`), [ids[0]]);
  assert.equal(await listIds(ctx, 'recursive=true&tags=beach'), [...ids].sort());
  const restore = await op(ctx, 'restore', ids);
  assert.is(restore.changed, 0, 'nothing is in the trash any more');
});

t('restore: undo sends the restored items back to the trash', async (ctx) => {
  const ids = [await item(ctx), await item(ctx)];
  await op(ctx, 'delete', ids);
  const res = await op(ctx, 'restore', [ids[1]]);
  assert.equal(await listIds(ctx, ''), [ids[1]]);
  assert.is(await undo(ctx, res.actionId), 1);
  assert.equal(await listIds(ctx, ''), []);
  assert.is((await ctx.app.request('GET', `/api/dataset/${ctx.ds}/trash`)).body.pagination.total, 2);
});

t('reprocess cannot be undone: undoable false, no actionId, the last action stays the one before', async (ctx) => {
  const ids = [await item(ctx)];
  const fav = await op(ctx, 'favorite', ids);
  const re = await op(ctx, 'reprocess', ids);
  assert.equal([re.actionId, re.undoable], [null, false]);
  assert.is((await ctx.app.request('GET', '/api/media/bulk/last')).body.action.id, fav.actionId);
});

t.run();
