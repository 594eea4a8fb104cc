/**
 * The upload panel in Chromium against the real server (MODEL_PROFILE=test): a folder keeps its structure
 * and every photo becomes ready live; a video too; a file that is not an image and one over the size limit
 * fail with the server's reason; Retry sends a failed file again; a drop uploads; a reload says what was
 * lost; names are text only; axe, no foreign requests, no CSP violation.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  assertCleanPage,
  chromiumPath,
  screenshot,
  seriousA11yViolations,
  startWatchedApp,
  type WatchedApp,
} from './browser.js';
import { FIXTURES } from './pageWatch.js';
import { bottomRight, coveredByUploads } from './uploadCover.js';
import { makeImage } from '../helpers/testApp.js';

const exe = chromiumPath('upload');
const XSS = '<img src=x onerror=alert(1)>';
const MAX_UPLOAD_BYTES = 1024 * 1024;
let b: WatchedApp;
let datasetId: string;
let dir: string;

/** A photo: a fixture when the shared folder is there, else a generated JPEG. */
async function photo(to: string, fixture: string): Promise<void> {
  const from = path.join(FIXTURES, 'images', fixture);
  if (existsSync(from)) copyFileSync(from, to);
  else writeFileSync(to, await makeImage({ width: 320, height: 240 }));
}

const row = (name: string) => b.page.locator('.upload-row', { has: b.page.locator('.upload-name', { hasText: name }) });

async function waitForState(name: string, state: string, timeout = 30_000): Promise<void> {
  await row(name)
    .and(b.page.locator(`[data-state="${state}"]`))
    .waitFor({ timeout });
}

test.before(async () => {
  if (!exe) return;
  dir = mkdtempSync(path.join(os.tmpdir(), 'mlib-upload-'));
  mkdirSync(path.join(dir, 'trip', 'day2'), { recursive: true });
  await photo(path.join(dir, 'trip', 'bear.jpg'), 'coco_000000000285.jpg');
  await photo(path.join(dir, 'trip', 'skier.jpg'), 'coco_000000000785.jpg');
  await photo(path.join(dir, 'trip', 'day2', 'zebras.jpg'), 'coco_000000001818.jpg');
  await photo(path.join(dir, `${XSS}.jpg`), 'coco_000000002149.jpg');
  await photo(path.join(dir, 'retry-me.jpg'), 'coco_000000003501.jpg');
  writeFileSync(path.join(dir, 'notes.jpg'), 'this is a text file, not a photo\n');
  writeFileSync(path.join(dir, 'huge.jpg'), Buffer.concat([await makeImage(), Buffer.alloc(MAX_UPLOAD_BYTES + 1)]));
  b = await startWatchedApp(exe, { env: { MAX_UPLOAD_BYTES: String(MAX_UPLOAD_BYTES) } });
  datasetId = await b.server.collection('Holidays');
  await b.page.goto(`${b.server.baseUrl}/c/${datasetId}`);
  await b.page.getByRole('region', { name: 'Uploads' }).waitFor({ state: 'attached' });
});
test.after(async () => b?.close());

