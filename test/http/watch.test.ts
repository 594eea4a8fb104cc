/**
 * Watched folders against the real server: the configuration routes (roots, 4xx, roles), files that appear
 * (through file system events and through the periodic pass) imported once with their folders, a growing
 * file that waits until it stops growing, deletes with and without mirroring, a restart that imports nothing
 * again (even after a record was lost), and WATCH_DIRS.
 */
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Config } from '../../src/config.js';
import { sharedPath } from '../helpers/skip.js';
import { makeImage, startTestApp, type TestApp } from '../helpers/testApp.js';

interface Ctx {
  tmp: string;
  roots: string;
  dataDir: string;
  app: TestApp;
  ds: string;
}
const t = suite<Ctx>('watched folders');

const config = (c: Ctx, over: Partial<Config> = {}): Partial<Config> => ({
  ingestConcurrency: 0,
  dataDir: c.dataDir,
  watchRoots: [c.roots],
  watchSettleMs: 150,
  watchRescanSeconds: 60,
  ...over,
});

t.before(async (c) => {
  c.tmp = mkdtempSync(path.join(os.tmpdir(), 'watch-test-'));
  c.roots = path.join(c.tmp, 'allowed');
  c.dataDir = path.join(c.tmp, 'data');
  mkdirSync(c.roots, { recursive: true });
  c.app = await startTestApp(config(c));
  c.ds = await c.app.collection('Watched');
});
t.after(async (c) => {
  await c.app.close();
  rmSync(c.tmp, { recursive: true, force: true });
});

const color = (i: number) => ({ r: (i * 37) % 256, g: (i * 91) % 256, b: (i * 53) % 256 });
function write(root: string, rel: string, bytes: Buffer | string): void {
  mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  writeFileSync(path.join(root, rel), bytes);
}

/** Live items of the collection as "folder/…/name", sorted. */
async function items(app: TestApp, ds: string): Promise<string[]> {
  const r = await app.request('GET', `/api/dataset/${ds}/media?recursive=true&limit=1000`);
  const all = r.body.media as Array<{ id: string; name: string; type: string; path: string }>;
  const names = new Map(all.filter((m) => m.type === 'folder').map((m) => [m.id, m.name]));
  return all
    .filter((m) => m.type !== 'folder')
    .map((m) =>
      [
        ...m.path
          .split('.')
          .slice(1, -1)
          .map((id) => names.get(id)),
        m.name,
      ].join('/'),
    )
    .sort();
}

const addWatch = (c: Ctx, body: object, key?: string) =>
  c.app.request('POST', `/api/dataset/${c.ds}/watched-folders`, { body, key });

t('configuration: only under WATCH_ROOTS, absolute, a folder, admins only; listed; 409 twice', async (c) => {
  const inside = path.join(c.roots, 'cfg');
  mkdirSync(inside);
  const outside = path.join(c.tmp, 'outside');
  mkdirSync(outside);
  symlinkSync(outside, path.join(c.roots, 'escape'));
  const status = async (body: object, key?: string) => (await addWatch(c, body, key)).status;
  assert.is(await status({ path: outside }), 403, 'outside the roots');
  assert.is(await status({ path: path.join(c.roots, 'escape') }), 403, 'a link out of the roots');
  assert.is(await status({ path: 'relative/dir' }), 400);
  assert.is(await status({ path: path.join(c.roots, 'missing') }), 400);
  assert.is(await status({ path: inside, mirrorDeletions: 'yes' }), 400);
  const member = await c.app.request('POST', '/api/keys', { body: { role: 'member' } });
  assert.is(await status({ path: inside }, member.body.key), 403, 'members may not');
  const ok = await addWatch(c, { path: inside, into: ' Inbox / Phone ' });
  assert.is(ok.status, 200, JSON.stringify(ok.body));
  assert.equal(
    { ...ok.body.watchedFolder, id: 'x', createdAt: 'x', createdById: 'x' },
    {
      id: 'x',
      datasetId: c.ds,
      path: inside,
      into: 'Inbox/Phone',
      mirrorDeletions: false,
      source: 'api',
      createdById: 'x',
      createdAt: 'x',
    },
  );
  assert.is(await status({ path: inside }), 409);
  const list = await c.app.request('GET', `/api/dataset/${c.ds}/watched-folders`);
  assert.equal(
    list.body.watchedFolders.map((w: { id: string }) => w.id),
    [ok.body.watchedFolder.id],
  );
  const del = await c.app.request('DELETE', `/api/dataset/${c.ds}/watched-folders/${ok.body.watchedFolder.id}`);
  assert.is(del.status, 200);
  assert.is(
    (await c.app.request('DELETE', `/api/dataset/${c.ds}/watched-folders/${ok.body.watchedFolder.id}`)).status,
    404,
  );
  const none = await startTestApp({ ingestConcurrency: 0 });
  try {
    const ds = await none.collection();
    const r = await none.request('POST', `/api/dataset/${ds}/watched-folders`, { body: { path: inside } });
    assert.is(r.status, 403);
    assert.match(r.body.message, 'WATCH_ROOTS');
  } finally {
    await none.close();
  }
});

