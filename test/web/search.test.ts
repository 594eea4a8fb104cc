/** The search screen (issue #15 screen 3) in Chromium against the real server with the stand-in models. */
import * as assert from 'uvu/assert';
import { browserSuite, screenshot, seriousA11yViolations, type BrowserApp } from './browser.js';
import { seedLibrary, XSS_NAME, type Library } from './library.js';

// Functions passed to page.waitForFunction/evaluate run in the page; the test program has no DOM types.
declare const document: any;

const { exe, t } = browserSuite<{ lib: Library }>('web search', {
  setup: async (ctx) => {
    ctx.lib = await seedLibrary(ctx.app.server);
  },
});

const tileIds = (app: BrowserApp) =>
  app.page.$$eval('.result-tile a', (as) => as.map((a) => a.getAttribute('data-media-id')));

t('collection search: red first, its region outlined, the word marked, the score split, a date', async (ctx) => {
  if (!exe) return;
  const { page, server } = ctx.app;
  await page.goto(`${server.baseUrl}/c/${ctx.lib.datasetId}/search?q=red`);
  await page.waitForSelector('.result-tile');
  const ids = await tileIds(ctx.app);
  assert.ok([ctx.lib.red, ctx.lib.red2].includes(ids[0]!), `a red picture first: ${ids}`);
  const first = page.locator('.result-tile').first();
  assert.ok((await first.locator('svg.region-overlay polygon').count()) >= 1, 'the matched region is outlined');
  assert.match((await first.locator('mark').first().textContent()) ?? '', /^red$/i);
  assert.match((await first.locator('.tile-score').textContent()) ?? '', /text \d\.\d\d · visual \d\.\d\d/);
  assert.ok((await first.locator('time').getAttribute('datetime'))?.startsWith('20'));
  await screenshot(page, 'search');
  assert.equal(await seriousA11yViolations(page), []);
});

t('the cut-off slider narrows the results and is kept in the URL', async (ctx) => {
  if (!exe) return;
  const { page, server } = ctx.app;
  await page.goto(`${server.baseUrl}/c/${ctx.lib.datasetId}/search?q=red&minScore=0`);
  await page.waitForSelector('.result-tile');
  const loose = (await tileIds(ctx.app)).length;
  const slider = page.getByRole('slider', { name: /Relevance cut-off/ });
  await slider.fill('0.9');
  await page.waitForURL(/minScore=0\.90/);
  await page.waitForFunction((n) => {
    const shown = document.querySelectorAll('.result-tile').length;
    return shown > 0 && shown < n;
  }, loose);
  assert.match((await page.locator('.cutoff output').textContent()) ?? '', /0\.90/);
  const strict = await tileIds(ctx.app);
  assert.ok(strict.length >= 2 && strict.length < loose, `${strict.length} < ${loose}`);
  assert.ok(strict.includes(ctx.lib.red) && !strict.includes(ctx.lib.blue));
});

t('newest first among the matches', async (ctx) => {
  if (!exe) return;
  const { page, server } = ctx.app;
  await page.goto(`${server.baseUrl}/c/${ctx.lib.datasetId}/search?q=red&minScore=0.9`);
  await page.waitForSelector('.result-tile');
  await page.getByLabel('Newest first among matches').check();
  await page.waitForURL(/sort=newest/);
  await page.waitForSelector('.result-count:has-text("newest first")');
  // red-too.jpg was uploaded last.
  assert.equal((await tileIds(ctx.app)).slice(0, 2), [ctx.lib.red2, ctx.lib.red]);
});

t('organization search, a filter that leaves nothing, and the empty state', async (ctx) => {
  if (!exe) return;
  const { page, server } = ctx.app;
  await page.goto(`${server.baseUrl}/`);
  await page.getByRole('searchbox').fill('red');
  await page.getByRole('searchbox').press('Enter');
  await page.waitForURL(/\/search\?q=red/);
  await page.waitForSelector('.result-tile');
  assert.ok([ctx.lib.red, ctx.lib.red2].includes((await tileIds(ctx.app))[0]!));
  await page.getByLabel('Type').selectOption('video');
  await page.waitForURL(/type=video/);
  await page.waitForSelector('.result-tile, .empty-state');
  const ids = await tileIds(ctx.app);
  assert.ok(
    ids.every((id) => id === ctx.lib.video),
    `only the video: ${ids}`,
  );
  await page.getByLabel('To', { exact: true }).fill('2000-01-01');
  await page.waitForURL(/dateTo=2000-01-01/);
  await page.waitForSelector('.empty-state');
  assert.match((await page.locator('.empty-state').textContent()) ?? '', /No matches above 0\.30 — lower the cut-off/);
  assert.equal(await seriousA11yViolations(page), []);
});

t('a video hit opens the viewer at its second and frame', async (ctx) => {
  if (!exe) return;
  const { page, server } = ctx.app;
  await page.goto(`${server.baseUrl}/search?q=green&type=video&minScore=0.5`);
  await page.waitForSelector('.result-tile a');
  const href = (await page.locator('.result-tile a').first().getAttribute('href')) ?? '';
  const url = new URL(href, server.baseUrl);
  assert.is(url.pathname, `/m/${ctx.lib.video}`);
  assert.ok(Number(url.searchParams.get('t')) >= 1, `green starts at 2 s: t=${url.searchParams.get('t')}`);
  assert.ok(url.searchParams.get('frame'));
  assert.match(url.searchParams.get('from') ?? '', /^\/search\?q=green/);
});

t('a file name holding markup shows literally and runs nothing', async (ctx) => {
  if (!exe) return;
  const { page, server } = ctx.app;
  await page.goto(`${server.baseUrl}/c/${ctx.lib.datasetId}/search?q=blue`);
  await page.waitForSelector(`.tile-name:text-is("${XSS_NAME}")`);
  assert.is(await page.locator('img[src="x"]').count(), 0, 'no element made from the name');
});

t.run();
