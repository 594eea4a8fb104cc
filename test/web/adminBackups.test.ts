/**
 * The backups screen in Chromium (issue #29), against a server with BACKUP_DIR: reached from the admin tabs, the
 * schedule in words, "Back up now" shows the running backup's progress (rate, ETA) and then the backup (full, then
 * incremental), each backup's exact restore command with a copy button, a real failure in words; the integrity
 * repair asks first, says what it did and quarantines an untracked file. axe, screenshot, nothing foreign.
 */
import { existsSync, mkdtempSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Route } from 'playwright-core';
import {
  assertCleanPage,
  chromiumPath,
  screenshot,
  seriousA11yViolations,
  startWatchedApp,
  type WatchedApp,
} from './browser.js';
import type { LocalBlobStore } from '../../src/files/localBlobStore.js';
import { makeImage, waitForProcessing } from '../helpers/testApp.js';

const exe = chromiumPath('admin backups');
const backupDir = mkdtempSync(path.join(os.tmpdir(), 'mlib-web-backups-'));
let b: WatchedApp;
let datasetId: string;
const page = () => b.page;

async function addPhoto(name: string, seed: number): Promise<void> {
  const up = await b.server.upload(
    { datasetId },
    { bytes: await makeImage({ color: { r: 40 * seed, g: 120, b: 200 - 40 * seed } }), filename: name },
  );
  assert.is(up.status, 200, JSON.stringify(up.body));
  await waitForProcessing(b.server, up.body.media.id);
}

test.before(async () => {
  if (!exe) return;
  b = await startWatchedApp(exe, { env: { BACKUP_DIR: backupDir, BACKUP_INTERVAL_HOURS: '24', BACKUP_KEEP: '3' } });
  datasetId = await b.server.collection('Family');
  await addPhoto('first.jpg', 1);
});
test.after(async () => {
  await b?.close();
  rmSync(backupDir, { recursive: true, force: true });
});

test('the Backups tab: the schedule in words, no backup yet, restore explained', async () => {
  if (!exe) return;
  await page().goto(b.server.baseUrl + '/admin/storage');
  await page().getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Backups' }).click();
  await page().getByRole('heading', { name: 'Backups', exact: true, level: 1 }).waitFor();
  await page().getByText(`Backups go to ${backupDir}.`).waitFor();
  await page().getByText('A backup is made every day; the 3 newest backups are kept (BACKUP_KEEP).').waitFor();
  await page().getByText('No backups yet.').waitFor();
  await page()
    .getByText(/Restoring is a command-line step: stop the server first/)
    .waitFor();
});

test('Back up now: the running backup with rate and ETA, then a full backup and its restore command', async () => {
  if (!exe) return;
  // The library is small and is backed up in a blink: until the route goes, the listings after the click say it is
  // still running, with the progress the server reports mid-way; then the screen's polling finds it done.
  await page().route('**/api/admin/backups', async (route: Route) => {
    if (route.request().method() !== 'GET') return route.continue();
    const real = await (await route.fetch()).json();
    const progress = { phase: 'files', filesDone: 3, filesTotal: 12, bytesDone: 3 << 20, bytesTotal: 12 << 20 };
    const running = { trigger: 'api', startedAt: new Date().toISOString() };
    Object.assign(running, { progress: { ...progress, bytesPerSecond: 1 << 20, etaMs: 9000, elapsedMs: 3000 } });
    await route.fulfill({ json: { ...real, running } });
  });
  await page().getByRole('button', { name: 'Back up now' }).click();
  const status = page().getByRole('status').filter({ hasText: 'A backup is running' });
  await status
    .getByText(/Copying new files · 3 of 12 files · 3\.0 MB of 12 MB · 1\.0 MB\/s · about 9 s left/)
    .waitFor();
  assert.is(await page().getByRole('progressbar', { name: 'Backup progress' }).getAttribute('value'), String(3 << 20));
  assert.ok(await page().getByRole('button', { name: 'Backing up…' }).isDisabled(), 'one backup at a time');
  await page().unroute('**/api/admin/backups');
  const row = page().getByRole('row').filter({ hasText: 'Full' });
  await row.waitFor({ timeout: 20_000 });
  await status.waitFor({ state: 'detached' });
  const list = await b.server.request('GET', '/api/admin/backups');
  const [backup] = list.body.backups;
  const command = page().getByLabel(/^Restore the backup of /);
  assert.is(
    await command.inputValue(),
    `npm run restore -- --from ${path.join(backupDir, backup.id)} --to ${b.server.dataDir} --force`,
  );
  await page().getByRole('button', { name: 'Copy' }).waitFor();
});

test('a second backup after a new photo is incremental: it copies only the new files', async () => {
  if (!exe) return;
  await addPhoto('second.jpg', 2);
  await page().getByRole('button', { name: 'Back up now' }).click();
  await page()
    .getByRole('row')
    .filter({ hasText: /Incremental: \d+ new files?/ })
    .waitFor({ timeout: 20_000 });
  assert.is(
    await page()
      .getByLabel(/^Restore the backup of /)
      .count(),
    2,
    'a restore command for each backup',
  );
  assert.equal(await seriousA11yViolations(page()), []);
  await screenshot(page(), 'admin-backups');
});

test('a backup that fails says why on the screen', async () => {
  if (!exe) return;
  const aside = backupDir + '.aside';
  renameSync(backupDir, aside);
  writeFileSync(backupDir, 'not a folder');
  try {
    await page().getByRole('button', { name: 'Back up now' }).click();
    await page().getByRole('alert').filter({ hasText: 'The last backup failed:' }).waitFor({ timeout: 20_000 });
  } finally {
    rmSync(backupDir);
    renameSync(aside, backupDir);
  }
});

test('Repair what is safe: asks first saying what it does, then reports what it did', async () => {
  if (!exe) return;
  const blobs = b.server.app.services.blobs as LocalBlobStore;
  const stray = await blobs.putBuffer(Buffer.from('no row points here'), 'bin');
  const old = new Date(Date.now() - 2 * 3_600_000);
  utimesSync(blobs.pathFor(stray.key), old, old);
  await page().getByRole('link', { name: 'Storage' }).click();
  await page().getByRole('button', { name: 'Repair what is safe' }).click();
  const confirm = page().getByRole('group', { name: /never deletes or changes an original/ });
  await confirm.getByText(/moves files no item uses .* to the quarantine folder/).waitFor();
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  assert.ok(existsSync(blobs.pathFor(stray.key)), 'nothing done on Cancel');
  await page().getByRole('button', { name: 'Repair what is safe' }).click();
  await page().getByRole('button', { name: 'Repair now' }).click();
  await page()
    .getByText(/moved 1 untracked file to .*quarantine\. Originals were not touched\./)
    .waitFor();
  await page()
    .getByText(/items and \d+ files checked/)
    .waitFor();
  assert.ok(existsSync(path.join(b.server.dataDir, 'quarantine', stray.key)));
  assert.equal(await seriousA11yViolations(page()), []);
});

test('nothing left the server, no dialog, no CSP violation, no page error', () => {
  if (!exe) return;
  assertCleanPage(b);
});

test.run();
