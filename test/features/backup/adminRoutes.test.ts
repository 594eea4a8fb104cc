/**
 * The admin API of backups and the integrity report (issue #29): POST /api/admin/backups runs one in the
 * background (409 while one runs, or without BACKUP_DIR), GET lists it with its files and the schedule,
 * GET /api/admin/integrity reports a whole library, POST /api/admin/integrity/repair quarantines an untracked file.
 */
import { existsSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { LocalBlobStore } from '../../../src/files/localBlobStore.js';
import { pgRestoreCommand, restoreCommand } from '../../../src/features/backup/adminBackups.js';
import { notOnPglite } from '../../helpers/engine.js';
import { makeImage, startTestApp, waitForProcessing } from '../../helpers/testApp.js';

const t = suite('admin backups');

t('without BACKUP_DIR a backup is refused with a 409 naming the setting', async () => {
  const app = await startTestApp();
  try {
    const r = await app.request('POST', '/api/admin/backups');
    assert.is(r.status, 409);
    assert.is(r.body.error, 'Conflict');
    assert.match(r.body.message, 'BACKUP_DIR');
    const list = await app.request('GET', '/api/admin/backups');
    assert.is(list.status, 200);
    assert.equal(list.body.backups, []);
    assert.is(list.body.schedule.nextAt, null, 'nothing scheduled without BACKUP_DIR');
  } finally {
    await app.close();
  }
});

t('POST runs a backup in the background; GET lists it; the integrity report is whole', async () => {
  if (notOnPglite("pg_dump 15 refuses PGlite's server version 18")) return;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mlib-admin-backups-'));
  const app = await startTestApp({}, { BACKUP_DIR: dir, BACKUP_INTERVAL_HOURS: '24', BACKUP_KEEP: '3' });
  try {
    const ds = await app.collection('Admin');
    const up = await app.upload({ datasetId: ds }, { bytes: await makeImage(), filename: 'a.jpg', type: 'image/jpeg' });
    await waitForProcessing(app, up.body.media.id);
    const started = await app.request('POST', '/api/admin/backups');
    assert.is(started.status, 202, JSON.stringify(started.body));
    assert.is(started.body.backup.trigger, 'api');
    const again = await app.request('POST', '/api/admin/backups');
    assert.is(again.status, 409, 'one backup at a time');
    let list = await app.request('GET', '/api/admin/backups');
    for (const until = Date.now() + 20_000; list.body.running && Date.now() < until;) {
      await new Promise((r) => setTimeout(r, 100));
      list = await app.request('GET', '/api/admin/backups');
    }
    assert.is(list.body.running, null);
    assert.is(list.body.lastError, null);
    assert.is(list.body.backups.length, 1);
    const [b] = list.body.backups;
    assert.ok(b.files >= 3, 'the original, its frame and renditions');
    assert.is(b.copiedFiles, b.files);
    if (b.engine === 'sqlite')
      assert.is(b.restoreCommand, `npm run restore -- --from ${path.join(dir, b.id)} --to ${app.dataDir} --force`);
    else assert.match(b.restoreCommand, `pg_restore --clean --dbname "$DATABASE_URL" ${path.join(dir, b.id)}/`);
    assert.equal(list.body.schedule.intervalHours, 24);
    assert.equal(list.body.schedule.keep, 3);
    assert.type(list.body.schedule.nextAt, 'string');
    const integrity = await app.request('GET', '/api/admin/integrity');
    assert.is(integrity.status, 200);
    assert.ok(integrity.body.report.ok, JSON.stringify(integrity.body.report.counts));
    const blobs = app.app.services.blobs as LocalBlobStore;
    const stray = await blobs.putBuffer(Buffer.from('no row'), 'bin');
    const old = new Date(Date.now() - 2 * 3_600_000);
    utimesSync(blobs.pathFor(stray.key), old, old);
    const repaired = await app.request('POST', '/api/admin/integrity/repair');
    assert.is(repaired.status, 200, JSON.stringify(repaired.body));
    assert.equal(
      repaired.body.report.untracked.map((u: { key: string }) => u.key),
      [stray.key],
    );
    assert.is(repaired.body.repair.quarantined, 1);
    assert.ok(existsSync(path.join(app.dataDir, 'quarantine', stray.key)));
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

t('members and viewers are refused every backup and integrity route (403), and no backup starts', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mlib-admin-backups-'));
  const app = await startTestApp({}, { BACKUP_DIR: dir });
  try {
    for (const role of ['viewer', 'member']) {
      const key = (await app.request('POST', '/api/keys', { body: { role } })).body.key;
      for (const [method, url] of [
        ['GET', '/api/admin/backups'],
        ['POST', '/api/admin/backups'],
        ['GET', '/api/admin/integrity'],
        ['POST', '/api/admin/integrity/repair'],
      ] as const) {
        const r = await app.request(method, url, { key });
        assert.is(r.status, 403, `${role} ${method} ${url}`);
        assert.type(r.body.message, 'string');
      }
    }
    assert.is((await app.request('GET', '/api/admin/backups')).body.running, null);
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

t('a restore command quotes folders a shell would split', () => {
  assert.is(
    restoreCommand("/mnt/my backups/it's", '/data'),
    `npm run restore -- --from '/mnt/my backups/it'\\''s' --to /data --force`,
  );
  assert.is(pgRestoreCommand('/b/x/db.dump'), 'pg_restore --clean --dbname "$DATABASE_URL" /b/x/db.dump');
});

t.run();
