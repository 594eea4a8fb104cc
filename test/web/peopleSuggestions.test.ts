/**
 * People's suggestions in Chromium against the real server: "These may be the same person" offers a pair;
 * "Not the same person" dismisses it, and it stays dismissed after a reload.
 */
import * as assert from 'uvu/assert';
import { browserSuite, screenshot, seriousA11yViolations } from './browser.js';
import { seedTwins, type SeededPeople } from '../helpers/people.js';

const { exe, t } = browserSuite<{ ds: string; people: SeededPeople }>('web: people suggestions', {
  env: { FACE_CLUSTER_THRESHOLDS: 'testface=0.3' },
  setup: async (ctx) => {
    ctx.ds = await ctx.app.server.collection('Twins');
    ctx.people = await seedTwins(ctx.app.server, ctx.ds);
  },
});

t('"Not the same person" dismisses a suggestion for good', async (ctx) => {
  if (!exe) return;
  const { page, server } = ctx.app;
  await page.goto(`${server.baseUrl}/c/${ctx.ds}/people`);
  await page.waitForSelector('.person-card');
  const section = page.getByRole('region', { name: 'These may be the same person' });
  await section.waitFor();
  assert.is(await section.locator('.suggestion').count(), 1);
  assert.equal(await seriousA11yViolations(page), []);
  await screenshot(page, 'people-suggestion');
  await section.getByRole('button', { name: 'Not the same person' }).click();
  await section.waitFor({ state: 'detached' });
  await page.reload();
  await page.waitForSelector('.person-card');
  assert.is(await page.locator('.people-suggestions').count(), 0, 'still dismissed after a reload');
  const s = await server.request('GET', `/api/dataset/${ctx.ds}/clusters/suggestions`);
  assert.equal(s.body.suggestions, []);
  assert.is(await page.locator('.person-card').count(), 3, 'nobody was merged');
});

t.run();
