/**
 * Undo beyond bulk tags (issue #27) and drag-select, in Chromium against the real server: the viewer's heart and
 * Move to trash offer Undo (the trash's on the folder it goes back to), and a rubber band held near the grid's
 * bottom edge scrolls the virtualised grid, selecting the tiles that scroll in and keeping those that scroll out.
 */
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { browserSuite, screenshot, seriousA11yViolations, type BrowserCtx } from './browser.js';
import { seedItems } from './seed.js';
import { seedShelf, tileNames, viewFromAlbums, type Shelf } from './shelf.js';

type Seeded = Shelf & { many: string };
type Ctx = BrowserCtx<Seeded>;

async function seed(ctx: Ctx): Promise<void> {
  await seedShelf(ctx);
  ctx.many = await ctx.app.server.collection('Many');
  await seedItems(ctx.app.server, { datasetId: ctx.many, count: 400 });
}
const { exe, t } = browserSuite<Seeded>('web: undo of single-item actions, rubber-band autoscroll', { setup: seed });

const tile = (i: number) => `a.tile[data-index="${i}"]`;
/** Whether tile i's grid cell says it is selected (waits for the tile to be rendered and loaded). */
const isSelected = async (page: Page, i: number) =>
  (await page.locator(`.tile-cell:has(${tile(i)})`).getAttribute('aria-selected')) === 'true';
const selectedCount = async (page: Page) =>
  Number(((await page.locator('text=/^[\\d,]+ selected$/').first().textContent()) ?? '0').replace(/\D/g, ''));

t("the viewer's heart offers Undo, which takes the favourite back", async (ctx) => {
  if (!exe) return;
  const { page, cat } = ctx;
  await viewFromAlbums(ctx);
  await page.getByRole('button', { name: 'Favourite', exact: true }).click();
  const toast = page.locator('.undo-toast');
  await toast.waitFor();
  assert.match((await toast.textContent()) ?? '', /Added to favourites 1 item/);
  assert.is((await ctx.app.server.request('GET', `/api/media/${cat}`)).body.media.favorite, true);
  assert.equal(await seriousA11yViolations(page), []);
  await screenshot(page, 'viewer-undo-favourite');
  await toast.getByRole('button', { name: 'Undo' }).click();
  await page.waitForSelector('.favorite-toggle[aria-pressed="false"]');
  await page.waitForSelector('text=/Undone: 1 item back/');
  assert.is((await ctx.app.server.request('GET', `/api/media/${cat}`)).body.media.favorite, false);
});

t('Move to trash in the viewer: the folder offers Undo, which brings the item back', async (ctx) => {
  if (!exe) return;
  const { page, ds } = ctx;
  await viewFromAlbums(ctx);
  await page.getByRole('button', { name: 'Move to trash' }).click();
  await page.waitForFunction(() => (globalThis as any).location.pathname.startsWith('/c/'));
  const toast = page.locator('.undo-toast');
  await toast.waitFor();
  assert.match((await toast.textContent()) ?? '', /Moved to the trash 1 item/);
  await page.waitForSelector('.tile-name:text("owl.png")');
  assert.equal(await tileNames(page), ['owl.png']);
  await toast.getByRole('button', { name: 'Undo' }).click();
  await page.waitForSelector('.tile-name:text("cat.png")');
  assert.equal(await tileNames(page), ['cat.png', 'owl.png']);
  const trash = await ctx.app.server.request('GET', `/api/dataset/${ds}/trash`);
  assert.is(trash.body.pagination.total, 0);
});

t('a rubber band held at the bottom edge scrolls the grid; tiles scrolled past stay selected', async (ctx) => {
  if (!exe) return;
  const { page } = ctx;
  await page.goto(`${ctx.app.server.baseUrl}/c/${ctx.many}`);
  await page.waitForSelector(tile(0));
  const grid = (await page.locator('.grid-scroller').boundingBox())!;
  const first = (await page.locator(tile(0)).boundingBox())!;
  const second = (await page.locator(tile(1)).boundingBox())!;
  const rendered = await page.locator('a.tile[data-index]').count();
  // From the middle of tile 0 to the middle of tile 1 (two columns), then down to the bottom edge and hold.
  await page.mouse.move(first.x + first.width / 2, first.y + first.height / 2);
  await page.mouse.down();
  await page.mouse.move(second.x + second.width / 2, first.y + first.height / 2 + 20, { steps: 4 });
  await page.mouse.move(second.x + second.width / 2, grid.y + grid.height - 4, { steps: 8 });
  await page.waitForFunction(() => (globalThis as any).document.querySelector('.grid-scroller').scrollTop > 2500);
  await page.mouse.up();
  const scrolled = await page.$eval('.grid-scroller', (el) => el.scrollTop);
  const count = await selectedCount(page);
  assert.ok(count > rendered, `${count} selected: more than the ${rendered} tiles rendered at the start`);
  assert.is(count % 2, 0, 'two columns of whole rows');
  const columns = await page.$eval('.grid-row', (el) => el.querySelectorAll('a.tile').length);
  const lastRow = count / 2 - 1;
  // The last row the band reached is in view and selected in its two columns, not in the third.
  assert.ok(await isSelected(page, lastRow * columns));
  assert.ok(await isSelected(page, lastRow * columns + 1));
  assert.not.ok(await isSelected(page, lastRow * columns + 2));
  assert.ok(scrolled >= (lastRow - 6) * 232, `scrolled ${scrolled}px to row ${lastRow}`);
  await screenshot(page, 'rubber-band-autoscroll');
  // Scrolled back, the first rows (out of the DOM meanwhile) are still selected.
  await page.$eval('.grid-scroller', (el) => (el.scrollTop = 0));
  await page.waitForSelector(`.tile-cell[aria-selected="true"]:has(${tile(0)})`);
  assert.ok(await isSelected(page, columns));
  assert.not.ok(await isSelected(page, 2));
  assert.is(await selectedCount(page), count);
});

t.run();