t('files that appear are imported once, folders kept; a growing file waits; deletes are not mirrored', async (c) => {
  const dir = path.join(c.roots, 'inbox');
  write(dir, 'a.jpg', await makeImage({ color: color(1) }));
  const w = await addWatch(c, { path: dir, into: 'Inbox' });
  assert.is(w.status, 200);
  await c.app.app.watches.rescan();
  assert.equal(await items(c.app, c.ds), ['Inbox/a.jpg']);

  // A new file in a new folder is seen through file system events (the periodic pass is a minute away).
  write(dir, 'trip/day1/b.png', await makeImage({ color: color(2), format: 'png' }));
  write(dir, 'trip/copy.jpg', await makeImage({ color: color(1) })); // the same bytes as a.jpg
  write(dir, 'notes.txt', 'x');
  write(dir, '.hidden.jpg', await makeImage({ color: color(3) }));
  for (let i = 0; i < 200 && (await items(c.app, c.ds)).length < 2; i++) await new Promise((r) => setTimeout(r, 50));
  await c.app.app.watches.idle();
  assert.equal(await items(c.app, c.ds), ['Inbox/a.jpg', 'Inbox/trip/day1/b.png']);

  // A file written in pieces, slower than nothing but faster than the settle time, waits for its last byte.
  const big = await makeImage({ width: 800, height: 600, color: color(4) });
  const grow = path.join(dir, 'trip', 'growing.jpg');
  writeFileSync(grow, big.subarray(0, 100));
  for (let at = 100; at < big.length; at += Math.ceil(big.length / 8)) {
    appendFileSync(grow, big.subarray(at, Math.min(big.length, at + Math.ceil(big.length / 8))));
    await new Promise((r) => setTimeout(r, 30));
  }
  await c.app.app.watches.rescan();
  const list = await items(c.app, c.ds);
  assert.equal(list, ['Inbox/a.jpg', 'Inbox/trip/day1/b.png', 'Inbox/trip/growing.jpg'], 'one item, whole');
  const r = await c.app.request('GET', `/api/dataset/${c.ds}/media?recursive=true&limit=1000`);
  const grown = r.body.media.find((m: { name: string }) => m.name === 'growing.jpg');
  assert.is(grown.sizeBytes, big.length);

  await c.app.app.watches.rescan(); // nothing new
  assert.is((await items(c.app, c.ds)).length, 3);

  unlinkSync(path.join(dir, 'a.jpg'));
  await c.app.app.watches.rescan();
  assert.ok((await items(c.app, c.ds)).includes('Inbox/a.jpg'), 'without mirroring the item stays');
});

