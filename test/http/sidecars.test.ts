/**
 * Issue 26, XMP sidecars (files/sidecar.ts): a sidecar beside a photo wins over the photo's own metadata field by
 * field (title, description, keywords, rating, GPS, capture time) and is never an item itself — through the
 * upload route's `sidecar` part, `npm run import`, and a watched folder, where a sidecar that changes later
 * re-reads the item's metadata. And bulk `reprocess` of kind `metadata` reads an existing item's metadata again.
 * Photos and their own metadata are written with ExifTool (the vendored one); sidecars by hand, as Lightroom does.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseArgs } from '../../src/cli/import/args.js';
import { runImport } from '../../src/cli/import/run.js';
import { makeImage, startTestApp, type TestApp } from '../helpers/testApp.js';

interface Ctx {
  app: TestApp;
  tmp: string;
  roots: string;
}
const t = suite<Ctx>('XMP sidecars');

t.before(async (c) => {
  c.tmp = mkdtempSync(path.join(os.tmpdir(), 'sidecar-test-'));
  c.roots = path.join(c.tmp, 'watched');
  mkdirSync(c.roots);
  c.app = await startTestApp({ ingestConcurrency: 0, watchRoots: [c.roots], watchSettleMs: 150 });
});
t.after(async (c) => {
  await c.app.close();
  rmSync(c.tmp, { recursive: true, force: true });
});

const EXIFTOOL = path.resolve(import.meta.dirname, '../../node_modules/exiftool-vendored.pl/bin/exiftool');

/** A JPEG with its own metadata: a camera, a title, rating 2, keyword "camera", a 2010 date and a position
 * (10° N 20° E: its zone, +01:00, comes from there, so 08:00 there is 07:00 UTC). */
async function photo(file: string, seed: number): Promise<void> {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, await makeImage({ color: { r: seed * 40, g: 90, b: 200 - seed * 30 } }));
  const own = ['-Make=TestCam', '-XMP:Title=File title', '-XMP:Rating=2', '-XMP:Subject=camera'];
  const when = ['-EXIF:DateTimeOriginal=2010:01:01 08:00:00', '-GPSLatitude=10', '-GPSLatitudeRef=N'];
  const where = ['-GPSLongitude=20', '-GPSLongitudeRef=E'];
  execFileSync('perl', [EXIFTOOL, '-q', '-overwrite_original', ...own, ...when, ...where, file]);
}

/** A sidecar as Lightroom writes one: title, description, keywords, rating, capture time with offset, GPS. */
function sidecar(o: { title: string; keywords: string[]; rating?: number }): string {
  const li = o.keywords.map((k) => `<rdf:li>${k}</rdf:li>`).join('');
  return `<?xpacket begin='' id='W5M0MpCehiHzreSzNTczkc9d'?>
<x:xmpmeta xmlns:x='adobe:ns:meta/'>
 <rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>
  <rdf:Description rdf:about='' xmlns:dc='http://purl.org/dc/elements/1.1/' xmlns:xmp='http://ns.adobe.com/xap/1.0/'
    xmlns:exif='http://ns.adobe.com/exif/1.0/' xmp:Rating='${o.rating ?? 5}'
    exif:DateTimeOriginal='2019-06-01T10:30:00+02:00' exif:GPSLatitude='38,42.6N' exif:GPSLongitude='9,8.4W'>
   <dc:title><rdf:Alt><rdf:li xml:lang='x-default'>${o.title}</rdf:li></rdf:Alt></dc:title>
   <dc:description><rdf:Alt><rdf:li xml:lang='x-default'>Yellow tram 28</rdf:li></rdf:Alt></dc:description>
   <dc:subject><rdf:Bag>${li}</rdf:Bag></dc:subject>
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
<?xpacket end='w'?>
`;
}

/** The sidecar's facts on the item, the file's where the sidecar says nothing. */
function assertSidecarWon(m: any, title = 'Lisbon tram', keywords = ['lisbon', 'tram']): void {
  assert.is(m.exif.capture.title, title);
  assert.is(m.exif.capture.rating, 5);
  assert.is(m.metadata.description, 'Yellow tram 28');
  assert.equal(m.metadata.tags.keywords, keywords);
  assert.is(m.takenAt, '2019-06-01T08:30:00.000Z');
  assert.is(m.takenAtZone, '+02:00');
  assert.ok(Math.abs(m.location.latitude - 38.71) < 1e-6, `latitude ${m.location.latitude}`);
  assert.ok(Math.abs(m.location.longitude + 9.14) < 1e-6, `longitude ${m.location.longitude}`);
  assert.is(m.exif.latitude, m.location.latitude, 'the top-level position follows the sidecar');
  assert.is(m.camera.make, 'TestCam', 'what the sidecar does not say comes from the file');
}

