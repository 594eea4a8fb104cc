/**
 * Issue 26 in Chromium: an HEVC video plays through its H.264 web copy (a decoded picture: videoWidth > 0
 * after loadeddata; Chromium fires loadeddata for an HEVC file it cannot decode too, with videoWidth 0), and
 * a Live Photo's movie plays over its still from the "Live" badge. Fixtures from ../shared.
 */
import { readFileSync } from 'node:fs';
import * as assert from 'uvu/assert';
import { sharedPath } from '../helpers/skip.js';
import { waitForProcessing, type TestApp } from '../helpers/testApp.js';
import { browserSuite, screenshot } from './browser.js';

declare const document: any;

async function uploaded(server: TestApp, ds: string, file: string): Promise<string | null> {
  const p = sharedPath(`fixtures/formats/${file}`, 'format fixtures');
  if (!p) return null;
  const up = await server.upload({ datasetId: ds }, { bytes: readFileSync(p), filename: file });
  assert.is(up.status, 200, JSON.stringify(up.body));
  await waitForProcessing(server, up.body.mediaId, 60_000);
  return up.body.mediaId;
}

const { exe, t } = browserSuite<{ hevc: string | null; still: string | null }>('web playback', {
  setup: async (ctx) => {
    const server = ctx.app.server;
    const ds = await server.collection('Playback');
    ctx.hevc = await uploaded(server, ds, 'mp4_hevc_hev1_216x384.mp4');
    await uploaded(server, ds, 'livephoto_iphone6s.mov');
    ctx.still = await uploaded(server, ds, 'livephoto_iphone6s.jpg');
    // The web copy comes from a low-priority job after the analysis.
    for (let i = 0; ctx.hevc && i < 600; i++) {
      const m = (await server.request('GET', `/api/media/${ctx.hevc}`)).body.media;
      if (m.playbackUrl) break;
      await new Promise((r) => setTimeout(r, 200));
    }
  },
});

t('an HEVC video plays in the viewer through its H.264 copy: a decoded picture', async (ctx) => {
  if (!exe || !ctx.hevc) return;
  const { page, server } = ctx.app;
  await page.goto(`${server.baseUrl}/m/${ctx.hevc}`);
  await page.waitForSelector('.video-stage video');
  const size = await page.evaluate(async () => {
    const v = document.querySelector('.video-stage video');
    if (v.readyState < 2) await new Promise((r) => v.addEventListener('loadeddata', r, { once: true }));
    return { width: v.videoWidth, height: v.videoHeight, src: v.currentSrc };
  });
  assert.equal([size.width, size.height], [216, 384], JSON.stringify(size));
  assert.match(size.src, /\.mp4/);
  await screenshot(page, 'playback-hevc');
});

t("a Live Photo's movie plays over its still while the Live badge is hovered", async (ctx) => {
  if (!exe || !ctx.still) return;
  const { page, server } = ctx.app;
  await page.goto(`${server.baseUrl}/m/${ctx.still}`);
  await page.waitForSelector('.image-stage .live-badge');
  await page.hover('.image-stage .live-badge');
  await page.waitForSelector('.image-stage video.live-motion');
  const width = await page.evaluate(async () => {
    const v = document.querySelector('.image-stage video.live-motion');
    if (v.readyState < 2) await new Promise((r) => v.addEventListener('loadeddata', r, { once: true }));
    return v.videoWidth;
  });
  assert.is(width, 1440);
  await screenshot(page, 'live-photo');
  await page.mouse.move(0, 0);
  await page.waitForFunction(() => !document.querySelector('.image-stage video.live-motion'));
});

t.run();
