/**
 * The integrity report (issue #29) over a real library: it finds a missing original, an untracked file, a
 * bit-rotten original and a missing thumbnail; --repair moves the untracked file to the quarantine folder and
 * queues the thumbnail, which the job runner makes again; no original is touched.
 */
import { existsSync, readFileSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkIntegrity, rehashStateFile } from '../../../src/features/backup/integrity.js';
import { rehashOriginals } from '../../../src/features/backup/rehash.js';
import { repairIntegrity } from '../../../src/features/backup/repair.js';
import type { LocalBlobStore } from '../../../src/files/localBlobStore.js';
import { makeImage, startTestApp, waitForProcessing, type TestApp } from '../../helpers/testApp.js';

const t = suite<{ app: TestApp; ds: string }>('integrity report');
t.before(async (ctx) => {
  ctx.app = await startTestApp();
  ctx.ds = await ctx.app.collection('Integrity');
});
t.after(async (ctx) => ctx.app.close());

async function readyItem(app: TestApp, ds: string, r: number) {
  const bytes = await makeImage({ color: { r, g: 40, b: 160 }, width: 90, height: 70 });
  const up = await app.upload({ datasetId: ds }, { bytes, filename: `i${r}.jpg`, type: 'image/jpeg' });
  assert.is(up.status, 200);
  await waitForProcessing(app, up.body.media.id);
  return (await app.app.services.storage.media.get(up.body.media.id))!;
}

async function waitFor(what: string, ok: () => Promise<boolean>, ms = 20_000) {
  for (const until = Date.now() + ms; !(await ok()); await new Promise((r) => setTimeout(r, 100)))
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
}

t(
  'finds a missing original, an untracked file, a rotten original and a missing thumbnail; repairs what is safe',
  async (ctx) => {
    const services = ctx.app.app.services;
    const blobs = services.blobs as LocalBlobStore;
    const healthy = await readyItem(ctx.app, ctx.ds, 10);
    const lost = await readyItem(ctx.app, ctx.ds, 60);
    const rotten = await readyItem(ctx.app, ctx.ds, 110);
    const thumbless = await readyItem(ctx.app, ctx.ds, 160);
    const clean = await checkIntegrity(services, 0);
    assert.ok(clean.ok, `a fresh library is whole: ${JSON.stringify(clean.counts)}`);
    assert.ok(clean.items >= 4);

    unlinkSync(blobs.pathFor(lost.blobKey!));
    const rottenFile = blobs.pathFor(rotten.blobKey!);
    const bytes = readFileSync(rottenFile);
    bytes[bytes.length >> 1] ^= 0x10;
    writeFileSync(rottenFile, bytes);
    const [frame] = await services.storage.analysis.framesOf(thumbless.id);
    assert.ok(frame.thumbnailKey, 'the item had its thumbnail');
    unlinkSync(blobs.pathFor(frame.thumbnailKey!));
    const stray = Buffer.from('nobody references me');
    const strayKey = `${createHash('sha256').update(stray).digest('hex')}.bin`;
    const strayPut = await blobs.putBuffer(stray, 'bin');
    assert.is(strayPut.key, strayKey);
    const old = new Date(Date.now() - 2 * 3_600_000);
    utimesSync(blobs.pathFor(strayKey), old, old);

    const stateFile = rehashStateFile(services.config.dataDir);
    const state = await rehashOriginals(services, { stateFile, rateBytesPerSecond: 0 });
    assert.is(state.position, null, 'the re-hash went to the end');
    const report = await checkIntegrity(services);
    assert.not.ok(report.ok);
    assert.equal(
      report.missingOriginals.map((f) => f.mediaId),
      [lost.id],
    );
    assert.ok(
      report.missingDerived.some((f) => f.mediaId === thumbless.id && f.role === 'thumbnail'),
      JSON.stringify(report.missingDerived),
    );
    assert.equal(
      report.untracked?.map((u) => u.key),
      [strayKey],
    );
    assert.equal(
      report.rotten.map((f) => f.mediaId),
      [rotten.id],
    );
    assert.not.ok(report.missingOriginals.some((f) => f.mediaId === healthy.id));

    const repaired = await repairIntegrity(services, report);
    assert.is(repaired.quarantined, 1);
    assert.ok(existsSync(path.join(repaired.quarantineDir, strayKey)), 'the untracked file is in quarantine');
    assert.not.ok(await blobs.exists(strayKey));
    assert.ok(repaired.renditionsQueued >= 1);
    await waitFor('the thumbnail made again', async () => {
      const [f] = await services.storage.analysis.framesOf(thumbless.id);
      return f.thumbnailKey !== null && (await blobs.exists(f.thumbnailKey));
    });
    assert.ok(existsSync(rottenFile), 'a rotten original is reported, never removed');
    const after = await checkIntegrity(services);
    assert.is(after.counts.missingDerived, 0);
    assert.is(after.counts.untracked, 0);
    assert.is(after.counts.missingOriginals, 1, 'a missing original stays reported: only a backup brings it back');
  },
);

t('the re-hash is throttled and resumes from its saved position', async (ctx) => {
  const services = ctx.app.app.services;
  const stateFile = path.join(services.config.dataDir, 'integrity', 'resume.json');
  // Each page is one call: stopping after the first page leaves a position the next run goes on from.
  const stop = new AbortController();
  const first = await rehashOriginals(services, {
    stateFile,
    rateBytesPerSecond: 0,
    signal: stop.signal,
    pageSize: 1,
    onProgress: () => stop.abort(),
  });
  assert.ok(first.files <= 1, 'one page, one item (none when it is the one whose original went)');
  assert.ok(first.position, 'a position saved');
  const started = Date.now();
  const rate = 4_000; // bytes a second
  const rest = await rehashOriginals(services, { stateFile, rateBytesPerSecond: rate, pageSize: 1 });
  assert.is(rest.position, null);
  assert.is(rest.startedAt, first.startedAt, 'the same pass went on');
  const secondBytes = rest.bytes - first.bytes;
  assert.ok(rest.files > first.files && secondBytes > 0, 'the rest of the originals');
  assert.ok(Date.now() - started >= (secondBytes / rate) * 1000 * 0.8, 'held to the rate');
});

t.run();
