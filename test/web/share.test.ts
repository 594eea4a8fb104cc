/**
 * Albums and share links in Chromium (issue 28): an album made from the browse screen and filled from the
 * viewer, shared with a password and an expiry; the link opened in a fresh browser with no cookies — the
 * wrong password refused, the right one shows exactly the album's items, and an item, a file URL and a
 * search outside the share refused from that browser; revoking the link fails the open page's next
 * request; an expired link looks like an unknown one. axe on every screen, no dialog but the confirm, no
 * CSP violation, nothing off the server.
 */
import * as assert from 'uvu/assert';
import { chromium, type Browser, type Page } from 'playwright-core';
import { makeImage } from '../helpers/testApp.js';
import { browserSuite, screenshot, seriousA11yViolations } from './browser.js';
import { watchPage } from './pageWatch.js';

interface Extra {
  ds: string;
  ids: Record<string, string>;
  other: Browser;
  visitor: Page;
  url: string;
}
const { exe, t } = browserSuite<Extra>('share', {
  acceptDialogs: true,
  setup: async (ctx) => {
    const server = ctx.app.server;
    ctx.ds = await server.collection('Holidays');
    ctx.ids = {};
    for (const [i, name] of ['beach.jpg', 'dunes.jpg', 'private.jpg'].entries()) {
      const bytes = await makeImage({ color: { r: 40 + i * 90, g: 120, b: 200 - i * 60 } });
      const r = await server.upload({ datasetId: ctx.ds }, { bytes, filename: name, type: 'image/jpeg' });
      ctx.ids[name] = r.body.mediaId;
    }
    ctx.other = await chromium.launch({ executablePath: exe!, args: ['--no-sandbox', '--disable-gpu'] });
  },
});
t.after(async (ctx) => ctx.other?.close());

t('an album from the browse screen, filled from the viewer', async ({ app, ds, ids }) => {
  if (!exe) return;
  const page = app.page;
  await page.goto(`${app.server.baseUrl}/c/${ds}`);
  await page.getByRole('link', { name: 'Albums' }).click();
  await page.getByRole('heading', { name: 'Albums' }).waitFor();
  await page.getByLabel('New album').fill('Summer <b>2026</b>');
  await page.getByRole('button', { name: 'Create' }).click();
  await page.getByRole('heading', { name: 'Summer <b>2026</b>' }).waitFor();
  for (const name of ['beach.jpg', 'dunes.jpg']) {
    await page.goto(`${app.server.baseUrl}/m/${ids[name]}`);
    await page.getByText('Add to album').click();
    await page.getByLabel('Album', { exact: true }).selectOption({ label: 'Summer <b>2026</b>' });
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByRole('status').getByText('Added to Summer <b>2026</b>').waitFor();
  }
  assert.equal(await seriousA11yViolations(page), []);
  await page.goto(`${app.server.baseUrl}/c/${ds}/albums`);
  await page.getByRole('link', { name: /Summer <b>2026<\/b>/ }).click();
  await page.getByText('2 items').waitFor();
  assert.equal(await seriousA11yViolations(page), []);
  await screenshot(page, 'album');
});

t('share it with a password and an expiry; the link is shown with a Copy button', async (ctx) => {
  if (!exe) return;
  const page = ctx.app.page;
  await page.getByRole('button', { name: 'Share' }).click();
  await page.getByLabel('Password (optional)').fill('sand castle');
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  await page.getByLabel('Expires (optional)').fill(tomorrow);
  await page.getByLabel('Download originals').check();
  await page.getByRole('button', { name: 'Create link' }).click();
  ctx.url = await page.getByLabel('Share link', { exact: true }).inputValue();
  assert.match(ctx.url, /\/s\/[A-Za-z0-9_-]{43}$/);
  await page.getByRole('button', { name: 'Copy' }).waitFor();
  assert.equal(await seriousA11yViolations(page), []);
  await screenshot(page, 'share-dialog');
  await page.getByRole('button', { name: 'Close' }).click();
  await page.getByText(/0 views/).waitFor();
});

