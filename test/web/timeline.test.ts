/**
 * The timeline in Chromium against the real server (issue #26): 3,000 items over eight years of capture times
 * grouped under month and day headers; the scrubber jumps to the oldest month by keyboard and by a click and its
 * tiles appear (timed); a tile opens the viewer and Back returns to its month; the empty state; a phone's width.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import type { SqliteStorage } from '../../src/storage/sqlite/index.js';
import { browserSuite, screenshot, seriousA11yViolations, type BrowserCtx } from './browser.js';
import { insertItem, seedItems } from './seed.js';

interface Seeded {
  page: Page;
  ds: string;
  empty: string;
  oldest: string;
}
type Ctx = BrowserCtx<Seeded>;

const COUNT = 3000;

async function seed(ctx: Ctx): Promise<void> {
  ctx.page = ctx.app.page;
  const server = ctx.app.server;
  ctx.ds = await server.collection('Family');
  ctx.empty = await server.collection('Nothing yet');
  await seedItems(server, { datasetId: ctx.ds, count: COUNT });
  const { db } = server.app.services.storage as SqliteStorage;
  // Item i (created i minutes after 2024-01-01) was taken on day ⌊i / 6⌋ × 6 before 2024-01-01 (six a day,
  // an hour apart): 3,000 items over eight years, 2015 … 2024.
  db.prepare(
    `WITH n AS (SELECT id, CAST(round((julianday(created_at) - julianday('2024-01-01')) * 1440) AS INTEGER) AS i
       FROM media WHERE dataset_id = ? AND type <> 'folder')
     UPDATE media SET taken_at = (SELECT strftime('%Y-%m-%dT%H:%M:%fZ', '2024-01-01 20:00',
       printf('-%d hours', (n.i / 6) * 144 + n.i % 6)) FROM n WHERE n.id = media.id)
     WHERE id IN (SELECT id FROM n)`,
  ).run(ctx.ds);
  ctx.oldest = await insertItem(server, { datasetId: ctx.ds, name: 'grandpa-1999.png' });
  db.prepare(`UPDATE media SET taken_at = '1999-07-04T12:00:00.000Z' WHERE id = ?`).run(ctx.oldest);
}
const { exe, t } = browserSuite<Seeded>('web: timeline', { setup: seed, viewport: { width: 1280, height: 800 } });

const slider = (page: Page) => page.getByRole('slider', { name: 'Jump to a month' });

t(
  'months and days under headers; the scrubber jumps by keyboard and by click; tiles come by date range',
  async (ctx) => {
    if (!exe) return;
    const { page, ds } = ctx;
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(`${ctx.app.server.baseUrl}/c/${ds}/timeline`);
    await page.waitForSelector('.tl-tile');
    const first = await page.locator('.tl-month-head').first().textContent();
    assert.match(first ?? '', /January 2024/);
    assert.ok((await page.locator('.tl-day-head').count()) > 1, 'day headers');
    assert.match((await page.locator('.timeline-total').textContent()) ?? '', /3,001 items/);
    assert.equal(await seriousA11yViolations(page), []);
    await screenshot(page, 'timeline');
    mkdirSync('docs/screenshots', { recursive: true });
    copyFileSync(path.join('.screenshots', 'timeline.png'), path.join('docs', 'screenshots', 'timeline.png'));

    // Keyboard: End jumps to the oldest month; its tile appears, fetched by that month's dates.
    const bar = slider(page);
    await bar.focus();
    const started = Date.now();
    await bar.press('End');
    await page.getByRole('img', { name: 'grandpa-1999.png' }).waitFor();
    const jumpMs = Date.now() - started;
    console.log(`  scrubber jump to the oldest month: tile shown after ${jumpMs} ms`);
    assert.is(await bar.getAttribute('aria-valuetext'), 'July 1999');
    assert.ok(
      requests.some(
        (u) => u.includes('/media?') && u.includes('dateFrom=1999-07-01') && u.includes('dateTo=1999-07-31'),
      ),
      'the month was asked for by its date range',
    );
    assert.ok(await page.locator('.tl-month-head:text("July 1999")').isVisible());
    await bar.press('Home');
    await page.waitForFunction(
      () => (globalThis as any).document.querySelector('[role=slider]').getAttribute('aria-valuenow') === '0',
    );
    await bar.press('ArrowDown');
    assert.is(await bar.getAttribute('aria-valuetext'), 'December 2023');
    await bar.press('PageDown');
    assert.is(await bar.getAttribute('aria-valuetext'), 'December 2022', 'a year further');
    await bar.press('PageUp');
    assert.is(await bar.getAttribute('aria-valuetext'), 'December 2023');

    // A click halfway down the scrubber lands in the middle years, and that month's tiles show.
    const box = (await bar.boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    const middle = (await bar.getAttribute('aria-valuetext')) ?? '';
    assert.match(middle, /201[6-9]|202[01]/);
    await page.waitForSelector(`.tl-month:has(.tl-month-head:text("${middle}")) .tl-tile`);
    assert.equal(await seriousA11yViolations(page), []);
  },
);

t('a tile opens the viewer; → steps through its month; Back returns to it', async (ctx) => {
  if (!exe) return;
  const { page, ds } = ctx;
  await page.goto(`${ctx.app.server.baseUrl}/c/${ds}/timeline?month=2017-06`);
  await page.waitForSelector('.tl-month-head:text("June 2017")');
  const tile = page.locator('.tl-month:has(.tl-month-head:text("June 2017")) .tl-tile').first();
  await tile.click();
  await page.waitForURL(/\/m\/[0-9a-f]{32}\?from=/);
  assert.match(decodeURIComponent(page.url()), /from=\/c\/[0-9a-f-]+\/timeline\?month=2017-06/);
  const next = page.getByRole('button', { name: 'Next item' });
  await page.waitForFunction(() => !(globalThis as any).document.querySelector('[aria-label="Next item"]')?.disabled);
  const opened = page.url();
  await next.click();
  await page.waitForFunction((u) => (globalThis as any).location.href !== u, opened);
  assert.match(decodeURIComponent(page.url()), /month=2017-06/, '→ steps through the month');
  await page.goBack();
  await page.goBack();
  await page.waitForSelector('.tl-month-head:text("June 2017")');
  assert.is(await slider(page).getAttribute('aria-valuetext'), 'June 2017');
});

t('the whole library from the header; the empty state; a phone', async (ctx) => {
  if (!exe) return;
  const { page, empty } = ctx;
  await page.goto(`${ctx.app.server.baseUrl}/`);
  await page.getByRole('link', { name: 'Timeline' }).first().click();
  await page.waitForURL(/\/timeline$/);
  await page.waitForSelector('.tl-tile');
  assert.match((await page.locator('.timeline-total').textContent()) ?? '', /3,001 items/);
  await page.goto(`${ctx.app.server.baseUrl}/c/${empty}/timeline`);
  await page.getByRole('heading', { name: 'No photos yet' }).waitFor();
  assert.ok(await page.getByRole('button', { name: 'Upload…' }).isVisible());
  assert.equal(await seriousA11yViolations(page), []);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${ctx.app.server.baseUrl}/c/${ctx.ds}/timeline`);
  await page.waitForSelector('.tl-tile');
  const width = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth);
  assert.ok(width <= 390, `no sideways scrolling (${width} px)`);
  assert.ok(await slider(page).isVisible(), 'the scrubber on a phone');
  await screenshot(page, 'timeline-phone');
  assert.ok(await page.locator('.tl-row:has(.tl-tile:nth-child(3))').count(), 'three or more columns');
  assert.equal(await seriousA11yViolations(page), []);
});

t.run();
