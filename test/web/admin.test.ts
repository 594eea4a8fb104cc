/**
 * The administration screens in Chromium (issue #28): invite a viewer, make them a member, remove them (their
 * open session in another browser ends); create a key (its secret once, with a copy button) and revoke it (401
 * at once); axe on every admin screen, no dialog, no CSP violation, nothing foreign.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chromium, type Browser, type Page } from 'playwright-core';
import {
  assertCleanPage,
  chromiumPath,
  screenshot,
  seriousA11yViolations,
  startWatchedApp,
  type WatchedApp,
} from './browser.js';
import { makeImage } from '../helpers/testApp.js';

const exe = chromiumPath('admin');
let b: WatchedApp;
let other: Browser | null = null;
let invitee: Page;

test.before(async () => {
  if (!exe) return;
  b = await startWatchedApp(exe, { config: { ingestConcurrency: 0 } }); // jobs settle only as the test says
});
test.after(async () => {
  await other?.close();
  await b?.close();
});

const page = () => b.page;

test('the header links admins to the people screen; invite a viewer who accepts in another browser', async () => {
  if (!exe) return;
  await page().goto(b.server.baseUrl + '/');
  await page().getByRole('link', { name: 'Admin' }).click();
  await page().getByRole('heading', { name: 'People', exact: true }).waitFor();
  await page().getByRole('cell', { name: 'owner@example.com' }).waitFor();
  await page().getByLabel('Email to invite').fill('vic@example.com');
  await page().getByLabel('Role', { exact: true }).selectOption('viewer');
  await page().getByRole('button', { name: 'Create invitation' }).click();
  const url = await page().getByLabel('Invitation link').inputValue();
  assert.equal(await seriousA11yViolations(page()), []);
  other = await chromium.launch({ executablePath: exe!, args: ['--no-sandbox', '--disable-gpu'] });
  invitee = await (await other.newContext()).newPage();
  await invitee.goto(b.server.baseUrl + new URL(url).pathname + new URL(url).search);
  await invitee.getByLabel('Your name').fill('Vic');
  await invitee.getByLabel('Password', { exact: true }).fill('vic password 123');
  await invitee.getByLabel('Confirm password').fill('vic password 123');
  await invitee.getByRole('button', { name: 'Accept invitation' }).click();
  await invitee.getByRole('heading', { name: 'Collections', exact: true }).waitFor();
  assert.is(await invitee.getByRole('link', { name: 'Admin' }).count(), 0, 'no admin link for a viewer');
});

test('the viewer becomes a member, then is removed: their open session ends', async () => {
  if (!exe) return;
  await page().reload();
  const role = page().getByLabel('Role of Vic');
  await role.waitFor();
  assert.is(await role.inputValue(), 'viewer');
  await role.selectOption('member');
  await page().getByText('Vic is now member.').waitFor();
  const session: any = await invitee.evaluate(() => fetch('/api/auth/session').then((r) => r.json()));
  assert.is(session.role, 'member');
  await screenshot(page(), 'admin-people');
  await page().getByRole('button', { name: 'Remove Vic' }).click();
  await page().getByRole('button', { name: 'Confirm removal of Vic' }).click();
  await page().getByText('Vic was removed.').waitFor();
  await page().getByLabel('Role of Vic').waitFor({ state: 'detached' }); // the list reloads after the answer
  await invitee.goto(b.server.baseUrl + '/account');
  await invitee.getByRole('heading', { name: 'Sign in' }).waitFor();
});

test('a key: created with its secret shown once, works, renamed, revoked answers 401', async () => {
  if (!exe) return;
  await page().getByRole('link', { name: 'API keys' }).click();
  await page().getByRole('heading', { name: 'API keys', exact: true }).waitFor();
  await page().getByLabel('Key name').fill('Scanner');
  await page().getByLabel('Key role').selectOption('viewer');
  await page().getByRole('button', { name: 'Create key' }).click();
  const secret = await page().getByLabel('Key secret').inputValue();
  assert.match(secret, /^mlk_/);
  await page().getByRole('button', { name: 'Copy' }).waitFor();
  await page().getByRole('cell', { name: 'Scanner', exact: true }).waitFor();
  assert.equal(await seriousA11yViolations(page()), []);
  await screenshot(page(), 'admin-keys');
  const me = () => fetch(b.server.baseUrl + '/api/me', { headers: { 'x-api-key': secret } }).then((r) => r.status);
  assert.is(await me(), 200);
  await page().getByRole('button', { name: 'Rename Scanner' }).click();
  await page().getByLabel('New name for Scanner').fill('Scanner 2');
  await page().getByRole('button', { name: 'Save' }).click();
  await page().getByRole('cell', { name: 'Scanner 2', exact: true }).waitFor();
  await page().getByRole('button', { name: 'Revoke Scanner 2' }).click();
  await page().getByRole('cell', { name: 'Scanner 2', exact: true }).waitFor({ state: 'detached' });
  assert.is(await me(), 401);
});

test('jobs: a failed job shows its reason and is retried; pause and resume', async () => {
  if (!exe) return;
  const { server } = b;
  const dataset = await server.collection('Jobs');
  const up = await server.upload({ datasetId: dataset }, { bytes: await makeImage(), filename: 'broken.jpg' });
  assert.is(up.status, 200);
  const jobs = server.app.services.storage.jobs;
  const job = (await jobs.claim('worker', ['ingest'], 60_000))!;
  await jobs.fail(job.id, 'worker', 'the decoder broke', null);
  // Jobs of other types (no runner here: the test settles them): a collection's failed scan, an item's running one.
  await jobs.enqueue({ type: 'duplicates-scan', payload: { collectionId: dataset } });
  const scan = (await jobs.claim('worker', ['duplicates-scan'], 60_000))!;
  await jobs.fail(scan.id, 'worker', 'the scan ran out of memory', null);
  await jobs.enqueue({ type: 'renditions', payload: { mediaId: up.body.mediaId } });
  const thumbs = (await jobs.claim('worker', ['renditions'], 60_000))!;
  await jobs.setProgress(thumbs.id, 'worker', { done: 3, total: 12 });
  await page().getByRole('link', { name: 'Jobs' }).click();
  await page().getByRole('heading', { name: 'Jobs', exact: true }).waitFor();
  await page().getByRole('cell', { name: 'the decoder broke' }).waitFor();
  await page().getByRole('cell', { name: 'the scan ran out of memory' }).waitFor();
  await page()
    .getByRole('cell', { name: /^3 of 12, [\d.]+\/s, about .+ left$/ })
    .waitFor();
  await page().getByRole('rowheader', { name: 'duplicates-scan' }).waitFor(); // its depth, beside the ingest's
  assert.equal(await seriousA11yViolations(page()), []);
  await screenshot(page(), 'admin-jobs');
  await page().getByRole('button', { name: 'Retry prepare of broken.jpg' }).click();
  await page().getByText('Queued again.').waitFor();
  await page().getByRole('button', { name: 'Retry duplicates-scan of Jobs' }).click();
  await page().getByText('No failed jobs.').waitFor();
  assert.is((await jobs.get(job.id))?.status, 'queued');
  assert.is((await jobs.get(scan.id))?.status, 'queued');
  for (const id of [scan.id, thumbs.id]) await jobs.cancel(id);
  await page().getByRole('button', { name: 'Pause background work' }).click();
  await page()
    .getByText(/Background work paused since/)
    .waitFor();
  assert.ok(await jobs.isPaused());
  await page().getByRole('button', { name: 'Resume background work' }).click();
  await page().getByText('Background work is running.').waitFor();
  assert.is(await jobs.isPaused(), null);
});

test('nothing left the server, no dialog, no CSP violation, no page error', () => {
  if (!exe) return;
  assertCleanPage(b);
});

test.run();
