/**
 * The web app on a phone (390 × 844, touch, mobile): sign in, browse with the folder drawer and a grid of two
 * or more columns, the viewer's touch gestures (swipe, double tap and pinch zoom, pull down to close), search,
 * and the upload panel; nothing scrolls sideways, the main controls are 44 px touch targets, axe passes.
 */
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { browserSuite, OWNER_EMAIL, OWNER_PASSWORD, screenshot, seriousA11yViolations, setupToken } from './browser.js';
import {
  centreOf,
  horizontalOverflow,
  phoneOptions,
  pinch,
  seedPhoneLibrary,
  smallTargets,
  touchDrag,
  touchHold,
  type PhoneLibrary,
} from './phone.js';

declare const document: any, window: any, DOMMatrix: any, getComputedStyle: any;

const { exe, t } = browserSuite<{ lib: PhoneLibrary; page: Page; base: string }>('web: phone', {
  ...phoneOptions(),
  signIn: false,
  setup: async (ctx) => {
    const server = ctx.app.server;
    const res = await fetch(server.baseUrl + '/api/auth/setup', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: setupToken(server), email: OWNER_EMAIL, password: OWNER_PASSWORD, name: 'Owner' }),
    });
    if (res.status !== 200) throw new Error(`setup: ${res.status}`);
    ctx.lib = await seedPhoneLibrary(server);
    ctx.page = ctx.app.page;
    ctx.base = server.baseUrl;
  },
});

const noOverflow = async (page: Page, where: string) => {
  const { overflow, culprit } = await horizontalOverflow(page);
  assert.is(overflow, 0, `${where}: nothing wider than the screen (${culprit})`);
};
const waitForPath = (page: Page, re: RegExp) =>
  page.waitForFunction((src) => new RegExp(src).test(window.location.pathname + window.location.search), re.source);

t('signs in on a phone; the header folds its account links into a menu', async ({ page, base }) => {
  if (!exe) return;
  await page.goto(base + '/');
  await page.waitForSelector('input[name="email"]');
  await noOverflow(page, 'sign-in');
  assert.equal(await seriousA11yViolations(page), []);
  await screenshot(page, 'phone-sign-in');
  await page.fill('input[name="email"]', OWNER_EMAIL);
  await page.fill('input[name="password"]', OWNER_PASSWORD);
  await page.tap('button[type="submit"]');
  await page.waitForSelector('.collection-card');
  await noOverflow(page, 'collections');
  assert.not.ok(await page.isVisible('.header-actions'), 'account links folded away');
  await page.tap('.header-menu-button');
  await page.waitForSelector('.header-actions a[href="/account"]', { state: 'visible' });
  assert.is(await page.getAttribute('.header-menu-button', 'aria-expanded'), 'true');
  assert.equal(await smallTargets(page, '.app-header button, .app-header input, .header-actions a'), []);
  await screenshot(page, 'phone-menu');
  await page.keyboard.press('Escape');
  await page.waitForSelector('.header-actions', { state: 'hidden' });
  assert.ok(await page.evaluate(() => document.activeElement?.classList.contains('header-menu-button')));
});

