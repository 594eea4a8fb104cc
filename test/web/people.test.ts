/**
 * The People screens in Chromium against the real server: from the collection to People, rename a person in
 * place, merge two by selecting them, search the name and see their photos, open a person and move a face
 * out ("not this person"); the empty state; keyboard use and accessibility.
 */
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { browserSuite, screenshot, seriousA11yViolations } from './browser.js';
import { seedPeople, type SeededPeople } from '../helpers/people.js';

// Functions passed to page.waitForFunction run in the page; the test program has no DOM types.
declare const document: any;

const { exe, t } = browserSuite<{ ds: string; empty: string; people: SeededPeople }>('web: people', {
  setup: async (ctx) => {
    const server = ctx.app.server;
    ctx.ds = await server.collection('Family');
    ctx.empty = await server.collection('Empty');
    ctx.people = await seedPeople(server, ctx.ds, [5, 3, 2, 1], { seed: 5, prefix: 'fam' });
  },
});

const cardNames = (page: Page) =>
  page.$$eval('.person-card .person-name', (els) => els.map((e) => (e.textContent ?? '').trim()));

t('People from the collection: cards by count; rename in place; merge two; search the name', async (ctx) => {
  if (!exe) return;
  const { page, server } = ctx.app;
  await page.goto(`${server.baseUrl}/c/${ctx.ds}`);
  await page.getByRole('link', { name: 'People', exact: true }).click();
  await page.waitForSelector('.person-card');
  assert.is(new URL(page.url()).pathname, `/c/${ctx.ds}/people`);
  assert.equal(await cardNames(page), ['Add a name', 'Add a name', 'Add a name', 'Add a name']);
  const counts = await page.$$eval('.person-card .person-count', (els) => els.map((e) => e.textContent));
  assert.equal(counts, ['5 items', '3 items', '2 items', '1 item'], 'biggest first');
  assert.is(
    await page
      .locator('.person-crop')
      .first()
      .evaluate((img: any) => img.naturalWidth),
    64,
    'crops load',
  );

  // Rename the second person with the keyboard: the button, type, Enter.
  await page.getByRole('button', { name: 'Add a name' }).nth(1).focus();
  await page.keyboard.press('Enter');
  const input = page.getByRole('textbox', { name: /Name of/ });
  await input.fill('Zoë <b>Quinn</b>');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('.person-card .person-name')?.textContent?.includes('Zoë'));
  assert.equal((await cardNames(page))[0], 'Zoë <b>Quinn</b>', 'named first; the name stays text');

  // Select Zoë and the last person, merge them into Zoë.
  await page.getByRole('checkbox', { name: 'Select Zoë <b>Quinn</b>' }).check();
  await page.getByRole('checkbox', { name: 'Select Unnamed person' }).last().check();
  await page.getByRole('button', { name: 'Merge 2 into Zoë <b>Quinn</b>' }).click();
  await page.waitForSelector('text=Merged 2 people into Zoë <b>Quinn</b>.');
  await page.waitForFunction(() => document.querySelectorAll('.person-card').length === 3);
  assert.equal(await page.$$eval('.person-card .person-count', (els) => els.map((e) => e.textContent)), [
    '4 items',
    '5 items',
    '2 items',
  ]);
  await screenshot(page, 'people');
  assert.equal(await seriousA11yViolations(page), []);

  // Search the name: her photos (both people's) come first.
  const res = await server.request('GET', `/api/dataset/${ctx.ds}/media?q=Quinn&recursive=true&limit=10`);
  const want = [...ctx.people.items[1], ...ctx.people.items[3]].sort();
  assert.equal(
    res.body.media
      .slice(0, 4)
      .map((m: { id: string }) => m.id)
      .sort(),
    want,
  );
  await page.goto(`${server.baseUrl}/c/${ctx.ds}/search?q=Quinn`);
  await page.waitForSelector('.result-tile');
  const ids = await page.$$eval('.result-tile a', (as) => as.map((a) => a.getAttribute('data-media-id')));
  assert.equal(ids.slice(0, 4).sort(), want, 'the search screen shows her photos first');
});

t('a person: their items, a face moved out ("not this person"), hide', async (ctx) => {
  if (!exe) return;
  const { page, server } = ctx.app;
  const first = ctx.people.clusterIds[0];
  await page.goto(`${server.baseUrl}/c/${ctx.ds}/people/${first}`);
  await page.waitForSelector('.face-toggle');
  await page.waitForFunction(() => document.querySelectorAll('.person-items li').length === 5);
  assert.is(await page.locator('.face-toggle').count(), 5);
  const face = page.locator('.face-toggle').nth(4);
  await face.focus();
  await page.keyboard.press('Space');
  assert.is(await face.getAttribute('aria-pressed'), 'true');
  await page.getByRole('button', { name: 'Not this person' }).click();
  await page.waitForSelector('text=Moved 1 face to a new person.');
  await page.waitForFunction(() => document.querySelectorAll('.face-toggle').length === 4);
  await page.waitForFunction(() => document.querySelectorAll('.person-items li').length === 4);
  const all = await server.request('GET', `/api/dataset/${ctx.ds}/clusters`);
  assert.ok(
    all.body.clusters.some((c: { size: number; id: string }) => c.size === 1 && c.id !== first),
    'the face is a person of its own',
  );
  await screenshot(page, 'person');
  assert.equal(await seriousA11yViolations(page), []);
  await page.getByRole('button', { name: 'Hide from People' }).click();
  await page.waitForSelector('text=Hidden from People.');
  const visible = await server.request('GET', `/api/dataset/${ctx.ds}/clusters`);
  assert.not.ok(visible.body.clusters.some((c: { id: string }) => c.id === first));
});

t('no faces yet: a clear empty state', async (ctx) => {
  if (!exe) return;
  const { page, server } = ctx.app;
  await page.goto(`${server.baseUrl}/c/${ctx.empty}/people`);
  await page.waitForSelector('.empty-state');
  assert.match((await page.locator('.empty-state').textContent()) ?? '', /No faces yet|No face model/);
  assert.equal(await seriousA11yViolations(page), []);
});

t.run();
