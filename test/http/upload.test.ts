/**
 * POST /api/upload/multipart through real HTTP: formats judged by content,
 * refusals that store nothing, size and pixel limits, EXIF, videos with Range,
 * dedupe, name and path fields.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sharedPath } from '../helpers/skip.js';
import { makeImage, startTestApp, type Reply, type TestApp } from '../helpers/testApp.js';

const t = suite<{ app: TestApp; ds: string }>('upload');

t.before(async (ctx) => {
  // Upload only: the ingest pipeline stays off here, so "nothing stored" checks of
  // DATA_DIR/files don't race with frames and crops written in the background.
  ctx.app = await startTestApp({ ingestConcurrency: 0 });
  ctx.ds = await ctx.app.collection('Uploads');
});
t.after(async (ctx) => ctx.app.close());

// ---------------------------------------------------------------------------
// helpers

/** Every stored file under DATA_DIR/files, as paths relative to it. */
function storedFiles(dataDir: string): string[] {
  const root = path.join(dataDir, 'files');
  const out: string[] = [];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.push(path.relative(root, full));
    }
  };
  walk(root);
  return out.sort();
}

const tmpEntries = (dataDir: string) =>
  existsSync(path.join(dataDir, 'tmp')) ? readdirSync(path.join(dataDir, 'tmp')) : [];

async function total(app: TestApp, ds: string): Promise<number> {
  const r = await app.request('GET', `/api/dataset/${ds}/media?recursive=true&limit=1`);
  assert.is(r.status, 200);
  return r.body.pagination.total;
}

/** Runs an upload that must be refused, and checks that nothing at all was stored. */
async function refused(
  app: TestApp,
  ds: string,
  status: number | number[],
  run: () => Promise<Reply>,
  what: string,
): Promise<Reply> {
  const before = { total: await total(app, ds), files: storedFiles(app.dataDir) };
  const r = await run();
  const allowed = Array.isArray(status) ? status : [status];
  assert.ok(
    allowed.includes(r.status),
    `${what}: expected ${allowed.join(' or ')}, got ${r.status} ${JSON.stringify(r.body)}`,
  );
  assert.type(r.body?.error, 'string', `${what}: error`);
  assert.type(r.body?.message, 'string', `${what}: message`);
  assert.is(r.body.mediaId, undefined, `${what}: no mediaId`);
  assert.is(await total(app, ds), before.total, `${what}: listing unchanged`);
  assert.equal(storedFiles(app.dataDir), before.files, `${what}: no new files`);
  assert.equal(tmpEntries(app.dataDir), [], `${what}: tmp is empty`);
  return r;
}

async function getMedia(app: TestApp, id: string) {
  const r = await app.request('GET', `/api/media/${id}`);
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.media;
}

