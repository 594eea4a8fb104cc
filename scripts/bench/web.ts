/**
 * The `web` section (issue #15): the web application measured in a real browser (Debian's Chromium via
 * playwright-core) against the real server with MODEL_PROFILE=test.
 *
 * - First useful paint of a 100,000-item folder (navigation start → the first tile's name on screen),
 *   beside the same screen over a 100-item folder: what the folder's size costs.
 * - First useful paint of a search result page, beside the bare search request from Node (the API's share).
 * - Opening an item from the results (click → image decoded and its regions drawn), beside the bare
 *   GET /api/media/:id from Node.
 * - Scrolling through 10,000 and 100,000 items (a fling to the end in 120 frames): long tasks and slow
 *   frames, beside the same fling over 100 items.
 *
 * Targets from the issue: first paint under 1 s, open an item under 300 ms, no long task over 100 ms while
 * scrolling. Skipped (with a finding) when Chromium is absent.
 */
import type { Page } from 'playwright-core';
import { chromiumPath, signInAsOwner, startBrowserApp, type BrowserApp } from '../../test/web/browser.js';
import { firstMatchMs, instrumentPage, longTasksSince, scriptedScroll } from '../../test/web/measure.js';
import { timeToOpen } from '../../test/web/measure-viewer.js';
import { seedItems } from '../../test/web/seed.js';
import { seedLibrary } from '../../test/web/library.js';
import { now, stats, type BenchOptions, type BenchRow, type SectionResult } from './harness.js';

/** A folder of `count` seeded items in a collection; returns its browse URL (sorted by name). */
async function folderOf(app: BrowserApp, datasetId: string, count: number): Promise<string> {
  const server = app.server;
  const reply = await server.request('POST', '/api/folder', { body: { datasetId, name: `Folder of ${count}` } });
  const folder = reply.body.folder;
  await seedItems(server, { datasetId, parentPath: folder.path, count });
  return `${server.baseUrl}/c/${datasetId}?path=${folder.path}&sort=name&dir=asc`;
}

/** Navigation start → the first element matching `selector`, in a fresh page (ms). */
async function firstPaint(app: BrowserApp, url: string, selector: string): Promise<{ ms: number; page: Page }> {
  const page = await app.context.newPage();
  await instrumentPage(page, selector);
  await page.goto(url);
  const ms = await firstMatchMs(page);
  if (ms === null) throw new Error(`${selector} never appeared at ${url}`);
  return { ms, page };
}

async function paintSamples(app: BrowserApp, url: string, selector: string, reps: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < reps; i++) {
    const { ms, page } = await firstPaint(app, url, selector);
    out.push(ms);
    await page.close();
  }
  return out;
}

/** Fling scrolls over the folder; the worst long task and the slow frames of each. */
async function scrollSamples(app: BrowserApp, url: string, reps: number) {
  const maxTask: number[] = [];
  const slowFrames: number[] = [];
  for (let i = 0; i < reps; i++) {
    const { page } = await firstPaint(app, url, '.tile .tile-name');
    const run = await scriptedScroll(page, '.grid-scroller');
    const tasks = await longTasksSince(page, run.startedAt);
    maxTask.push(tasks.maxMs);
    slowFrames.push(run.slowFrames);
    await page.close();
  }
  return { maxTask, slowFrames };
}

async function nodeFetchMs(app: BrowserApp, url: string, reps: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    const r = await app.server.request('GET', url);
    if (r.status !== 200) throw new Error(`${url}: ${r.status}`);
    out.push(performance.now() - t0);
  }
  return out;
}

const target = (text: string, pass: boolean) => ({ text, pass });

