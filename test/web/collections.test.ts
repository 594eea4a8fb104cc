/**
 * The collection picker in Chromium: the empty state, creating a collection, a hostile name shown as text,
 * the link into a collection, the models status line; axe, CSP and no foreign requests.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  assertCleanPage,
  chromiumPath,
  screenshot,
  seriousA11yViolations,
  startWatchedApp,
  type WatchedApp,
} from './browser.js';

const exe = chromiumPath('collections');
const XSS = '<img src=x onerror=alert(1)>';
let b: WatchedApp;

test.before(async () => {
  if (!exe) return;
  b = await startWatchedApp(exe);
});
test.after(async () => b?.close());

test('no collections: a clear empty state that says how to start', async () => {
  if (!exe) return;
  await b.page.goto(b.server.baseUrl + '/');
  await b.page.getByRole('heading', { name: 'No collections yet' }).waitFor();
  await b.page.getByText(/Models: test profile, \d+ loaded/).waitFor();
  assert.equal(await seriousA11yViolations(b.page), []);
});

test('creating a collection with a hostile name shows it literally and runs nothing', async () => {
  if (!exe) return;
  await b.page.getByLabel('New collection').fill(XSS);
  await b.page.getByRole('button', { name: 'Create' }).click();
  const link = b.page.getByRole('link', { name: XSS });
  await link.waitFor();
  assert.is(await b.page.locator('img[src="x"]').count(), 0);
  await b.page.getByLabel('New collection').fill('Holidays');
  await b.page.keyboard.press('Enter');
  await b.page.getByRole('link', { name: 'Holidays' }).waitFor();
  assert.equal(await seriousA11yViolations(b.page), []);
  await screenshot(b.page, 'collections');
  const list = await b.server.request('GET', `/api/organization/${b.server.orgId}/datasets`);
  const id = list.body.datasets.find((d: any) => d.name === 'Holidays').id;
  await b.page.getByRole('link', { name: 'Holidays' }).click();
  await b.page.waitForURL(`**/c/${id}`);
});

test('a refused create shows the server message', async () => {
  if (!exe) return;
  await b.page.goto(b.server.baseUrl + '/');
  await b.page.getByLabel('New collection').fill('x'.repeat(200));
  await b.page.route('**/api/organization/*/datasets', (route) =>
    route.request().method() === 'POST'
      ? route.fulfill({ status: 403, json: { error: 'forbidden', message: 'role too low (test)' } })
      : route.continue(),
  );
  await b.page.getByRole('button', { name: 'Create' }).click();
  await b.page.getByRole('alert').getByText('role too low (test)').waitFor();
  await b.page.unrouteAll();
});

test('nothing left the server, no dialog, no CSP violation, no page error', () => {
  if (!exe) return;
  assertCleanPage(b);
});

test.run();
