/**
 * The viewer's AI tools (issue #28) in Chromium against the real server and its routes (MODEL_PROFILE=test:
 * the stand-in models answer): describe and tag an item and save the tags, edit it and save a version,
 * generate with progress into a chosen folder, the missing-model message, axe, and a viewer's controls.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeImage, waitForProcessing, type TestApp } from '../helpers/testApp.js';
import {
  assertCleanPage,
  browserSuite,
  chromiumPath,
  screenshot,
  seriousA11yViolations,
  startWatchedApp,
  type BrowserApp,
} from './browser.js';
import { viewerShown } from './measure-viewer.js';

interface Item {
  datasetId: string;
  mediaId: string;
  /** A folder made beside the item, for the generated picture. */
  folderPath: string;
}

async function seedItem(server: TestApp, wait = true): Promise<Item> {
  const datasetId = await server.collection('AI pictures');
  // Blue with a yellow corner, so an edit's before and after differ on the screenshots.
  const corner = await makeImage({ width: 120, height: 90, color: { r: 250, g: 210, b: 20 }, format: 'png' });
  const blue = await makeImage({ width: 320, height: 240, color: { r: 20, g: 40, b: 210 }, format: 'png' });
  const bytes = await sharp(blue)
    .composite([{ input: corner, left: 0, top: 0 }])
    .jpeg()
    .toBuffer();
  const up = await server.upload({ datasetId }, { bytes, filename: 'blue.jpg', type: 'image/jpeg' });
  if (up.status !== 200) throw new Error(`upload: ${up.status} ${JSON.stringify(up.body)}`);
  if (wait) await waitForProcessing(server, up.body.mediaId, 60_000);
  const folder = await server.request('POST', '/api/folder', { body: { datasetId, name: 'Generated' } });
  return { datasetId, mediaId: up.body.mediaId, folderPath: folder.body.folder.path };
}

async function openViewer(app: BrowserApp, mediaId: string, regions = false): Promise<void> {
  await app.page.goto(`${app.server.baseUrl}/m/${mediaId}`);
  await viewerShown(app.page, { regions });
}

const tool = (app: BrowserApp, name: string) =>
  app.page.getByRole('group', { name: 'AI tool' }).getByRole('button', { name, exact: true });

const { exe, t } = browserSuite<{ item: Item }>('web AI tools', {
  setup: async (ctx) => {
    ctx.item = await seedItem(ctx.app.server);
  },
});

t('describe names its model and saves a caption; tags are suggested and saved in one click', async (ctx) => {
  if (!exe) return;
  const { app, item } = ctx;
  const { page, server } = app;
  await openViewer(app, item.mediaId);
  await tool(app, 'Describe').click();
  await page.getByRole('button', { name: 'Describe', exact: true }).last().click();
  await page.locator('.ai-description').waitFor();
  const model = await page.locator('.ai-describe .ai-model-name').textContent();
  assert.ok(model && model.length > 0, 'the answer names its model');
  const description = (await page.locator('.ai-description').textContent()) ?? '';
  await page.getByRole('button', { name: 'Save as caption' }).click();
  await page.getByText('Saved as a caption.').waitFor();
  await page.locator('.caption-list .caption-text', { hasText: description }).first().waitFor();

  await tool(app, 'Tag').click();
  await page.getByRole('button', { name: 'Suggest tags' }).click();
  await page.locator('.ai-tag-list li').first().waitFor();
  assert.ok(((await page.locator('.ai-tag .ai-model-name').textContent()) ?? '').length > 0);
  const picked = await page.locator('.ai-tag-list input:checked').count();
  assert.ok(picked > 0, 'the best tags are ticked');
  const names = await page.locator('.ai-tag-list li:has(input:checked) .ai-tag-name').allTextContents();
  await page.getByRole('button', { name: /^Save \d+ tags?$/ }).click();
  await page.getByText(`Saved ${picked} tag${picked === 1 ? '' : 's'}.`).waitFor();
  const media = (await server.request('GET', `/api/media/${item.mediaId}`)).body.media;
  assert.equal([...media.metadata.tags.tags].sort(), [...names].sort());
  await page.locator('.tag-list .tag-value', { hasText: names[0] }).first().waitFor();

  // With choices: a classification among them, the best one ticked.
  await page.getByLabel('Choices, comma-separated (optional)').fill('ocean, forest, desert');
  await page.getByRole('button', { name: 'Suggest tags' }).click();
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('.ai-tag-list li').length === 3);
  assert.is(await page.locator('.ai-tag-list input:checked').count(), 1);
  assert.equal(await seriousA11yViolations(page), []);
  await screenshot(page, 'viewer-ai-tag');
});

