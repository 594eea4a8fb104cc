/**
 * Favourites and the trash in Chromium against the real server (issue #27): the viewer's heart (key f) marks
 * a favourite, its tile shows it and the Favourites filter (in the URL) lists it; Move to trash → the Trash
 * screen (when, who, where) → Restore puts the item back in its folder; Delete forever asks first.
 */
import * as assert from 'uvu/assert';
import { browserSuite, screenshot, seriousA11yViolations, type BrowserCtx } from './browser.js';
import { insertItem } from './seed.js';
import { albumsUrl, seedShelf, tileNames, viewFromAlbums, type Shelf } from './shelf.js';

type Seeded = Shelf & { dog: string };
type Ctx = BrowserCtx<Seeded>;

async function seed(ctx: Ctx): Promise<void> {
  await seedShelf(ctx);
  ctx.dog = await insertItem(ctx.app.server, { datasetId: ctx.ds, name: 'dog.png' });
}
const { exe, t } = browserSuite<Seeded>('web: favourites and trash', { setup: seed });

t('the heart (key f) marks a favourite; the tile shows it; the Favourites filter lists it, in the URL', async (ctx) => {
  if (!exe) return;
  const { page, cat } = ctx;
  await viewFromAlbums(ctx);
  const heart = page.getByRole('button', { name: 'Favourite', exact: true });
  await heart.waitFor();
  assert.is(await heart.getAttribute('aria-pressed'), 'false');
  await page.locator('body').press('f');
  await page.waitForSelector('.favorite-toggle[aria-pressed="true"]');
  const stored = await ctx.app.server.request('GET', `/api/media/${cat}`);
  assert.is(stored.body.media.favorite, true);
  assert.equal(await seriousA11yViolations(page), []);
  await screenshot(page, 'viewer-favourite');

  await page.goto(`${ctx.app.server.baseUrl}${albumsUrl(ctx)}`);
  await page.waitForSelector('.tile-name:text("owl.png")');
  assert.is(await page.locator('.tile:has(.tile-favorite) .tile-name').textContent(), 'cat.png');
  await page.getByLabel('Favourites only').check();
  await page.waitForFunction(() => (globalThis as any).location.search.includes('favorite=true'));
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('.tile').length === 1);
  assert.equal(await tileNames(page), ['cat.png']);
  await page.reload();
  await page.waitForSelector('.tile-name:text("cat.png")');
  assert.ok(await page.getByLabel('Favourites only').isChecked(), 'the filter survives a reload');
  assert.equal(await seriousA11yViolations(page), []);
  await screenshot(page, 'browse-favourites');
});

t('Move to trash → Trash screen → Restore: the item is back in its folder', async (ctx) => {
  if (!exe) return;
  const { page } = ctx;
  const base = ctx.app.server.baseUrl;
  await viewFromAlbums(ctx);
  await page.getByRole('button', { name: 'Move to trash' }).click();
  await page.waitForFunction(() => (globalThis as any).location.pathname.startsWith('/c/'));
  await page.waitForSelector('.tile-name:text("owl.png")');
  assert.equal(await tileNames(page), ['owl.png'], 'cat left its folder');

  await page.getByRole('link', { name: 'Trash' }).click();
  await page.waitForSelector('.trash-entry');
  const entry = page.locator('.trash-entry', { hasText: 'cat.png' });
  assert.match((await entry.textContent()) ?? '', /Deleted .* by .* from Albums/);
  assert.equal(await seriousA11yViolations(page), []);
  await screenshot(page, 'trash');
  await page.getByRole('button', { name: 'Restore cat.png' }).click();
  await page.waitForSelector('.notice:has-text("Restored")');
  await page.waitForSelector('.empty-state:has-text("The trash is empty")');
  await screenshot(page, 'trash-empty');

  await page.goto(`${base}${albumsUrl(ctx)}`);
  await page.waitForSelector('.tile-name:text("cat.png")');
  assert.equal(await tileNames(page), ['cat.png', 'owl.png']);
});

t('Delete forever asks first; Cancel keeps the entry, confirming removes it', async (ctx) => {
  if (!exe) return;
  const { page, ds, dog } = ctx;
  const server = ctx.app.server;
  await server.request('DELETE', `/api/media/${dog}`);
  await page.goto(`${server.baseUrl}/c/${ds}/trash`);
  await page.getByRole('button', { name: 'Delete forever dog.png' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete forever?' });
  await dialog.waitFor();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  assert.is(await page.locator('.trash-entry').count(), 1);
  await page.getByRole('button', { name: 'Delete forever dog.png' }).click();
  await dialog.getByRole('button', { name: 'Delete forever' }).click();
  await page.waitForSelector('.empty-state:has-text("The trash is empty")');
  for (let i = 0; i < 100 && (await server.app.services.storage.media.get(dog)); i++)
    await new Promise((r) => setTimeout(r, 50));
  assert.is(await server.app.services.storage.media.get(dog), null, 'the purge job removed it');
});

t.run();
