/**
 * The air-gapped model path in Chromium (issue #28): a server whose only model (a stand-in CLIP, packed into a
 * bundle at test time: test/helpers/modelBundle.ts) is missing shows an upload waiting for it; the bundle is
 * uploaded on /admin/models with a progress bar, verified and installed, and the waiting item catches up by
 * itself. axe on the models and storage screens.
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
import { BUNDLE_MODEL, standinBundle } from '../helpers/modelBundle.js';
import { makeImage, waitForProcessing } from '../helpers/testApp.js';
import { tempModelsDir } from '../models/helpers.js';

const exe = chromiumPath('admin models');
const tmp = tempModelsDir('lumen-admin-web-models-');
let b: WatchedApp;
let bundle: string;

test.before(async () => {
  if (!exe) return;
  const built = await standinBundle(tmp.dir);
  bundle = built.bundle;
  b = await startWatchedApp(exe, { env: built.env });
});
test.after(async () => {
  await b?.close();
  tmp.cleanup();
});

test('import a model bundle by upload; the item waiting for it catches up', async () => {
  if (!exe) return;
  const { server } = b;
  const ds = await server.collection('Waiting');
  const up = await server.upload({ datasetId: ds }, { bytes: await makeImage(), filename: 'waits.jpg' });
  const item = await waitForProcessing(server, up.body.mediaId, 60_000);
  assert.is(item.analysis.embeddings, `waiting for model ${BUNDLE_MODEL}`);
  await b.page.goto(`${server.baseUrl}/c/${ds}`);
  await b.page.getByText('Waiting for a model').first().waitFor();

  await b.page.goto(server.baseUrl + '/admin/models');
  await b.page.getByRole('heading', { name: 'Models', exact: true }).waitFor();
  const row = b.page.getByRole('row').filter({ hasText: BUNDLE_MODEL });
  await row.getByText('missing').waitFor();
  await row.getByText('1 item', { exact: true }).waitFor(); // what waits for it, per feature
  await row.getByText(/embeddings: 1 item/).waitFor();
  assert.equal(await seriousA11yViolations(b.page), []);
  await b.page.getByLabel('Model bundle (.tar)').setInputFiles(bundle);
  await b.page.getByRole('button', { name: 'Import bundle' }).click();
  await b.page.getByText(`Installed: ${BUNDLE_MODEL}.`, { exact: false }).waitFor();
  await row.getByText('installed').waitFor();
  await screenshot(b.page, 'admin-models');

  const deadline = Date.now() + 30_000;
  for (;;) {
    const m = (await server.request('GET', `/api/media/${up.body.mediaId}`)).body.media;
    if (m.analysis.embeddings === 'done') break;
    if (Date.now() > deadline) throw new Error(`not caught up: ${JSON.stringify(m.analysis)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  await b.page.goto(`${server.baseUrl}/c/${ds}`);
  await b.page
    .getByRole('link', { name: /waits\.jpg/ })
    .first()
    .waitFor();
  assert.is(await b.page.getByText('Waiting for a model').count(), 0, 'the badge is gone');
});

test('storage: items and bytes per collection, derived files measured, the integrity report', async () => {
  if (!exe) return;
  await b.page.goto(b.server.baseUrl + '/admin/storage');
  await b.page.getByRole('heading', { name: 'Storage', exact: true }).waitFor();
  const row = b.page.getByRole('row').filter({ hasText: 'Waiting' });
  await row.getByRole('cell', { name: '1', exact: true }).waitFor();
  await b.page.getByRole('button', { name: 'Measure derived files' }).click();
  await row.getByText('not measured').waitFor({ state: 'detached' }); // measured once the figures reload
  await b.page.getByRole('button', { name: 'Check integrity' }).click();
  await b.page.getByText(/All good: \d+ items and \d+ files checked/).waitFor();
  assert.equal(await seriousA11yViolations(b.page), []);
  await screenshot(b.page, 'admin-storage');
});

test('nothing left the server, no dialog, no CSP violation, no page error', () => {
  if (!exe) return;
  assertCleanPage(b);
});

test.run();