t('edit: steps with before/after, undo, and save as a new version that the versions list shows', async (ctx) => {
  if (!exe) return;
  const { app, item } = ctx;
  const { page, server } = app;
  await openViewer(app, item.mediaId);
  await tool(app, 'Edit').click();
  await page.getByLabel('Edit instruction').fill('rotate 90 degrees');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.locator('.ai-steps li').first().waitFor();
  await page.getByLabel('Edit instruction').fill('make it black and white');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('.ai-steps li').length === 2);
  const slider = page.getByLabel('Before / after');
  await slider.focus();
  await page.keyboard.press('End');
  assert.is(await slider.inputValue(), '100');
  await page.getByRole('button', { name: 'Show edit' }).click();
  assert.is(await slider.inputValue(), '0');
  await page.getByRole('button', { name: 'Undo last step' }).click();
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('.ai-steps li').length === 1);
  assert.equal(await seriousA11yViolations(page), []);
  await screenshot(page, 'viewer-ai-edit');
  await page.getByRole('button', { name: 'Save as new version' }).click();
  await page.getByText('Saved as a new version.').waitFor();
  await page.getByRole('heading', { name: 'Versions (2)' }).waitFor();
  await page.locator('.version-list li').nth(1).waitFor();
  const versions = (await server.request('GET', `/api/media/${item.mediaId}/versions`)).body.versions;
  assert.is(versions.length, 2);
  // Only the rotation was kept (the grey step was undone): the version is 240 wide.
  const newest = versions.find((v: { id: string }) => v.id !== item.mediaId);
  assert.is(newest.width, 240);
  await page.getByRole('link', { name: 'Open the new version' }).click();
  await page.waitForFunction((id) => (globalThis as any).location.pathname === `/m/${id}`, newest.id);
});

t('generate: progress from the event stream, then the picture saved into the chosen folder', async (ctx) => {
  if (!exe) return;
  const { app, item } = ctx;
  const { page, server } = app;
  await openViewer(app, item.mediaId);
  await tool(app, 'Generate').click();
  await page.getByLabel('Prompt').fill('a lighthouse at dusk');
  await page.getByRole('button', { name: 'Generate', exact: true }).last().click();
  await page.locator('.ai-progress progress').waitFor();
  await page.locator('.ai-generated').waitFor({ timeout: 60_000 });
  // The event stream reported on the job (the status route is only read every few seconds, and at the end).
  await page.locator('.ai-progress[data-live="true"]').waitFor();
  assert.is(await page.locator('.ai-progress-value').textContent(), '100%');
  assert.ok(((await page.locator('.ai-generate .ai-model-name').textContent()) ?? '').length > 0);
  await page.getByLabel('Save into').selectOption(item.folderPath);
  await page.getByRole('button', { name: 'Save to folder' }).click();
  await page.getByRole('link', { name: 'Open the new item' }).waitFor();
  const listed = await server.request(
    'GET',
    `/api/dataset/${item.datasetId}/media?path=${encodeURIComponent(item.folderPath)}&limit=50`,
  );
  const names = listed.body.media.map((m: { name: string }) => m.name);
  assert.ok(names.includes('generated a lighthouse at dusk.png'), names.join(', '));
  assert.equal(await seriousA11yViolations(page), []);
  await screenshot(page, 'viewer-ai-generate');
});

t(
  'a selection in browse: Describe / Tag runs per item with progress, the ticked tags saved in one action',
  async (ctx) => {
    if (!exe) return;
    const { app } = ctx;
    const { page, server } = app;
    const datasetId = await server.collection('Selection');
    const ids: string[] = [];
    for (const [name, color] of [
      ['red.jpg', { r: 220, g: 30, b: 20 }],
      ['crimson.jpg', { r: 200, g: 20, b: 40 }],
    ] as const) {
      const bytes = await makeImage({ width: 160, height: 120, color, format: 'jpeg' });
      const up = await server.upload({ datasetId }, { bytes, filename: name, type: 'image/jpeg' });
      ids.push(up.body.mediaId);
    }
    for (const id of ids) await waitForProcessing(server, id, 60_000);
    await page.goto(`${server.baseUrl}/c/${datasetId}`);
    await page.waitForSelector('a.tile[data-index="1"]');
    await page.click('a.tile[data-index="0"]', { modifiers: ['Control'] });
    await page.click('a.tile[data-index="1"]', { modifiers: ['Control'] });
    await page.waitForSelector('text=2 selected');
    await page.getByRole('button', { name: 'Describe / Tag…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Describe / Tag 2 items' });
    await dialog.getByRole('button', { name: 'Describe and tag' }).click();
    await dialog.getByText('2 of 2 done').waitFor();
    await dialog.locator('.selection-ai-items li').nth(1).waitFor();
    const picked = await dialog
      .locator('.selection-ai-tags label:has(input:checked) .selection-ai-tag')
      .allTextContents();
    assert.ok(picked.length > 0, 'tags suggested for both are ticked');
    assert.equal(await seriousA11yViolations(page), []);
    await screenshot(page, 'browse-selection-ai');
    await dialog.getByRole('button', { name: /^Add \d+ tags? to the selection$/ }).click();
    await dialog.getByText(`to 2 items.`, { exact: false }).waitFor();
    for (const id of ids) {
      const tags = (await server.request('GET', `/api/media/${id}`)).body.media.metadata.tags.tags as string[];
      for (const tag of picked) assert.ok(tags.includes(tag), `${tag} on ${id}`);
    }
    await dialog.getByRole('button', { name: 'Close' }).click();
  },
);