t('browse: the folder tree is a drawer (button, Esc, backdrop, focus); the grid has two columns', async (ctx) => {
  if (!exe) return;
  const { page, base, lib } = ctx;
  await page.goto(`${base}/c/${lib.datasetId}`);
  await page.waitForSelector('.tile-name:text("red.jpg")');
  assert.not.ok(await page.isVisible('[role="tree"]'), 'no sidebar squeezing the grid');
  const columns = Number(await page.getAttribute('[role="grid"]', 'aria-colcount'));
  assert.ok(columns >= 2, `${columns} columns`);
  const tiles = await page.$$eval('.tile', (els) => els.map((e: any) => e.getBoundingClientRect().width));
  assert.ok(tiles[0] * 2 < 390, `tiles ${tiles[0]} px wide`);
  await noOverflow(page, 'browse');
  assert.equal(await smallTargets(page, '.browse-phone-bar button, .browse-actions button'), []);
  assert.equal(await seriousA11yViolations(page), []);
  await screenshot(page, 'phone-browse');

  await page.tap('.folders-button');
  await page.waitForSelector('[role="tree"]', { state: 'visible' });
  await page.waitForFunction(() => document.activeElement?.getAttribute('role') === 'treeitem');
  assert.is(await page.getAttribute('.folders-button', 'aria-expanded'), 'true');
  assert.ok(await page.evaluate(() => document.querySelector('.browse-main').inert), 'the page behind is inert');
  assert.equal(await smallTargets(page, '[role="treeitem"], .drawer-head button'), []);
  assert.equal(await seriousA11yViolations(page), []);
  await screenshot(page, 'phone-drawer');
  await page.keyboard.press('Escape');
  await page.waitForSelector('[role="tree"]', { state: 'hidden' });
  assert.ok(await page.evaluate(() => document.activeElement?.classList.contains('folders-button')), 'focus back');

  await page.tap('.folders-button');
  await page.waitForSelector('.drawer-backdrop');
  await page.touchscreen.tap(380, 600); // the backdrop, right of the drawer
  await page.waitForSelector('[role="tree"]', { state: 'hidden' });

  await page.tap('.folders-button');
  await page.tap('[role="treeitem"]:has-text("Trips")');
  await page.waitForSelector('.tile-name:text("trip.jpg")');
  await page.waitForSelector('[role="tree"]', { state: 'hidden' });
  assert.equal(await smallTargets(page, '.breadcrumbs a'), []);

  await page.tap('.filters-button');
  await page.waitForSelector('.browse-filters', { state: 'visible' });
  await noOverflow(page, 'filters');
  await page.tap('.filters-button');
  await page.waitForSelector('.browse-filters', { state: 'hidden' });
});

t('viewer: full screen; swipe to the next and back, double tap and pinch zoom, pull down closes', async (ctx) => {
  if (!exe) return;
  const { page, base, lib } = ctx;
  await page.goto(`${base}/c/${lib.datasetId}`);
  await page.tap('.tile:has-text("blue.jpg")');
  await waitForPath(page, new RegExp(`/m/${lib.items[0]}\\?from=`));
  await page.waitForFunction(() => document.querySelector('.image-stage img')?.naturalWidth > 0);
  const viewer = await page.locator('.viewer').boundingBox();
  assert.equal([viewer?.x, viewer?.y, viewer?.width], [0, 0, 390], 'the viewer covers the screen');
  assert.not.ok(await page.isVisible('.viewer-side'), 'details start hidden');
  await noOverflow(page, 'viewer');
  assert.equal(await smallTargets(page, '.viewer-bar button, .viewer-back'), []);
  assert.equal(await seriousA11yViolations(page), []);
  await screenshot(page, 'phone-viewer');

  // Neighbours are found in the background: wait for Next before swiping.
  await page.waitForSelector('button[aria-label="Next item"]:not([disabled])');
  const c = await centreOf(page, '.image-stage');
  await touchDrag(page, { x: c.x + 120, y: c.y }, { x: c.x - 120, y: c.y });
  await waitForPath(page, new RegExp(`/m/${lib.items[1]}\\?`));
  await page.waitForSelector('button[aria-label="Previous item"]:not([disabled])');
  await touchDrag(page, { x: c.x - 120, y: c.y }, { x: c.x + 120, y: c.y });
  await waitForPath(page, new RegExp(`/m/${lib.items[0]}\\?`));
  await page.waitForFunction(() => document.querySelector('.image-stage img')?.naturalWidth > 0);

  await page.touchscreen.tap(c.x, c.y);
  await page.touchscreen.tap(c.x, c.y);
  await page.waitForSelector('.image-stage.zoomed');
  assert.match((await page.getAttribute('.image-stage', 'style')) ?? '', /scale\(2\.5\)/);
  await page.touchscreen.tap(c.x, c.y);
  await page.touchscreen.tap(c.x, c.y);
  await page.waitForSelector('.image-stage:not(.zoomed)');
  await pinch(
    page,
    [
      { x: c.x - 20, y: c.y },
      { x: c.x + 20, y: c.y },
    ],
    [
      { x: c.x - 90, y: c.y },
      { x: c.x + 90, y: c.y },
    ],
  );
  await page.waitForSelector('.image-stage.zoomed');
  const scale = await page.$eval('.image-stage', (el: any) => new DOMMatrix(getComputedStyle(el).transform).a);
  assert.ok(scale > 3 && scale <= 5, `pinched to ${scale}`);
  assert.ok(page.url().includes(lib.items[0]), 'a drag while zoomed pans, it does not change item');

  await page.tap('button:has-text("Details")');
  await page.waitForSelector('.viewer-side', { state: 'visible' });
  const sheet = await page.locator('.viewer-side').boundingBox();
  assert.ok(sheet && Math.round(sheet.y + sheet.height) === 844 && sheet.width === 390, 'a bottom sheet');
  await screenshot(page, 'phone-viewer-details');
  await page.tap('button:has-text("Details")');

  await page.goto(`${base}/m/${lib.items[1]}?from=${encodeURIComponent(`/c/${lib.datasetId}`)}`);
  await page.waitForFunction(() => document.querySelector('.image-stage img')?.naturalWidth > 0);
  const d = await centreOf(page, '.image-stage');
  await touchDrag(page, { x: d.x, y: d.y - 40 }, { x: d.x, y: d.y + 160 });
  await waitForPath(page, new RegExp(`^/c/${lib.datasetId}$`));
  await page.waitForSelector('.tile');
});