async function browseRows(app: BrowserApp, datasetId: string, opts: BenchOptions, reps: number): Promise<BenchRow[]> {
  const big = opts.quick ? 10_000 : 100_000;
  const small = await folderOf(app, datasetId, 100);
  const tenK = await folderOf(app, datasetId, 10_000);
  const bigUrl = big === 10_000 ? tenK : await folderOf(app, datasetId, big);
  opts.log(`seeded folders of 100, 10,000${big > 10_000 ? ` and ${big.toLocaleString('en')}` : ''} items`);
  const tile = '.tile .tile-name';
  const ours = stats(await paintSamples(app, bigUrl, tile, reps));
  const base = stats(await paintSamples(app, small, tile, reps));
  const rows: BenchRow[] = [
    {
      id: 'browse-first-paint',
      label: `browse: first tiles of a ${big.toLocaleString('en')}-item folder`,
      ours,
      baseline: { label: 'the same screen, 100-item folder', stats: base },
      target: target('p50 < 1000 ms', ours.p50 < 1000),
    },
  ];
  const baseScroll = await scrollSamples(app, small, reps);
  for (const [count, url] of [
    [10_000, tenK],
    [big, bigUrl],
  ] as const) {
    if (rows.some((r) => r.id === `scroll-${count}`)) continue;
    const s = await scrollSamples(app, url, reps);
    const worst = stats(s.maxTask);
    rows.push({
      id: `scroll-${count}`,
      label: `scroll to the end of ${count.toLocaleString('en')} items: longest task (ms)`,
      ours: worst,
      baseline: { label: 'the same fling over 100 items', stats: stats(baseScroll.maxTask) },
      target: target('no long task > 100 ms', worst.max <= 100),
      note: `slow frames (> 50 ms) per fling: ${s.slowFrames.join(', ')} (100 items: ${baseScroll.slowFrames.join(', ')})`,
    });
  }
  return rows;
}

async function searchRows(app: BrowserApp, opts: BenchOptions, reps: number): Promise<BenchRow[]> {
  const lib = await seedLibrary(app.server);
  const query = `q=red&minScore=0.3`;
  const url = `${app.server.baseUrl}/c/${lib.datasetId}/search?${query}`;
  const paint = stats(await paintSamples(app, url, '.result-tile a', reps));
  const api = stats(await nodeFetchMs(app, `/api/dataset/${lib.datasetId}/media?${query}&limit=48`, reps));
  const open: number[] = [];
  const page = app.page;
  for (let i = 0; i < reps; i++) {
    await page.goto(url);
    await page.waitForSelector('.result-tile a');
    open.push(await timeToOpen(page, () => page.locator('.result-tile a').first().click()));
  }
  const openStats = stats(open);
  const detail = stats(await nodeFetchMs(app, `/api/media/${lib.red}`, reps));
  opts.log('searched and opened items');
  return [
    {
      id: 'search-first-paint',
      label: 'search: first result tile of a collection search',
      ours: paint,
      baseline: { label: 'the same search request from Node', stats: api },
      target: target('p50 < 1000 ms', paint.p50 < 1000),
    },
    {
      id: 'open-item',
      label: 'open an item from the results (image decoded, regions drawn)',
      ours: openStats,
      baseline: { label: 'GET /api/media/:id from Node', stats: detail },
      target: target('p50 < 300 ms', openStats.p50 < 300),
    },
  ];
}

export async function runWebBench(opts: BenchOptions): Promise<SectionResult> {
  const t0 = now();
  const exe = chromiumPath('web bench');
  const result: SectionResult = { section: 'web', quick: opts.quick, setup: {}, rows: [], findings: [], durationMs: 0 };
  if (!exe) {
    result.findings.push('no Chromium: nothing measured (install Debian chromium or set CHROMIUM_PATH)');
    return result;
  }
  const reps = opts.quick ? 2 : 5;
  const app = await startBrowserApp(exe);
  try {
    await signInAsOwner(app);
    const datasetId = await app.server.collection('Bench');
    result.rows.push(...(await browseRows(app, datasetId, opts, reps)));
    result.rows.push(...(await searchRows(app, opts, reps)));
    result.setup = {
      browser: exe,
      reps,
      viewport: '1280×800',
      profile: 'test',
      foreignRequests: app.foreignRequests.length,
    };
    if (app.foreignRequests.length) result.findings.push(`requests left the server: ${app.foreignRequests.join(', ')}`);
  } finally {
    await app.close();
  }
  result.durationMs = now() - t0;
  return result;
}