const solid = (width: number, height: number, r: number, g = 40, b = 40) =>
  sharp({ create: { width, height, channels: 3, background: { r, g, b } } });

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();
function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}
/** A tiny PNG whose header claims width × height (a decompression bomb's shape), with a correct CRC. */
function bombPng(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(Buffer.alloc(3 * width + 1))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

// ---------------------------------------------------------------------------

t('images of every accepted format are judged by content, not name or client type', async ({ app, ds }) => {
  const cases: Array<{ format: string; mime: string; bytes: Buffer; filename: string; clientType: string }> = [
    {
      format: 'jpeg',
      mime: 'image/jpeg',
      bytes: await solid(40, 30, 10).jpeg().toBuffer(),
      filename: 'photo.png',
      clientType: 'image/png',
    },
    {
      format: 'png',
      mime: 'image/png',
      bytes: await solid(40, 30, 20).png().toBuffer(),
      filename: 'x.jpg',
      clientType: 'image/jpeg',
    },
    {
      format: 'webp',
      mime: 'image/webp',
      bytes: await solid(40, 30, 30).webp().toBuffer(),
      filename: 'x.gif',
      clientType: 'image/gif',
    },
    {
      format: 'gif',
      mime: 'image/gif',
      bytes: await solid(40, 30, 40).gif().toBuffer(),
      filename: 'x.webp',
      clientType: 'text/plain',
    },
    {
      format: 'tiff',
      mime: 'image/tiff',
      bytes: await solid(40, 30, 50).tiff().toBuffer(),
      filename: 'noext',
      clientType: 'application/octet-stream',
    },
    {
      format: 'avif',
      mime: 'image/avif',
      bytes: await solid(40, 30, 60).avif().toBuffer(),
      filename: 'x.heic',
      clientType: 'video/mp4',
    },
  ];
  for (const c of cases) {
    const up = await app.upload({ datasetId: ds }, { bytes: c.bytes, filename: c.filename, type: c.clientType });
    assert.is(up.status, 200, `${c.format}: ${JSON.stringify(up.body)}`);
    assert.match(up.body.mediaId, /^[0-9a-f]{32}$/);
    assert.type(up.body.message, 'string');
    assert.is(up.body.error, undefined);
    const m = await getMedia(app, up.body.mediaId);
    assert.is(m.type, 'image', c.format);
    assert.is(m.mimeType, c.mime, `${c.format} mimeType`);
    assert.equal([m.width, m.height], [40, 30], `${c.format} dims`);
    assert.is(m.sizeBytes, c.bytes.length, `${c.format} size`);
    assert.is(m.name, c.filename, `${c.format}: name defaults to the file name`);
    assert.ok(['pending', 'processing', 'ready'].includes(m.processingStatus), `${c.format}: ${m.processingStatus}`);
    assert.is(m.frames.length, 1, c.format);
    assert.is(up.body.url, m.blob);
    const file = await fetch(m.blob);
    assert.is(file.status, 200, c.format);
    assert.is(file.headers.get('content-type'), c.mime, `${c.format}: served Content-Type`);
    assert.is(
      sha256(Buffer.from(await file.arrayBuffer())),
      sha256(c.bytes),
      `${c.format}: served bytes are the original`,
    );
    const frame = await fetch(m.frames[0].blob);
    assert.is(frame.status, 200);
    assert.ok(
      /^image\/(jpeg|webp|png)$/.test(frame.headers.get('content-type') ?? ''),
      `${c.format}: web-friendly frame`,
    );
  }
  assert.equal(tmpEntries(app.dataDir), []);
});

t('not an image or video: 415 with {error, message}, nothing stored', async ({ app }) => {
  const ds = await app.collection('Refusals');
  const text = Buffer.from('hello, this is plainly a text file and not a photo\n'.repeat(40));
  await refused(
    app,
    ds,
    415,
    () => app.upload({ datasetId: ds }, { bytes: text, filename: 'photo.jpg', type: 'image/jpeg' }),
    'text file named .jpg',
  );
  const noise = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919 + 13) % 251));
  await refused(
    app,
    ds,
    415,
    () => app.upload({ datasetId: ds }, { bytes: noise, filename: 'x.png', type: 'image/png' }),
    'random bytes',
  );
  const pdf = Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n');
  await refused(
    app,
    ds,
    415,
    () => app.upload({ datasetId: ds }, { bytes: pdf, filename: 'doc.mp4', type: 'video/mp4' }),
    'pdf',
  );
  const html = Buffer.from('<!doctype html><html><body><img src=x onerror=alert(1)></body></html>');
  await refused(
    app,
    ds,
    415,
    () => app.upload({ datasetId: ds }, { bytes: html, filename: 'x.gif', type: 'image/gif' }),
    'html',
  );
  // An empty file: refused as unsupported, or as a missing file.
  await refused(
    app,
    ds,
    [400, 415],
    () => app.upload({ datasetId: ds }, { bytes: Buffer.alloc(0), filename: 'empty.jpg', type: 'image/jpeg' }),
    'empty file',
  );
  const r = await app.upload({ datasetId: ds }, { bytes: text, filename: 'a.txt', type: 'text/plain' });
  assert.is(r.body.error, 'Unsupported Media Type');
});