t('a long press on a tile enters selection mode with it selected; then taps select, they do not open', async (ctx) => {
  if (!exe) return;
  const { page, base, lib } = ctx;
  await page.goto(`${base}/c/${lib.datasetId}`);
  await page.waitForSelector('.tile:has-text("green.jpg")');
  const cell = (name: string) => `.tile-cell:has(.tile:has-text("${name}"))`;
  const at = await centreOf(page, '.tile:has-text("green.jpg")');
  await touchHold(page, at, 800);
  await page.waitForSelector(`${cell('green.jpg')}[aria-selected="true"]`);
  await page.waitForTimeout(300);
  assert.match(new URL(page.url()).pathname, /^\/c\//, 'still browsing: the press did not open the item');
  assert.not.match((await page.textContent('.selection-area')) ?? '', 'Moved', 'no bar button was pressed');
  await page.tap('.tile:has-text("blue.jpg")'); // a tap, now selecting
  await page.waitForSelector(`${cell('blue.jpg')}[aria-selected="true"]`);
  assert.match(new URL(page.url()).pathname, /^\/c\//, 'a tap in selection mode selects rather than opens');
  await page.keyboard.press('Escape');
  await page.waitForSelector(`${cell('green.jpg')}[aria-selected="false"]`);
  await touchHold(page, at, 80); // out of selection mode a tap opens the item again
  await waitForPath(page, new RegExp(`/m/${lib.items[1]}\\?`));
});

t('search from the header on a phone', async ({ page, base, lib }) => {
  if (!exe) return;
  await page.goto(`${base}/c/${lib.datasetId}`);
  await page.fill('input[type="search"]', 'red');
  await page.press('input[type="search"]', 'Enter');
  await waitForPath(page, /\/search\?q=red/);
  await page.waitForSelector('.result-tile');
  assert.not.ok(await page.isVisible('.search-controls'), 'the options fold away');
  await page.tap('button:text-is("Search options")');
  await page.waitForSelector('.search-controls', { state: 'visible' });
  await noOverflow(page, 'search');
  assert.equal(await seriousA11yViolations(page), []);
  await screenshot(page, 'phone-search');
});

t('the upload panel opens from Upload and fits the screen', async ({ page, base, lib }) => {
  if (!exe) return;
  await page.goto(`${base}/c/${lib.datasetId}`);
  await page.waitForSelector('.tile');
  const chooser = page.waitForEvent('filechooser');
  await page.tap('button:text-is("Upload")');
  const png = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
    'base64',
  );
  await (await chooser).setFiles({ name: 'dot.png', mimeType: 'image/png', buffer: png });
  await page.waitForSelector('.upload-row:has-text("dot.png")');
  await noOverflow(page, 'upload panel');
  const panel = await page.locator('.upload-panel').boundingBox();
  assert.ok(panel && panel.x >= 0 && panel.x + panel.width <= 390, JSON.stringify(panel));
  assert.equal(await smallTargets(page, '.upload-panel button'), []);
  assert.equal(await seriousA11yViolations(page), []);
  await screenshot(page, 'phone-upload');
});

t.run();