async function media(app: TestApp, id: string) {
  const r = await app.request('GET', `/api/media/${id}`);
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.media;
}

async function names(app: TestApp, ds: string): Promise<Array<{ id: string; name: string }>> {
  const r = await app.request('GET', `/api/dataset/${ds}/media?recursive=true&limit=1000`);
  return (r.body.media as Array<{ id: string; name: string; type: string }>).filter((m) => m.type !== 'folder');
}

t('upload with a sidecar part: the sidecar wins field by field; a photo alone keeps its own', async (c) => {
  const ds = await c.app.collection('Upload sidecars');
  const file = path.join(c.tmp, 'up', 'IMG_1.JPG');
  await photo(file, 1);
  const post = async (withSidecar: string | Buffer | null) => {
    const form = new FormData();
    form.append('datasetId', ds);
    form.append('file', new Blob([readFileSync(file)]), 'IMG_1.JPG');
    if (withSidecar !== null) form.append('sidecar', new Blob([withSidecar]), 'IMG_1.JPG.xmp');
    const res = await fetch(`${c.app.baseUrl}/api/upload/multipart`, {
      method: 'POST',
      headers: { 'x-api-key': c.app.key },
      body: form,
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const up = await post(sidecar({ title: 'Lisbon tram', keywords: ['tram', 'lisbon'] }));
  assert.is(up.status, 200, JSON.stringify(up.body));
  assertSidecarWon(await media(c.app, up.body.mediaId));

  const alone = await c.app.upload(
    { datasetId: ds, name: 'alone.jpg' },
    { bytes: readFileSync(file), filename: 'a.jpg' },
  );
  const own = await media(c.app, alone.body.mediaId);
  assert.is(own.exif.capture.title, 'File title');
  assert.is(own.exif.capture.rating, 2);
  assert.equal(own.metadata.tags.keywords, ['camera']);
  assert.is(own.takenAt, '2010-01-01T07:00:00.000Z');

  const big = await post(Buffer.alloc(4 * 1024 * 1024 + 1, 0x20));
  assert.is(big.status, 400, JSON.stringify(big.body));
  assert.match(big.body.message, 'sidecar');
});

t('npm run import sends each sidecar with its file (IMG_1.JPG.xmp, img_2.XMP); sidecars are no items', async (c) => {
  const ds = await c.app.collection('Import sidecars');
  const root = path.join(c.tmp, 'import');
  await photo(path.join(root, 'roll/IMG_1.JPG'), 2);
  await photo(path.join(root, 'roll/IMG_2.jpg'), 3);
  await photo(path.join(root, 'roll/IMG_3.jpg'), 4);
  writeFileSync(path.join(root, 'roll/IMG_1.JPG.xmp'), sidecar({ title: 'Lisbon tram', keywords: ['tram', 'lisbon'] }));
  writeFileSync(path.join(root, 'roll/img_2.XMP'), sidecar({ title: 'Second', keywords: ['two'] }));
  writeFileSync(path.join(root, 'roll/orphan.xmp'), sidecar({ title: 'Nobody', keywords: ['x'] }));
  const out = { isTTY: false, write: () => true };
  const s = await runImport(parseArgs([root, '--server', c.app.baseUrl, '--key', c.app.key, '--collection', ds], {}), {
    out,
  });
  assert.is(s.uploaded, 3);
  const items = await names(c.app, ds);
  assert.equal(items.map((m) => m.name).sort(), ['IMG_1.JPG', 'IMG_2.jpg', 'IMG_3.jpg'], 'no item for a sidecar');
  const by = (n: string) => media(c.app, items.find((m) => m.name === n)!.id);
  assertSidecarWon(await by('IMG_1.JPG'));
  assertSidecarWon(await by('IMG_2.jpg'), 'Second', ['two']);
  assert.is((await by('IMG_3.jpg')).exif.capture.title, 'File title', 'no sidecar: the file speaks');
});

t('watched folder: a photo imports with its sidecar; a sidecar that changes re-reads the item', async (c) => {
  const ds = await c.app.collection('Watched sidecars');
  const dir = path.join(c.roots, 'lr');
  await photo(path.join(dir, 'IMG_5.JPG'), 5);
  writeFileSync(path.join(dir, 'IMG_5.xmp'), sidecar({ title: 'Lisbon tram', keywords: ['tram', 'lisbon'] }));
  const w = await c.app.request('POST', `/api/dataset/${ds}/watched-folders`, { body: { path: dir } });
  assert.is(w.status, 200, JSON.stringify(w.body));
  await c.app.app.watches.rescan();
  const items = await names(c.app, ds);
  assert.equal(
    items.map((m) => m.name),
    ['IMG_5.JPG'],
  );
  assertSidecarWon(await media(c.app, items[0].id));

  // Edited in Lightroom: the sidecar is written again.
  writeFileSync(path.join(dir, 'IMG_5.xmp'), sidecar({ title: 'Tram 28 at dusk', keywords: ['dusk', 'tram'] }));
  let m = await media(c.app, items[0].id);
  for (let i = 0; i < 100 && m.exif.capture.title !== 'Tram 28 at dusk'; i++) {
    await new Promise((r) => setTimeout(r, 50));
    m = await media(c.app, items[0].id);
  }
  await c.app.app.watches.idle();
  assertSidecarWon(await media(c.app, items[0].id), 'Tram 28 at dusk', ['dusk', 'tram']);
  const found = await c.app.request('GET', `/api/dataset/${ds}/media?tags=dusk`);
  assert.is(found.body.media.length, 1, 'the new keyword is a tag');
  assert.equal(
    (await names(c.app, ds)).map((x) => x.name),
    ['IMG_5.JPG'],
  );
});

t('bulk reprocess of kind metadata reads the metadata again; sidecar facts stay on top; viewers refused', async (c) => {
  const ds = await c.app.collection('Reread');
  const file = path.join(c.tmp, 'reread', 'r.jpg');
  await photo(file, 6);
  const up = await c.app.upload({ datasetId: ds }, { bytes: readFileSync(file), filename: 'r.jpg' });
  const id = up.body.mediaId as string;
  // As if ingested before keywords were read: the group is gone, the capture facts too.
  await c.app.request('DELETE', `/api/media/${id}/tags`, { body: { label: 'keywords' } });
  await c.app.app.services.storage.media.mergeExif(id, { capture: null }, null);
  assert.is((await media(c.app, id)).takenAt, null);
  const body = { ids: [id], operation: { type: 'reprocess', kind: 'metadata' } };
  const viewer = await c.app.request('POST', '/api/keys', { body: { role: 'viewer' } });
  assert.is((await c.app.request('POST', '/api/media/bulk', { body, key: viewer.body.key })).status, 403);
  const r = await c.app.request('POST', '/api/media/bulk', { body });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(r.body.changed, 1);
  const m = await media(c.app, id);
  assert.equal(m.metadata.tags.keywords, ['camera']);
  assert.is(m.exif.capture.title, 'File title');
  assert.is(m.takenAt, '2010-01-01T07:00:00.000Z');
  assert.is(m.processingStatus, 'pending', 'no analysis queued again (ingest is off here, it stays as it was)');

  // An item that came with a sidecar keeps the sidecar's facts on top when read again.
  const form = new FormData();
  form.append('datasetId', ds);
  form.append('file', new Blob([readFileSync(file)]), 'with.jpg');
  form.append('sidecar', new Blob([sidecar({ title: 'Lisbon tram', keywords: ['tram', 'lisbon'] })]), 'with.xmp');
  const res = await fetch(`${c.app.baseUrl}/api/upload/multipart`, {
    method: 'POST',
    headers: { 'x-api-key': c.app.key },
    body: form,
  });
  const withId = ((await res.json()) as { mediaId: string }).mediaId;
  const again = await c.app.request('POST', '/api/media/bulk', {
    body: { ids: [withId], operation: { type: 'reprocess', kind: 'metadata' } },
  });
  assert.is(again.body.changed, 1);
  assertSidecarWon(await media(c.app, withId));
  const bad = await c.app.request('POST', '/api/media/bulk', {
    body: { ids: [id], operation: { type: 'reprocess', kind: 'everything' } },
  });
  assert.is(bad.status, 400);
});

t.run();