t('bytes that look like an image or video but do not decode: 422, nothing stored', async ({ app }) => {
  const ds = await app.collection('Broken');
  const fakeJpeg = Buffer.concat([
    Buffer.from([0xff, 0xd8, 0xff, 0xe0]),
    Buffer.from('this is not JFIF at all'.repeat(50)),
  ]);
  await refused(
    app,
    ds,
    422,
    () => app.upload({ datasetId: ds }, { bytes: fakeJpeg, filename: 'x.jpg', type: 'image/jpeg' }),
    'fake JPEG',
  );
  const png = await solid(64, 64, 90).png().toBuffer();
  await refused(
    app,
    ds,
    422,
    () => app.upload({ datasetId: ds }, { bytes: png.subarray(0, 40), filename: 'cut.png' }),
    'PNG cut after the header',
  );
  const jpeg = await makeImage({ width: 300, height: 300 });
  await refused(
    app,
    ds,
    422,
    () => app.upload({ datasetId: ds }, { bytes: jpeg.subarray(0, Math.floor(jpeg.length / 3)), filename: 'cut.jpg' }),
    'JPEG cut short',
  );
  // A decompression bomb: a few hundred bytes whose header claims 12000 × 12000 (144 Mpx, above the default limit).
  const bomb = bombPng(12000, 12000);
  assert.ok(bomb.length < 100_000, `bomb is small (${bomb.length} bytes)`);
  const meta = await sharp(bomb).metadata();
  assert.equal([meta.width, meta.height], [12000, 12000], 'the crafted header is valid');
  const b = await refused(
    app,
    ds,
    422,
    () => app.upload({ datasetId: ds }, { bytes: bomb, filename: 'bomb.png' }),
    'pixel bomb',
  );
  assert.is(b.body.error, 'Unprocessable Entity');
});

t('size and pixel limits: 413 above maxUploadBytes, 422 above maxImagePixels; tmp stays empty', async () => {
  const app = await startTestApp({ maxUploadBytes: 10_000, maxImagePixels: 1000, ingestConcurrency: 0 });
  try {
    const ds = await app.collection('Limits');
    const big = await sharp({
      create: {
        width: 120,
        height: 120,
        channels: 3,
        background: { r: 0, g: 0, b: 0 },
        noise: { type: 'gaussian', mean: 128, sigma: 60 },
      },
    })
      .png()
      .toBuffer();
    assert.ok(big.length > 10_000);
    const r = await refused(
      app,
      ds,
      413,
      () =>
        app.upload({ datasetId: ds }, { bytes: big, filename: 'big.png' }).catch((err) => {
          throw new Error(`the server dropped the connection instead of answering 413: ${err}`);
        }),
      'too large',
    );
    assert.is(r.body.error, 'Payload Too Large');
    // A small file that decodes to too many pixels (100 × 100 > 1000).
    const wide = await solid(100, 100, 5).png().toBuffer();
    assert.ok(wide.length < 10_000);
    const px = await refused(
      app,
      ds,
      422,
      () => app.upload({ datasetId: ds }, { bytes: wide, filename: 'wide.png' }),
      'too many pixels',
    );
    assert.match(px.body.message, /pixel|large/i);
    // Under both limits: accepted.
    const okUp = await app.upload(
      { datasetId: ds },
      { bytes: await solid(20, 20, 5).png().toBuffer(), filename: 'small.png' },
    );
    assert.is(okUp.status, 200, JSON.stringify(okUp.body));
    assert.equal(tmpEntries(app.dataDir), []);
  } finally {
    await app.close();
  }
});

t(
  'bad fields: missing datasetId or file 400, unknown collection 404, folder of another collection 400',
  async ({ app, ds }) => {
    const other = await app.collection('Other');
    const otherFolder = (await app.request('POST', '/api/folder', { body: { datasetId: other, name: 'Elsewhere' } }))
      .body.folder;
    const img = await makeImage({ color: { r: 1, g: 100, b: 1 } });
    const file = { bytes: img, filename: 'f.jpg' };
    await refused(app, ds, 400, () => app.upload({}, file), 'missing datasetId');
    await refused(app, ds, 400, () => app.upload({ datasetId: ds }, null), 'missing file');
    await refused(app, ds, 400, () => app.upload({ datasetId: '' }, file), 'empty datasetId');
    await refused(
      app,
      ds,
      404,
      () => app.upload({ datasetId: '00000000-0000-4000-8000-000000000000' }, file),
      'unknown collection',
    );
    await refused(app, ds, 404, () => app.upload({ datasetId: 'not-a-uuid' }, file), 'malformed collection id');
    await refused(
      app,
      ds,
      400,
      () => app.upload({ datasetId: ds, path: otherFolder.path }, file),
      'folder of another collection',
    );
    await refused(app, ds, 400, () => app.upload({ datasetId: ds, path: '../../etc' }, file), 'not an ltree path');
    await refused(
      app,
      ds,
      404,
      () => app.upload({ datasetId: ds, path: `${ds.replace(/-/g, '')}.${'0'.repeat(32)}` }, file),
      'no such folder',
    );
    // The other collection got nothing either.
    assert.is(await total(app, other), 1);
    // A file sent under another field name is still an upload of one file, or a clear 400; never a 500.
    const form = new FormData();
    form.append('datasetId', ds);
    form.append('attachment', new Blob([img], { type: 'image/jpeg' }), 'odd.jpg');
    const res = await fetch(app.baseUrl + '/api/upload/multipart', {
      method: 'POST',
      headers: { 'x-api-key': app.key },
      body: form,
    });
    assert.ok([200, 400].includes(res.status), `other field name: ${res.status}`);
    // Not multipart at all.
    const json = await app.request('POST', '/api/upload/multipart', { body: { datasetId: ds } });
    assert.is(json.status, 400, JSON.stringify(json.body));
    assert.equal(tmpEntries(app.dataDir), []);
  },
);