test('idle, the panel is folded: it covers nothing; its Uploads button shows on focus and opens it', async () => {
  if (!exe) return;
  const page = b.page;
  const panel = page.getByRole('region', { name: 'Uploads' });
  assert.match((await panel.textContent()) ?? '', /No uploads yet/, 'the state is there for screen readers');
  assert.is(await page.locator('#upload-body').isVisible(), false, 'no empty box over the page');
  assert.equal(await coveredByUploads(page, bottomRight(page)), [], 'nothing in the bottom-right corner is covered');
  const toggle = page.getByRole('button', { name: 'Uploads', exact: true });
  assert.ok((await toggle.boundingBox())!.width <= 1, 'out of sight until focused');
  // The last control of the page: Shift+Tab from the page's start reaches it.
  await page.evaluate(() => (globalThis as any).document.activeElement?.blur());
  await page.keyboard.press('Shift+Tab');
  assert.ok(await toggle.evaluate((e) => e === (globalThis as any).document.activeElement), 'keyboard reachable');
  const shown = (await toggle.boundingBox())!;
  const { width, height } = page.viewportSize()!;
  assert.ok(shown.width > 40 && shown.x + shown.width <= width && shown.y + shown.height <= height, 'shown');
  assert.is(await toggle.getAttribute('aria-expanded'), 'false');
  await screenshot(page, 'upload-idle-focused');
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Add files' }).waitFor();
  assert.ok(await page.getByRole('button', { name: 'Add folder' }).isVisible());
  assert.equal(await seriousA11yViolations(page), []);
  await screenshot(page, 'upload-idle-opened');
  await page.getByRole('button', { name: 'Hide' }).click();
  assert.is(await page.locator('#upload-body').isVisible(), false, 'folded again');
  await page.evaluate(() => (globalThis as any).document.activeElement?.blur());
  assert.equal(await coveredByUploads(page, bottomRight(page)), []);
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  assert.ok((await chooser).isMultiple(), 'the Upload button still opens a multi-file picker');
});

test('a folder upload keeps its structure and every photo becomes ready live', async () => {
  if (!exe) return;
  await b.page.locator('#upload-folder').setInputFiles(path.join(dir, 'trip'));
  for (const name of ['trip/bear.jpg', 'trip/skier.jpg', 'trip/day2/zebras.jpg']) await waitForState(name, 'ready');
  const top = await b.server.request('GET', `/api/dataset/${datasetId}/media?type=folder`);
  assert.equal(
    top.body.media.map((m: any) => m.name),
    ['trip'],
  );
  const all = await b.server.request('GET', `/api/dataset/${datasetId}/media?recursive=true&limit=50&type=all`);
  const byName = new Map<string, any>(all.body.media.map((m: any) => [m.name, m]));
  const trip = byName.get('trip');
  const day2 = byName.get('day2');
  assert.ok(day2 && day2.path.startsWith(trip.path + '.'), 'day2 inside trip');
  assert.ok(byName.get('zebras.jpg').path.startsWith(day2.path + '.'), 'zebras inside day2');
  assert.ok(byName.get('bear.jpg').path.startsWith(trip.path + '.'), 'bear inside trip');
  // Uploading the same folder again reuses its folders instead of making a second "trip".
  await b.page.locator('#upload-folder').setInputFiles(path.join(dir, 'trip'));
  await b.page.locator('.upload-row[data-state="ready"]').nth(5).waitFor({ timeout: 30_000 });
  const again = await b.server.request('GET', `/api/dataset/${datasetId}/media?type=folder`);
  assert.is(again.body.media.length, 1, 'one trip folder');
});

test('a video and an odd name upload; a text file and an oversized one fail with the reason', async () => {
  if (!exe) return;
  const video = path.join(FIXTURES, 'videos', 'asl_eat.mkv');
  const files = [path.join(dir, `${XSS}.jpg`), path.join(dir, 'notes.jpg'), path.join(dir, 'huge.jpg')];
  if (existsSync(video)) files.push(video);
  await b.page.locator('#upload-files').setInputFiles(files);
  await waitForState(`${XSS}.jpg`, 'ready');
  await waitForState('notes.jpg', 'failed');
  await waitForState('huge.jpg', 'failed');
  assert.match(await row('notes.jpg').locator('.upload-reason').innerText(), /unsupported file type/);
  assert.match(await row('huge.jpg').locator('.upload-reason').innerText(), /large|size|bytes/i);
  if (existsSync(video)) await waitForState('asl_eat.mkv', 'ready', 60_000);
  assert.is(await b.page.locator('.upload-name', { hasText: XSS }).count(), 1, 'the name shows literally');
  assert.is(await b.page.locator('img[src="x"]').count(), 0, 'no element was injected');
});

