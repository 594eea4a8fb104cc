/**
 * Selection and bulk actions in Chromium against the real server: a 500-item range by Shift-click tagged at
 * once, a tag on some of the selection removed from all, "select all matching" then a move, Undo of a bulk
 * tag after a reload, and the accessibility of the bar and its dialogs.
 */
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { browserSuite, screenshot, seriousA11yViolations, type BrowserCtx } from './browser.js';
import { seedItems } from './seed.js';

interface Seeded {
  page: Page;
  ds: string;
  archive: { id: string; path: string };
}
type Ctx = BrowserCtx<Seeded>;

async function seed(ctx: Ctx): Promise<void> {
  ctx.page = ctx.app.page;
  const server = ctx.app.server;
  ctx.ds = await server.collection('Bulk');
  ctx.archive = (
    await server.request('POST', '/api/folder', { body: { datasetId: ctx.ds, name: 'Archive' } })
  ).body.folder;
  await seedItems(server, { datasetId: ctx.ds, count: 600 });
}
const { exe, t } = browserSuite<Seeded>('web: bulk selection', { setup: seed });

/** The server's count of items listed with these browse parameters. */
const total = async (ctx: Ctx, query: string) =>
  (await ctx.app.server.request('GET', `/api/dataset/${ctx.ds}/media?limit=1&${query}`)).body.pagination
    .total as number;
const tile = (i: number) => `a.tile[data-index="${i}"]`;

/** Scrolls the grid until tile `i` is loaded and shown. */
async function reveal(page: Page, i: number): Promise<void> {
  for (let n = 0; n < 200 && !(await page.$(tile(i))); n++) {
    await page.$eval('.grid-scroller', (el) => (el.scrollTop += 300));
    await page.waitForTimeout(40);
  }
  await page.waitForSelector(tile(i));
}

t('Shift-click selects a 500-item range; a tag added in the dialog lands on all 500', async (ctx) => {
  if (!exe) return;
  const { page } = ctx;
  await page.goto(`${ctx.app.server.baseUrl}/c/${ctx.ds}`);
  await page.waitForSelector(tile(0));
  await page.click(tile(0), { modifiers: ['Control'] });
  await page.waitForSelector('text=1 selected');
  await reveal(page, 499);
  await page.click(tile(499), { modifiers: ['Shift'] });
  await page.waitForSelector('text=500 selected');
  assert.is((await page.$$eval('[aria-selected="true"]', (els) => els.length)) > 0, true);
  await page.click('button:has-text("Tags…")');
  await page.fill('.bulk-add input', 'trip');
  assert.equal(await seriousA11yViolations(page), []);
  await page.click('.bulk-add button[type="submit"]');
  await page.waitForSelector('text=Added “trip” to 500 items', { timeout: 15_000 });
  await screenshot(page, 'bulk-tag-500');
  await page.click('button:has-text("Done")');
  assert.is(await total(ctx, 'tags=trip'), 500);
});

t('Undo of a bulk tag, after a reload, takes the tag off exactly those items', async (ctx) => {
  if (!exe) return;
  const { page } = ctx;
  await page.reload();
  await page.waitForSelector('.undo-toast button:has-text("Undo")');
  assert.equal(await seriousA11yViolations(page), []);
  await page.click('.undo-toast button:has-text("Undo")');
  await page.waitForSelector('text=Undone: 500 items back as they were.');
  assert.is(await total(ctx, 'tags=trip'), 0);
  const again = await ctx.app.server.request('GET', '/api/media/bulk/last');
  assert.is(again.body.action.undoable, false);
});

t('a tag on some of the selection shows as partial and is removed from all of them', async (ctx) => {
  if (!exe) return;
  const { page } = ctx;
  await page.goto(`${ctx.app.server.baseUrl}/c/${ctx.ds}`);
  await page.waitForSelector(tile(4));
  // Tile 0 is the Archive folder; items from tile 1 on.
  const ids: string[] = [];
  for (let i = 1; i <= 4; i++)
    ids.push(await page.$eval(tile(i), (a) => (a as unknown as { pathname: string }).pathname.split('/').pop()!));
  // Tiles 1 and 2 are red, 4 too (it stays outside the selection); tile 3 is not.
  const red = await ctx.app.server.request('POST', '/api/media/bulk', {
    body: { ids: [ids[0], ids[1], ids[3]], operation: { type: 'addTags', tags: [{ label: 'colour', value: 'red' }] } },
  });
  assert.is(red.status, 200);
  await page.click(tile(1), { modifiers: ['Control'] });
  await page.click(tile(3), { modifiers: ['Shift'] });
  await page.waitForSelector('text=3 selected');
  await page.click('button:has-text("Tags…")');
  const row = page.locator('.bulk-tags li', { hasText: 'colour: red' });
  await row.waitFor();
  const text = await row.innerText();
  assert.match(text, /2 of 3/, text);
  assert.is(
    await row.locator('input').evaluate((el) => (el as unknown as { indeterminate: boolean }).indeterminate),
    true,
  );
  await row.locator('button:has-text("Remove")').click();
  await page.waitForSelector('text=Removed “red” from 2 items');
  await page.click('button:has-text("Done")');
  assert.is(await total(ctx, 'tags=red'), 1, 'the item outside the selection keeps it');
});

t('"Select all matching" then Move sends the query: every matching item goes to the folder', async (ctx) => {
  if (!exe) return;
  const { page } = ctx;
  await page.goto(`${ctx.app.server.baseUrl}/c/${ctx.ds}?type=video`);
  await page.waitForSelector(tile(0));
  await page.focus(tile(0));
  await page.keyboard.press('Space');
  await page.click('button:has-text("Select all 60 matching")');
  await page.waitForSelector('text=60 selected');
  await page.keyboard.press('Escape');
  await page.waitForSelector('.selection-bar', { state: 'detached' });
  await page.focus(tile(0));
  await page.keyboard.press('Control+a');
  await page.waitForSelector('text=60 selected');
  await page.click('button:has-text("Move…")');
  await page.selectOption('.bulk-dialog select', ctx.archive.path);
  assert.equal(await seriousA11yViolations(page), []);
  await page.click('.bulk-dialog button:has-text("Move")');
  await page.waitForSelector('text=Moved 60 items', { timeout: 15_000 });
  assert.is(await total(ctx, `path=${ctx.archive.path}`), 60);
  assert.is(await total(ctx, 'type=video'), 0, 'none left at the top level');
});

t.run();
