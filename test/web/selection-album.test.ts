/**
 * The selection bar's "Add to album…" and "Share…" (issue 28) in Chromium: three of five items picked on the
 * grid go into a new album named in the bar's dialog (the album holds exactly them), and a selection link
 * made from the bar shows exactly those items to a fresh browser with no cookies.
 */
import * as assert from 'uvu/assert';
import { chromium, type Browser } from 'playwright-core';
import { makeImage } from '../helpers/testApp.js';
import { browserSuite, screenshot, seriousA11yViolations } from './browser.js';

interface Extra {
  ds: string;
  /** Names of the listing's items, in the grid's order. */
  names: string[];
  ids: string[];
  other: Browser;
}
const { exe, t } = browserSuite<Extra>('web: selection to album and share link', {
  setup: async (ctx) => {
    const server = ctx.app.server;
    ctx.ds = await server.collection('Picks');
    for (let i = 0; i < 5; i++) {
      const bytes = await makeImage({ color: { r: 30 + i * 40, g: 100, b: 220 - i * 40 } });
      await server.upload({ datasetId: ctx.ds }, { bytes, filename: `pick-${i}.jpg`, type: 'image/jpeg' });
    }
    const listing = (await server.request('GET', `/api/dataset/${ctx.ds}/media?limit=10`)).body.media;
    ctx.ids = listing.map((m: { id: string }) => m.id);
    ctx.names = listing.map((m: { name: string }) => m.name);
    ctx.other = await chromium.launch({ executablePath: exe!, args: ['--no-sandbox', '--disable-gpu'] });
  },
});
t.after(async (ctx) => ctx.other?.close());

const PICKED = [0, 2, 3];
const tile = (i: number) => `a.tile[data-index="${i}"]`;

t('three tiles picked on the grid go into a new album through the bar', async (ctx) => {
  if (!exe) return;
  const { page, server } = ctx.app;
  await page.goto(`${server.baseUrl}/c/${ctx.ds}`);
  await page.waitForSelector(tile(4));
  for (const i of PICKED) await page.click(tile(i), { modifiers: ['Control'] });
  await page.waitForSelector('text=3 selected');
  await page.getByRole('button', { name: 'Add to album…' }).click();
  await page.getByRole('heading', { name: 'Add 3 items to an album' }).waitFor();
  await page.getByLabel('Album', { exact: true }).selectOption({ label: 'New album…' });
  await page.getByLabel('New album name').fill('Best <i>three</i>');
  assert.equal(await seriousA11yViolations(page), []);
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await page.getByRole('status').getByText('Added to Best <i>three</i>').waitFor();
  await screenshot(page, 'selection-album');
  await page.getByRole('button', { name: 'Close' }).click();
  const albums = (await server.request('GET', `/api/dataset/${ctx.ds}/albums`)).body.albums;
  assert.is(albums.length, 1);
  assert.is(albums[0].name, 'Best <i>three</i>');
  const media = (await server.request('GET', `/api/albums/${albums[0].id}/media?limit=50`)).body.media;
  assert.equal(media.map((m: { id: string }) => m.id).sort(), PICKED.map((i) => ctx.ids[i]).sort());
});

t('"Share…" on the selection makes a link showing exactly those items to a fresh browser', async (ctx) => {
  if (!exe) return;
  const { page } = ctx.app;
  await page.waitForSelector('text=3 selected');
  await page.getByRole('button', { name: 'Share…' }).click();
  await page.getByRole('heading', { name: 'Share “3 items”' }).waitFor();
  await page.getByRole('button', { name: 'Create link' }).click();
  const url = await page.getByLabel('Share link', { exact: true }).inputValue();
  assert.match(url, /\/s\/[A-Za-z0-9_-]{43}$/);
  assert.equal(await seriousA11yViolations(page), []);
  await page.getByRole('button', { name: 'Close' }).click();
  const v = await (await ctx.other.newContext()).newPage();
  await v.goto(url);
  const grid = v.getByRole('list', { name: 'Items of 3 items' });
  await grid.getByRole('button').first().waitFor();
  const labels = await grid.getByRole('button').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
  assert.equal(labels.sort(), PICKED.map((i) => `Open ${ctx.names[i]}`).sort());
  await screenshot(v, 'selection-share-visitor');
});

t('"all 5 matching" less one, added to the existing album, resolves to ids through the listing', async (ctx) => {
  if (!exe) return;
  const { page, server } = ctx.app;
  await page.getByRole('button', { name: 'Select all 5 matching' }).click();
  await page.click(tile(1), { modifiers: ['Control'] });
  await page.waitForSelector('text=4 selected');
  await page.getByRole('button', { name: 'Add to album…' }).click();
  await page.getByLabel('Album', { exact: true }).selectOption({ label: 'Best <i>three</i>' });
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await page.getByRole('status').getByText('Added to Best <i>three</i>').waitFor();
  await page.getByRole('button', { name: 'Close' }).click();
  const [album] = (await server.request('GET', `/api/dataset/${ctx.ds}/albums`)).body.albums;
  const media = (await server.request('GET', `/api/albums/${album.id}/media?limit=50`)).body.media;
  assert.equal(media.map((m: { id: string }) => m.id).sort(), [0, 2, 3, 4].map((i) => ctx.ids[i]).sort());
});

t.run();