t('a fresh browser: wrong password refused, the right one shows exactly the album', async (ctx) => {
  if (!exe) return;
  ctx.visitor = await (await ctx.other.newContext()).newPage();
  const watch = watchPage(ctx.visitor);
  const v = ctx.visitor;
  await v.goto(ctx.url);
  await v.getByRole('heading', { name: 'This link is protected' }).waitFor();
  assert.equal(await seriousA11yViolations(v), []);
  await v.getByLabel('Password').fill('sand cast1e');
  await v.getByRole('button', { name: 'Open' }).click();
  await v.getByRole('alert').getByText('wrong password').waitFor();
  await v.getByLabel('Password').fill('sand castle');
  await v.getByRole('button', { name: 'Open' }).click();
  await v.getByRole('heading', { name: 'Summer <b>2026</b>' }).waitFor();
  const grid = v.getByRole('list', { name: 'Items of Summer <b>2026</b>' });
  await grid.getByRole('button', { name: 'Open beach.jpg' }).waitFor();
  assert.equal(await grid.getByRole('button').allInnerTexts(), ['', '']);
  assert.equal(await grid.getByRole('button').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label'))), [
    'Open beach.jpg',
    'Open dunes.jpg',
  ]);
  assert.is(await v.getByText('Holidays').count(), 0, 'nothing of the library around it');
  await grid.getByRole('button', { name: 'Open dunes.jpg' }).click();
  await v.getByRole('link', { name: 'Download' }).waitFor();
  assert.equal(await seriousA11yViolations(v), []);
  await screenshot(v, 'share-visitor');
  assert.equal(watch.cspViolations, []);
  assert.equal(watch.dialogs, []);
});

t('from that browser: an item, a file URL and a search outside the share are refused', async (ctx) => {
  if (!exe) return;
  const request = ctx.visitor.context().request;
  const base = ctx.app.server.baseUrl;
  const token = ctx.url.split('/s/')[1];
  const outside = ctx.ids['private.jpg'];
  assert.is((await request.get(`${base}/api/share/${token}/media/${ctx.ids['beach.jpg']}`)).status(), 200);
  assert.is((await request.get(`${base}/api/share/${token}/media/${outside}`)).status(), 404, 'item via the share');
  assert.is((await request.get(`${base}/api/media/${outside}`)).status(), 401, 'item via the library');
  assert.is((await request.get(`${base}/api/dataset/${ctx.ds}/media?q=private`)).status(), 401, 'search');
  assert.is((await request.get(`${base}/api/search?q=private`)).status(), 401, 'organization search');
  const owner = await ctx.app.server.request('GET', `/api/media/${outside}`);
  const blob = new URL(owner.body.media.blob);
  const key = blob.pathname.split('/')[3];
  const forged = `${base}/files/${'A'.repeat(22)}/${key}`;
  assert.is((await request.get(forged)).status(), 404, 'a file URL outside the share, signature guessed');
});

t('revoking the link fails the open page at its next request', async (ctx) => {
  if (!exe) return;
  const page = ctx.app.page;
  await page.getByRole('button', { name: /^Revoke / }).click();
  await page.getByText(/album · revoked/).waitFor();
  const v = ctx.visitor;
  await v.getByRole('button', { name: 'Next item' }).click();
  await v.getByRole('heading', { name: 'This link is not available' }).waitFor();
});

t('an expired link looks exactly like an unknown one', async (ctx) => {
  if (!exe) return;
  const made = await ctx.app.server.request('POST', `/api/dataset/${ctx.ds}/share-links`, {
    body: { kind: 'selection', mediaIds: [ctx.ids['beach.jpg']] },
  });
  // Time passes: the expiry moves into the past (the API takes only future ones).
  const past = new Date(Date.now() - 1000).toISOString();
  await ctx.app.server.app.services.storage.shares.update(made.body.link.id, { expiresAt: past }, past);
  const page = await (await ctx.other.newContext()).newPage();
  const text = async (url: string) => {
    await page.goto(url);
    await page.getByRole('heading', { name: 'This link is not available' }).waitFor();
    return page.locator('main').innerText();
  };
  const expired = await text(made.body.url);
  const unknown = await text(`${ctx.app.server.baseUrl}/s/${'Q'.repeat(43)}`);
  assert.is(expired, unknown);
  assert.equal(await seriousA11yViolations(page), []);
});

t.run();