test('Retry sends a failed upload again', async () => {
  if (!exe) return;
  let refused = 0;
  await b.page.route('**/api/upload/multipart', async (route) => {
    if (refused++ > 0) return route.continue();
    await route.fulfill({ status: 503, json: { error: 'unavailable', message: 'disk full (test)' } });
  });
  await b.page.locator('#upload-files').setInputFiles(path.join(dir, 'retry-me.jpg'));
  await waitForState('retry-me.jpg', 'failed');
  assert.match(await row('retry-me.jpg').innerText(), /disk full \(test\)/);
  await row('retry-me.jpg').getByRole('button', { name: 'Retry retry-me.jpg' }).click();
  await waitForState('retry-me.jpg', 'ready');
  await b.page.unroute('**/api/upload/multipart');
});

test('files dropped on the page upload into the collection', async () => {
  if (!exe) return;
  const bytes = [...(await makeImage({ color: { r: 10, g: 200, b: 40 } }))];
  await b.page.evaluate((data) => {
    // Runs in the page: its window is this function's global.
    const w = globalThis as any;
    const transfer = new w.DataTransfer();
    transfer.items.add(new File([new Uint8Array(data)], 'dropped.jpg', { type: 'image/jpeg' }));
    for (const type of ['dragenter', 'dragover', 'drop'])
      w.document.body.dispatchEvent(new w.DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, bytes);
  await waitForState('dropped.jpg', 'ready');
});

test('an item turns ready from the event stream alone (polling blocked)', async () => {
  if (!exe) return;
  await b.page.goto(`${b.server.baseUrl}/c/${datasetId}`);
  await b.page.route('**/api/media/*', (route) => route.abort());
  await b.page.route('**/api/events', async (route) => {
    // The browse screen opens the stream as the page loads, before the file is chosen: answer once it exists.
    let media: any;
    for (let i = 0; i < 200 && !media; i++) {
      const all = await b.server.request('GET', `/api/dataset/${datasetId}/media?recursive=true&limit=100&type=all`);
      media = all.body.media.find((m: any) => m.name === 'live.jpg');
      if (!media) await new Promise((r) => setTimeout(r, 100));
    }
    const event = { datasetId, mediaId: media?.id, status: 'ready', path: media?.path, at: new Date().toISOString() };
    await route.fulfill({
      status: 200,
      headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
      body: `retry: 60000\nid: 1\nevent: media.status\ndata: ${JSON.stringify(event)}\n\n`,
    });
  });
  await b.page.locator('#upload-files').setInputFiles({
    name: 'live.jpg',
    mimeType: 'image/jpeg',
    buffer: await makeImage({ color: { r: 0, g: 0, b: 255 } }),
  });
  await waitForState('live.jpg', 'ready');
  await b.page.unrouteAll();
});

test('the panel passes axe, shows progress accessibly, and nothing leaves the server', async () => {
  if (!exe) return;
  assert.equal(await seriousA11yViolations(b.page), []);
  const bars = b.page.getByRole('progressbar', { name: 'Overall upload progress' });
  assert.is(await bars.count(), 1);
  await b.page.getByRole('button', { name: 'Hide' }).click();
  assert.is(await b.page.locator('#upload-body').isVisible(), false, 'collapsed');
  await b.page.getByRole('button', { name: 'Show' }).click();
  await screenshot(b.page, 'upload');
  assertCleanPage(b);
});

test('a reload mid-upload says which files must be added again; acknowledged ones stay', async () => {
  if (!exe) return;
  await b.page.route('**/api/upload/multipart', () => undefined); // Held: never answered before the reload.
  await b.page.locator('#upload-files').setInputFiles(path.join(dir, 'trip', 'bear.jpg'));
  await row('bear.jpg').and(b.page.locator('[data-state="uploading"]')).last().waitFor();
  await b.page.unroute('**/api/upload/multipart');
  await b.page.reload();
  await b.page.getByText('1 file had not finished uploading').waitFor();
  assert.equal(await seriousA11yViolations(b.page), []);
});

test.run();