t('mirrorDeletions: deleting the file deletes the item it made; a replaced file replaces its item', async (c) => {
  const dir = path.join(c.roots, 'mirror');
  write(dir, 'm.jpg', await makeImage({ color: color(10) }));
  write(dir, 'keep.jpg', await makeImage({ color: color(11) }));
  assert.is((await addWatch(c, { path: dir, into: 'Mirror', mirrorDeletions: true })).status, 200);
  await c.app.app.watches.rescan();
  const before = await items(c.app, c.ds);
  assert.ok(before.includes('Mirror/m.jpg') && before.includes('Mirror/keep.jpg'));
  unlinkSync(path.join(dir, 'm.jpg'));
  write(dir, 'keep.jpg', await makeImage({ color: color(12) }));
  await c.app.app.watches.rescan();
  const after = await items(c.app, c.ds);
  assert.not.ok(after.includes('Mirror/m.jpg'), 'deleted with its file');
  assert.is(after.filter((p) => p === 'Mirror/keep.jpg').length, 1, 'the changed file is one item, the new bytes');
});

t('a restart imports nothing again, even when a record was lost after its upload; WATCH_DIRS', async (c) => {
  const count = (await items(c.app, c.ds)).length;
  const watches = await c.app.app.services.storage.watches.list(undefined);
  const inbox = watches.find((w) => w.dir.endsWith(`${path.sep}inbox`))!;
  // As if the server died between storing the item and writing its record.
  await c.app.app.services.storage.watches.removeFile(inbox.id, 'trip/growing.jpg');
  await c.app.close();

  const envDir = path.join(c.tmp, 'operator'); // WATCH_DIRS needs no root: the operator set it
  write(envDir, 'e.jpg', await makeImage({ color: color(20) }));
  c.app = await startTestApp(config(c), { WATCH_DIRS: `${c.ds}=${envDir},into=Env/Sub` });
  await c.app.app.watches.rescan();
  const now = await items(c.app, c.ds);
  assert.is(now.length, count + 1, JSON.stringify(now));
  assert.ok(now.includes('Env/Sub/e.jpg'));
  const rec = await c.app.app.services.storage.watches.file(inbox.id, 'trip/growing.jpg');
  assert.ok(rec?.created, 'the lost record is found again, as this watch’s own item');
  const env = (await c.app.request('GET', `/api/dataset/${c.ds}/watched-folders`)).body.watchedFolders.find(
    (w: { source: string }) => w.source === 'env',
  );
  assert.is((await c.app.request('DELETE', `/api/dataset/${c.ds}/watched-folders/${env.id}`)).status, 409);
});

t('phone and camera formats in a watched folder: HEIC, RAW and a phone MOV are imported as such', async (c) => {
  const files = ['heic_iphone11promax_gps_grid.heic', 'cr3_canon_r6_truncated_with_preview.cr3'];
  const found = [...files, 'mov_iphone6_h264_rotate90_gps.mov'].map((f) =>
    sharedPath(`fixtures/formats/${f}`, 'format fixtures'),
  );
  if (found.some((p) => !p)) return;
  const dir = path.join(c.roots, 'camera');
  for (const p of found) write(dir, path.basename(p!).toUpperCase(), readFileSync(p!));
  assert.is((await addWatch(c, { path: dir, into: 'Camera' })).status, 200);
  await c.app.app.watches.rescan();
  const r = await c.app.request('GET', `/api/dataset/${c.ds}/media?recursive=true&limit=1000`);
  const byName = new Map(r.body.media.map((m: { name: string }) => [m.name, m]));
  const mime = (name: string) => (byName.get(name) as { mimeType?: string } | undefined)?.mimeType;
  assert.is(mime('HEIC_IPHONE11PROMAX_GPS_GRID.HEIC'), 'image/heic');
  assert.is(mime('CR3_CANON_R6_TRUNCATED_WITH_PREVIEW.CR3'), 'image/x-canon-cr3');
  assert.is(mime('MOV_IPHONE6_H264_ROTATE90_GPS.MOV'), 'video/quicktime');
});

t.run();