t('a viewer can describe and tag but sees no save, edit or generate controls', async (ctx) => {
  if (!exe) return;
  const { app, item } = ctx;
  const { page, server } = app;
  const invite = await server.request('POST', '/api/invites', { body: { email: 'vic@example.com', role: 'viewer' } });
  assert.is(invite.status, 200, JSON.stringify(invite.body));
  const token = new URL(invite.body.url).searchParams.get('token');
  const accepted = await fetch(server.baseUrl + '/api/auth/accept-invite', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, password: 'viewer password 123', name: 'Vic' }),
  });
  assert.is(accepted.status, 200);
  const cookie = /lumen_session=([^;]+)/.exec(accepted.headers.get('set-cookie') ?? '')?.[1];
  await app.context.clearCookies();
  await app.context.addCookies([{ name: 'lumen_session', value: cookie!, url: server.baseUrl }]);
  await openViewer(app, item.mediaId);
  assert.is(await tool(app, 'Edit').count(), 0);
  assert.is(await tool(app, 'Generate').count(), 0);
  await tool(app, 'Describe').click();
  await page.getByRole('button', { name: 'Describe', exact: true }).last().click();
  await page.locator('.ai-description').waitFor();
  assert.is(await page.getByRole('button', { name: 'Save as caption' }).count(), 0);
  await tool(app, 'Tag').click();
  await page.getByRole('button', { name: 'Suggest tags' }).click();
  await page.locator('.ai-tag-list li').first().waitFor();
  assert.is(await page.locator('.ai-tag-list input').count(), 0, 'nothing to tick');
  assert.is(await page.getByRole('button', { name: /^Save/ }).count(), 0);
  assert.equal(await seriousA11yViolations(page), []);
});

t.run();

// The default profile over an empty models folder: nothing is installed.
const missing = suite<{ app?: Awaited<ReturnType<typeof startWatchedApp>>; dir: string }>('web AI tools: no models');
const missingExe = chromiumPath('web AI tools: no models');

missing.before(async (ctx) => {
  if (!missingExe) return;
  ctx.dir = mkdtempSync(path.join(os.tmpdir(), 'ai-web-nomodels-'));
  ctx.app = await startWatchedApp(missingExe, {
    config: { ingestConcurrency: 0 },
    env: { MODEL_PROFILE: 'default', MODELS_DIR: ctx.dir },
  });
});
missing.after(async (ctx) => {
  if (!ctx.app) return;
  try {
    assertCleanPage(ctx.app);
  } finally {
    await ctx.app.close();
    rmSync(ctx.dir, { recursive: true, force: true });
  }
});

missing('a missing model is named, with a link to the models page, in place of the answer', async (ctx) => {
  if (!ctx.app) return;
  const app = ctx.app;
  const { page } = app;
  const item = await seedItem(app.server, false);
  await openViewer(app, item.mediaId);
  await tool(app, 'Describe').click();
  await page.getByRole('button', { name: 'Describe', exact: true }).last().click();
  const alert = page.locator('.ai-describe .ai-failure');
  await alert.waitFor();
  assert.is(await alert.locator('.ai-missing-model').textContent(), 'florence-2-base');
  assert.is(
    await alert.getByRole('link', { name: 'Install it on the models page' }).getAttribute('href'),
    '/admin/models',
  );
  await tool(app, 'Generate').click();
  await page.getByLabel('Prompt').fill('a red apple');
  await page.getByRole('button', { name: 'Generate', exact: true }).last().click();
  await page.locator('.ai-generate .ai-missing-model', { hasText: 'janus-pro-1b' }).waitFor();
  assert.equal(await seriousA11yViolations(page), []);
  await screenshot(page, 'viewer-ai-missing-model');
});

missing.run();
