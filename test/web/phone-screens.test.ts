/**
 * Every screen on a small phone (360 × 740, touch), in the light and the dark colour scheme: nothing scrolls
 * sideways, axe finds no serious violation, and the controls are 44 px touch targets. Screenshots of each.
 * Screens added later join SIGNED_IN (or SIGNED_OUT) below.
 */
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { browserSuite, screenshot, seriousA11yViolations, signInAsOwner } from './browser.js';
import { horizontalOverflow, seedPhoneLibrary, smallTargets, SMALL_PHONE, type PhoneLibrary } from './phone.js';

declare const document: any;

const { exe, t } = browserSuite<{ page: Page; base: string }>('web: phone screens', {
  viewport: SMALL_PHONE,
  device: { hasTouch: true, isMobile: true, colorScheme: 'dark' },
  signIn: false,
  setup: async (ctx) => {
    ctx.page = ctx.app.page;
    ctx.base = ctx.app.server.baseUrl;
  },
});

/** The controls every screen must make finger-sized. */
const CONTROLS = [
  'button',
  'select',
  'input[type="text"]',
  'input[type="search"]',
  'input[type="email"]',
  'input[type="password"]',
  'input[type="date"]',
  'input:not([type])',
]
  .map((s) => `main ${s}, .app-header ${s}, .auth-page ${s}, .viewer ${s}`)
  .join(', ');

/** Opens `url`, waits for `ready`, then checks it in both colour schemes. */
async function checkScreen(page: Page, url: string, ready: string, name: string): Promise<void> {
  await page.goto(url);
  await page.waitForSelector(ready);
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    const dark = await page.evaluate(() => document.defaultView.matchMedia('(prefers-color-scheme: dark)').matches);
    assert.is(dark, colorScheme === 'dark', `${name}: the ${colorScheme} scheme applies`);
    const { overflow, culprit } = await horizontalOverflow(page);
    assert.is(overflow, 0, `${name} (${colorScheme}): nothing wider than 360 px (${culprit})`);
    assert.equal(await seriousA11yViolations(page), [], `${name} (${colorScheme}): axe`);
    await screenshot(page, `phone-360-${name}-${colorScheme}`);
  }
  assert.equal(await smallTargets(page, CONTROLS), [], `${name}: 44 px targets`);
}

t('signed-out screens: sign-in, setup, invitation, share link', async ({ page, base }) => {
  if (!exe) return;
  await checkScreen(page, `${base}/`, 'input[name="email"]', 'sign-in');
  await checkScreen(page, `${base}/setup?token=not-a-token`, 'form, [role="alert"]', 'setup');
  await checkScreen(page, `${base}/invite?token=not-a-token`, 'h1', 'invite');
  await checkScreen(page, `${base}/s/not-a-token`, 'h1', 'share-link');
});

t(
  'signed-in screens: collections, account, browse, search, viewer, trash, people, albums, duplicates, admin, not found',
  async (ctx) => {
    if (!exe) return;
    const { page, base } = ctx;
    await signInAsOwner(ctx.app);
    const lib: PhoneLibrary = await seedPhoneLibrary(ctx.app.server);
    const from = encodeURIComponent(`/c/${lib.datasetId}`);
    const screens: Array<[string, string, string]> = [
      ['/', '.collection-card', 'collections'],
      ['/account', '.account-section', 'account'],
      [`/c/${lib.datasetId}`, '.tile-name', 'browse'],
      [`/c/${lib.datasetId}?path=${lib.trips}`, '.tile-name', 'browse-folder'],
      [`/c/${lib.datasetId}/search?q=red`, '.result-tile', 'search'],
      ['/search?q=blue', '.result-tile', 'search-everything'],
      [`/m/${lib.items[0]}?from=${from}`, '.image-stage img', 'viewer'],
      [`/c/${lib.datasetId}/trash`, '.trash-entry', 'trash'],
      [`/c/${lib.datasetId}/people`, '#people-title', 'people'],
      [`/c/${lib.datasetId}/albums`, 'main h1', 'albums'],
      [`/c/${lib.datasetId}/duplicates`, '#dup-title', 'duplicates'],
      ...['people', 'keys', 'jobs', 'models', 'storage'].map((a): [string, string, string] => [
        `/admin/${a}`,
        'main h1',
        `admin-${a}`,
      ]),
      ['/no-such-page', 'main h1', 'not-found'],
    ];
    for (const [url, ready, name] of screens) await checkScreen(page, base + url, ready, name);
  },
);

t.run();