t('name overrides the file name; path puts it in a folder; hyphenless datasetId works', async ({ app, ds }) => {
  const root = ds.replace(/-/g, '');
  const folder = (await app.request('POST', '/api/folder', { body: { datasetId: ds, name: 'Album' } })).body.folder;
  const sub = (await app.request('POST', '/api/folder', { body: { datasetId: ds, name: 'Sub', path: folder.path } }))
    .body.folder;
  const up = await app.upload(
    { datasetId: ds, name: 'My holiday.jpg', path: sub.path },
    { bytes: await makeImage({ color: { r: 3, g: 3, b: 200 } }), filename: 'IMG_0001.JPG' },
  );
  assert.is(up.status, 200, JSON.stringify(up.body));
  const m = await getMedia(app, up.body.mediaId);
  assert.is(m.name, 'My holiday.jpg');
  assert.is(m.path, `${sub.path}.${m.id}`);
  assert.is(m.path, `${root}.${folder.id}.${sub.id}.${m.id}`);
  assert.is(m.datasetId, ds);
  const inside = await app.request('GET', `/api/dataset/${ds}/media?path=${sub.path}`);
  assert.equal(
    inside.body.media.map((x: { id: string }) => x.id),
    [m.id],
  );
  const rootLevel = await app.request('GET', `/api/dataset/${ds}/media?limit=100`);
  assert.not.ok(
    rootLevel.body.media.some((x: { id: string }) => x.id === m.id),
    'not at the root level',
  );
  const folders = await app.request('GET', `/api/dataset/${ds}/media?type=folder&limit=100`);
  assert.is(folders.body.media.find((f: { id: string }) => f.id === folder.id).folderItemCount, 1);
  // The collection root path, and a datasetId without hyphens.
  const atRoot = await app.upload(
    { datasetId: root, path: root },
    { bytes: await makeImage({ color: { r: 3, g: 200, b: 3 } }), filename: 'root.jpg' },
  );
  assert.is(atRoot.status, 200, JSON.stringify(atRoot.body));
  const r = await getMedia(app, atRoot.body.mediaId);
  assert.is(r.path, `${root}.${r.id}`);
  assert.is(r.name, 'root.jpg');
  assert.is(r.datasetId, ds);
});

t('the same bytes uploaded twice: two items sharing one stored file', async ({ app }) => {
  const ds = await app.collection('Dedupe');
  const bytes = await makeImage({ width: 50, height: 50, color: { r: 123, g: 45, b: 67 } });
  const hash = sha256(bytes);
  const before = (await app.request('GET', '/api/me')).body.storageBytes as number;
  const a = await app.upload({ datasetId: ds }, { bytes, filename: 'one.jpg' });
  const afterFirst = storedFiles(app.dataDir);
  const b = await app.upload({ datasetId: ds }, { bytes, filename: 'two.jpg' });
  assert.is(a.status, 200);
  assert.is(b.status, 200);
  assert.is.not(a.body.mediaId, b.body.mediaId);
  assert.is(await total(app, ds), 2);
  const originals = storedFiles(app.dataDir).filter((f) => path.basename(f).startsWith(hash));
  assert.is(originals.length, 1, `one stored file for the original: ${originals}`);
  assert.equal(storedFiles(app.dataDir), afterFirst, 'the second upload stored no new file');
  assert.equal(readFileSync(path.join(app.dataDir, 'files', originals[0])), bytes);
  const ma = await getMedia(app, a.body.mediaId);
  const mb = await getMedia(app, b.body.mediaId);
  const keyOf = (url: string) => new URL(url).pathname.split('/')[3];
  assert.is(keyOf(ma.blob), keyOf(mb.blob), 'both name the same stored file');
  assert.is(ma.name, 'one.jpg');
  assert.is(mb.name, 'two.jpg');
  // The organization's counter is bytes in use by its items: each item counts, shared file or not.
  assert.is((await app.request('GET', '/api/me')).body.storageBytes, before + 2 * bytes.length);
  // Deleting one leaves the other whole, and gives its bytes back to the counter.
  assert.is((await app.request('DELETE', `/api/media/${a.body.mediaId}`)).status, 200);
  assert.is((await fetch(mb.blob)).status, 200);
  assert.is((await fetch(mb.frames[0].blob)).status, 200);
  assert.is((await app.request('GET', '/api/me')).body.storageBytes, before + bytes.length);
});

