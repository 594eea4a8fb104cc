/**
 * The duplicates review and search by example in Chromium against the real server (stand-in models): a scan
 * started from the page groups a real photo with its resized and recompressed copies, "keep" trashes the
 * rest; an image dropped on the search box finds its near duplicate first; "More like this" in the viewer.
 */
import * as assert from 'uvu/assert';
import { browserSuite, screenshot, seriousA11yViolations } from './browser.js';
import {
  photo,
  PHOTO_A,
  PHOTO_B,
  PHOTO_C,
  recompressed,
  resized,
  uploadReady,
} from '../features/duplicates/fixtures.js';

// Runs in the page (page.evaluateHandle); the test program has no DOM types.
declare const DataTransfer: any;

const a = photo(PHOTO_A);
const b = photo(PHOTO_B);
const c = photo(PHOTO_C);

const { exe, t } = browserSuite<{ ds: string; ids: Record<string, string> }>('web duplicates', {
  setup: async (ctx) => {
    if (!a || !b || !c) return;
    const server = ctx.app.server;
    ctx.ds = await server.collection('Holiday');
    ctx.ids = {
      a: await uploadReady(server, ctx.ds, 'a.jpg', a),
      aSmall: await uploadReady(server, ctx.ds, 'a-small.jpg', await resized(a)),
      aSquashed: await uploadReady(server, ctx.ds, 'a-squashed.jpg', await recompressed(a)),
      b: await uploadReady(server, ctx.ds, 'b.jpg', b),
      c: await uploadReady(server, ctx.ds, 'c.jpg', c),
    };
  },
});

t('duplicates review: scan from the page, keep the suggestion, the rest go to the trash', async (ctx) => {
  if (!exe || !ctx.ids) return;
  const { page, server } = ctx.app;
  await page.goto(`${server.baseUrl}/c/${ctx.ds}`);
  await page.getByRole('link', { name: 'Duplicates' }).click();
  await page.waitForURL(/\/duplicates$/);
  await page.waitForSelector('.empty-state');
  assert.match((await page.locator('.empty-state').textContent()) ?? '', /Scan the collection/);
  await page.getByRole('button', { name: 'Scan for duplicates' }).click();
  const group = page.getByRole('region', { name: /Group 1: 3 near duplicates/ });
  await group.waitFor({ timeout: 20_000 });
  assert.is(await page.locator('.dup-group').count(), 1, 'the other photos are not in a group');
  const chosen = group.locator('.dup-item.chosen');
  assert.match((await chosen.textContent()) ?? '', /a\.jpg/, 'the full-size original is suggested');
  assert.match((await chosen.textContent()) ?? '', /Suggested to keep/);
  assert.match((await group.textContent()) ?? '', /Resolution/);
  await screenshot(page, 'duplicates');
  assert.equal(await seriousA11yViolations(page), []);
  await group.getByRole('button', { name: /Keep selected, move 2 to trash/ }).click();
  await page.waitForSelector('.notice:has-text("moved 2 to the trash")');
  await page.waitForSelector('.dup-group', { state: 'detached' });
  for (const id of [ctx.ids.aSmall, ctx.ids.aSquashed])
    assert.is((await server.request('GET', `/api/media/${id}`)).status, 404, 'trashed');
  assert.is((await server.request('GET', `/api/media/${ctx.ids.a}`)).status, 200, 'kept');
  await page.reload();
  await page.waitForSelector('.empty-state:has-text("No duplicates to review")');
});

t('search by example: an image dropped on the search box finds its near duplicate first', async (ctx) => {
  if (!exe || !ctx.ids) return;
  const { page, server } = ctx.app;
  await page.goto(`${server.baseUrl}/c/${ctx.ds}`);
  await page.waitForSelector('form.search-form');
  const copy = (await recompressed(await resized(c!))).toString('base64');
  const dataTransfer = await page.evaluateHandle((b64: string) => {
    const bytes = Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], 'dropped.jpg', { type: 'image/jpeg' }));
    return dt;
  }, copy);
  await page.dispatchEvent('form.search-form', 'drop', { dataTransfer });
  await page.waitForURL(/\/search\?by=image/);
  await page.waitForSelector('.result-tile, .error, .empty-state');
  await page.waitForSelector('.result-tile');
  const first = await page.locator('.result-tile a').first().getAttribute('data-media-id');
  assert.is(first, ctx.ids.c, 'the photo the dropped copy was made from comes first');
  assert.ok(await page.getByRole('img', { name: 'Example: dropped.jpg' }).isVisible());
  assert.match((await page.locator('h1').textContent()) ?? '', /Like this image/);
  await screenshot(page, 'search-by-image');
  assert.equal(await seriousA11yViolations(page), []);
  // A filter applies to the same example.
  await page.getByLabel('Type').selectOption('video');
  await page.waitForSelector('.empty-state');
  const before = await server.request('GET', `/api/dataset/${ctx.ds}/media?recursive=true&limit=1`);
  assert.is(before.body.pagination.total, 3, 'the dropped image was not stored');
});

t('search by example: choosing a file; and "More like this" from the viewer', async (ctx) => {
  if (!exe || !ctx.ids) return;
  const { page, server } = ctx.app;
  await page.goto(`${server.baseUrl}/c/${ctx.ds}`);
  await page.getByLabel('Search by image').setInputFiles({
    name: 'b-copy.jpg',
    mimeType: 'image/jpeg',
    buffer: await resized(b!),
  });
  await page.waitForURL(/\/search\?by=image/);
  await page.waitForSelector('.result-tile');
  assert.is(await page.locator('.result-tile a').first().getAttribute('data-media-id'), ctx.ids.b);

  await page.goto(`${server.baseUrl}/m/${ctx.ids.c}`);
  await page.getByRole('link', { name: 'More like this' }).click();
  await page.waitForURL(/\/search\?like=/);
  await page.waitForSelector('.result-tile');
  assert.is(await page.locator('.result-tile a').first().getAttribute('data-media-id'), ctx.ids.c);
  assert.match((await page.locator('h1').textContent()) ?? '', /More like this/);
});

t.run();
