/**
 * A full disk as people see it (issue #29), for real: DATA_DIR is a small tmpfs the test mounts (as root; skipped
 * with a message otherwise) and a filler file takes the space away. The banner appears on every screen while
 * background work is paused (from the event stream), saying how much is free and that work resumes by itself; an
 * upload then fails in the upload panel with the server's 507 message; once the filler goes the banner leaves by
 * itself and uploads work again. The same server has no BACKUP_DIR: the backups screen says what to set.
 */
import { rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  assertCleanPage,
  chromiumPath,
  screenshot,
  seriousA11yViolations,
  startWatchedApp,
  type WatchedApp,
} from './browser.js';
import { makeImage } from '../helpers/testApp.js';
import { freeBytes, mountTmpfs, unmountTmpfs } from '../helpers/tmpfs.js';

const MB = 1024 * 1024;
const exe = chromiumPath('disk banner');

const mounted = exe ? mountTmpfs(48 * MB, 'mlib-diskbanner-') : { skip: 'no Chromium' };
const skip = 'skip' in mounted ? mounted.skip : null;
let b: WatchedApp;
let datasetId: string;
let dir: string;
const page = () => b.page;
const filler = () => path.join(dir, 'filler');
const banner = () => page().getByRole('status').filter({ hasText: "The server's disk is full." });

test.before(async () => {
  if (skip) return console.log(`  (disk banner test skipped: ${skip})`);
  dir = (mounted as { dir: string }).dir;
  b = await startWatchedApp(exe!, { config: { dataDir: dir }, env: { MIN_FREE_BYTES: String(4 * MB) } });
  datasetId = await b.server.collection('Full disk');
  writeFileSync(path.join(os.tmpdir(), 'mlib-diskbanner-photo.jpg'), await makeImage());
});
test.after(async () => {
  if (skip) return;
  rmSync(filler(), { force: true });
  await b?.close();
  unmountTmpfs(dir);
});

test('without BACKUP_DIR the backups screen says what to set', async () => {
  if (skip) return;
  await page().goto(b.server.baseUrl + '/admin/backups');
  await page().getByText('Backups are off: BACKUP_DIR is not set.').waitFor();
  assert.is(await page().getByRole('button', { name: 'Back up now' }).count(), 0);
  assert.is(await banner().count(), 0, 'no banner while there is room');
});

test('a full disk: the banner says how much is free; an upload fails with the 507 message', async () => {
  if (skip) return;
  await page().goto(`${b.server.baseUrl}/c/${datasetId}`);
  writeFileSync(filler(), Buffer.alloc(freeBytes(dir) - 2 * MB)); // about 2 MB left: below MIN_FREE_BYTES
  await banner().waitFor({ timeout: 10_000 });
  const text = await banner().innerText();
  assert.match(text, /only \d(\.\d)? MB is free/);
  assert.match(text, /keeps 4\.0 MB free \(MIN_FREE_BYTES\)\. Work resumes by itself once space is freed\./);
  assert.equal(await seriousA11yViolations(page()), []);
  await screenshot(page(), 'disk-banner');
  const photo = path.join(os.tmpdir(), 'mlib-diskbanner-photo.jpg');
  await page().locator('#upload-files').setInputFiles(photo);
  const row = page().locator('.upload-row[data-state="failed"]');
  await row.waitFor({ timeout: 10_000 });
  assert.match(await row.locator('.upload-reason').innerText(), /no room for this upload.*MIN_FREE_BYTES/);
  // Another screen: the banner is across the app (a stream opened during the pause is told at once).
  await page().goto(b.server.baseUrl + '/admin/storage');
  await banner().waitFor({ timeout: 10_000 });
});

test('space frees: the banner goes away by itself and uploads work again', async () => {
  if (skip) return;
  rmSync(filler());
  await banner().waitFor({ state: 'detached', timeout: 15_000 });
  await page().goto(`${b.server.baseUrl}/c/${datasetId}`);
  await page().locator('#upload-files').setInputFiles(path.join(os.tmpdir(), 'mlib-diskbanner-photo.jpg'));
  await page().locator('.upload-row[data-state="ready"]').waitFor({ timeout: 30_000 });
});

test('nothing left the server, no dialog, no CSP violation, no page error', () => {
  if (skip) return;
  assertCleanPage(b);
});

test.run();