t('EXIF: GPS and camera fields from a real photo', async ({ app, ds }) => {
  const p = sharedPath('fixtures/images/exif_gps_DSCN0010.jpg', 'EXIF GPS fixture');
  if (!p) return;
  const up = await app.upload({ datasetId: ds }, { bytes: readFileSync(p), filename: 'DSCN0010.jpg' });
  assert.is(up.status, 200, JSON.stringify(up.body));
  const m = await getMedia(app, up.body.mediaId);
  assert.equal([m.width, m.height], [640, 480]);
  assert.type(m.exif.latitude, 'number');
  assert.type(m.exif.longitude, 'number');
  assert.ok(Math.abs(m.exif.latitude - 43.4674) < 0.01, `latitude ${m.exif.latitude}`);
  assert.ok(Math.abs(m.exif.longitude - 11.8851) < 0.01, `longitude ${m.exif.longitude}`);
  assert.is(m.exif.make, 'NIKON');
  assert.match(m.exif.model, /COOLPIX P6000/);
  assert.ok(m.exif.GPSInfo, 'GPS group kept');
  assert.ok(m.exif.tags && typeof m.exif.tags === 'object', 'exif.tags is an object');
  // The JSON round-trips (no Buffers, BigInts or Dates in it).
  assert.not.ok(JSON.stringify(m.exif).includes('"type":"Buffer"'));
});

t('EXIF orientation: width and height are as displayed; the frame is upright', async ({ app, ds }) => {
  const p = sharedPath('fixtures/images/exif_orientation_portrait_3.jpg', 'EXIF orientation fixture');
  if (p) {
    const up = await app.upload({ datasetId: ds }, { bytes: readFileSync(p), filename: 'portrait.jpg' });
    assert.is(up.status, 200, JSON.stringify(up.body));
    const m = await getMedia(app, up.body.mediaId);
    // Orientation 3 is a 180° turn: the dimensions do not swap.
    assert.equal([m.width, m.height], [450, 600]);
    assert.is(m.exif.orientation, 3);
    assert.equal([m.frames[0].width, m.frames[0].height], [450, 600]);
  }
  // Orientation 6 (90° clockwise): a 64 × 48 landscape stored sideways displays as 48 × 64.
  const sideways = await solid(64, 48, 200, 10, 10).jpeg().withMetadata({ orientation: 6 }).toBuffer();
  const up6 = await app.upload({ datasetId: ds }, { bytes: sideways, filename: 'sideways.jpg' });
  assert.is(up6.status, 200, JSON.stringify(up6.body));
  const m6 = await getMedia(app, up6.body.mediaId);
  assert.equal([m6.width, m6.height], [48, 64]);
  assert.equal([m6.frames[0].width, m6.frames[0].height], [48, 64]);
  const frame = Buffer.from(await (await fetch(m6.frames[0].blob)).arrayBuffer());
  const fm = await sharp(frame).metadata();
  assert.equal([fm.width, fm.height], [48, 64], 'frame pixels are upright');
  assert.ok((fm.orientation ?? 1) === 1, 'frame carries no rotation flag');
});

t('videos: MP4 and MKV probed, pending, served with Range; a truncated MP4 is 422', async ({ app }) => {
  const ds = await app.collection('Videos');
  const mp4 = sharedPath('fixtures/videos/car-detection.mp4', 'MP4 video fixture');
  if (mp4) {
    const bytes = readFileSync(mp4);
    const up = await app.upload({ datasetId: ds }, { bytes, filename: 'clip.bin', type: 'application/octet-stream' });
    assert.is(up.status, 200, JSON.stringify(up.body));
    const m = await getMedia(app, up.body.mediaId);
    assert.is(m.type, 'video');
    assert.is(m.mimeType, 'video/mp4');
    assert.equal([m.width, m.height], [768, 432]);
    assert.ok(typeof m.duration === 'number' && Math.abs(m.duration - 30) < 1, `duration ${m.duration}`);
    assert.ok(['pending', 'processing', 'ready'].includes(m.processingStatus), m.processingStatus);
    assert.is(m.sizeBytes, bytes.length);
    assert.is(m.name, 'clip.bin');
    assert.is(m.takenAt, '2018-04-19T22:46:00.000Z', 'the container creation_time');
    const full = await fetch(m.blob);
    assert.is(full.status, 200);
    assert.is(full.headers.get('content-type'), 'video/mp4');
    assert.is(full.headers.get('accept-ranges'), 'bytes');
    await full.arrayBuffer();
    const part = await fetch(m.blob, { headers: { range: 'bytes=0-99' } });
    assert.is(part.status, 206);
    assert.is(part.headers.get('content-range'), `bytes 0-99/${bytes.length}`);
    assert.is(part.headers.get('content-type'), 'video/mp4');
    const got = Buffer.from(await part.arrayBuffer());
    assert.is(got.length, 100);
    assert.equal(got, bytes.subarray(0, 100));
    const tail = await fetch(m.blob, { headers: { range: 'bytes=-10' } });
    assert.is(tail.status, 206);
    assert.equal(Buffer.from(await tail.arrayBuffer()), bytes.subarray(bytes.length - 10));
    const listed = await app.request('GET', `/api/dataset/${ds}/media?type=video`);
    assert.is(listed.body.pagination.total, 1);

    // The first 2 KB of the same file: looks like an MP4, does not play.
    await refused(
      app,
      ds,
      422,
      () => app.upload({ datasetId: ds }, { bytes: bytes.subarray(0, 2048), filename: 'cut.mp4', type: 'video/mp4' }),
      'truncated MP4',
    );
  }
  const mkv = sharedPath('fixtures/videos/asl_eat.mkv', 'MKV video fixture');
  if (mkv) {
    const bytes = readFileSync(mkv);
    const up = await app.upload({ datasetId: ds, name: 'eat.mkv' }, { bytes, filename: 'eat.mp4', type: 'video/mp4' });
    assert.is(up.status, 200, JSON.stringify(up.body));
    const m = await getMedia(app, up.body.mediaId);
    assert.is(m.type, 'video');
    assert.is(m.mimeType, 'video/x-matroska');
    assert.equal([m.width, m.height], [640, 480]);
    assert.ok(typeof m.duration === 'number' && m.duration > 1 && m.duration < 2.5, `duration ${m.duration}`);
    assert.ok(['pending', 'processing', 'ready'].includes(m.processingStatus), m.processingStatus);
    const file = await fetch(m.blob);
    assert.is(file.headers.get('content-type'), 'video/x-matroska');
    await file.arrayBuffer();
  }
  assert.equal(tmpEntries(app.dataDir), []);
});

t('a client that stops a video download midway leaves no unstructured stack trace on stderr', async ({ app }) => {
  const ds = await app.collection('Abort');
  const mp4 = sharedPath('fixtures/videos/car-detection.mp4', 'MP4 video fixture');
  if (!mp4) return;
  const up = await app.upload({ datasetId: ds }, { bytes: readFileSync(mp4), filename: 'clip.mp4' });
  assert.is(up.status, 200);
  const printed: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void printed.push(args.map(String).join(' '));
  try {
    // What a video player does when the user seeks: start a download, then drop it.
    for (let i = 0; i < 3; i++) {
      const res = await fetch(up.body.url);
      assert.is(res.status, 200);
      const reader = res.body!.getReader();
      await reader.read();
      await reader.cancel();
    }
    await new Promise((r) => setTimeout(r, 300));
  } finally {
    console.error = original;
  }
  // Koa's default app.onerror prints every stream error (ECONNRESET, ERR_STREAM_PREMATURE_CLOSE) with its stack.
  const first = printed.map((x) => x.trim().split('\n')[0]);
  assert.is(
    printed.length,
    0,
    `aborted downloads printed ${printed.length} stack traces to stderr outside the structured log: ${[...new Set(first)].join(' | ')}`,
  );
  // The server is fine afterwards.
  assert.is((await fetch(up.body.url, { headers: { range: 'bytes=0-9' } })).status, 206);
});

t.run();
