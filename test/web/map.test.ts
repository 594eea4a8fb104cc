/**
 * The map and places screens in Chromium against the real server, with geotagged photos uploaded through the
 * API (geoSeed.ts): the world drawn from our own bundled atlas, clusters with counts that split as the map
 * zooms, a cluster opening its items in browse, keyboard panning, the places page and its links, the
 * country/place/camera filter chips in the URL, dark mode and the phone layout, 50,000 points (frame times
 * printed), and no request leaving 127.0.0.1.
 */
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { browserSuite, screenshot, seriousA11yViolations, type BrowserCtx } from './browser.js';
import { seedGeo, stubGeoApi, type GeoSeed } from './geoSeed.js';
import { describeFrames, mapFrameTimes } from './mapFrames.js';
import { bottomRight, centres, coveredByUploads } from './uploadCover.js';

type Ctx = BrowserCtx<{ page: Page; geo: GeoSeed; base: string }>;

const { exe, t } = browserSuite<{ page: Page; geo: GeoSeed; base: string }>('web: map and places', {
  setup: async (ctx) => {
    ctx.page = ctx.app.page;
    ctx.geo = await seedGeo(ctx.app.server);
    ctx.base = ctx.app.server.baseUrl;
    if (!ctx.geo.realApi) await stubGeoApi(ctx.page, ctx.geo.datasetId, ctx.geo.points);
  },
});

interface MarkerFact {
  label: string;
  count: number;
  lat: number;
  lon: number;
  x: number;
  y: number;
}
const markers = (page: Page): Promise<MarkerFact[]> =>
  page.$$eval('.map-marker', (els) =>
    els.map((e) => {
      const [lat, lon] = (e.getAttribute('data-position') ?? '0,0').split(',').map(Number);
      const r = e.getBoundingClientRect();
      const label = e.getAttribute('aria-label') ?? '';
      return {
        label,
        count: Number(e.getAttribute('data-count')),
        lat,
        lon,
        x: r.x + r.width / 2,
        y: r.y + r.height / 2,
      };
    }),
  );
const total = (ms: MarkerFact[]) => ms.reduce((n, m) => n + m.count, 0);

/** Distinct colours among a grid of the canvas's pixels (space, sea, land, borders: the world is drawn). */
const canvasColours = (page: Page): Promise<number> =>
  page.$eval('.map-canvas', (c) => {
    const canvas = c as any;
    const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
    const seen = new Set<number>();
    for (let y = 0; y < canvas.height; y += 7)
      for (let x = 0; x < canvas.width; x += 7) {
        const i = (y * canvas.width + x) * 4;
        seen.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
      }
    return seen.size;
  });

async function openMap(ctx: Ctx): Promise<void> {
  await ctx.page.goto(`${ctx.base}/c/${ctx.geo.datasetId}/map`);
  await ctx.page.waitForSelector('.map-marker', { timeout: 15_000 });
}

t('the map draws the world from our own atlas, with clusters that count every geotagged item', async (ctx) => {
  if (!exe) return;
  await openMap(ctx);
  await ctx.page.waitForFunction(() => (globalThis as any).document.querySelector('.map-stage') !== null);
  await ctx.page.waitForTimeout(300);
  assert.ok((await canvasColours(ctx.page)) >= 4, 'sea, land and borders are drawn');
  const shown = await markers(ctx.page);
  assert.is(total(shown), ctx.geo.points.length, 'the markers count every geotagged item, no more');
  assert.ok(
    shown.some((m) => m.count > 1),
    'some markers are clusters',
  );
  const status = await ctx.page.textContent('.map-head [role="status"]');
  assert.match(status ?? '', new RegExp(`^${ctx.geo.points.length} items have a location`));
  assert.equal(await seriousA11yViolations(ctx.page), []);
  await screenshot(ctx.page, 'map');
  assert.equal(ctx.app.foreignRequests, [], 'nothing requested outside 127.0.0.1');
  const scripts = await ctx.page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
  assert.ok(
    scripts.some((u) => /\/assets\/chunk-/.test(u)),
    'the map code and atlas came as chunks of our build',
  );
});

t('clicking a cluster zooms in until it splits; keys pan; a lone item opens the viewer', async (ctx) => {
  if (!exe) return;
  await openMap(ctx);
  const tokyo = (await markers(ctx.page)).reduce((a, b) => (b.lon > a.lon ? b : a));
  assert.is(tokyo.count, 3, 'Tokyo is one cluster of three at first');
  await ctx.page.mouse.click(tokyo.x, tokyo.y);
  await ctx.page.waitForFunction(
    () => (globalThis as any).document.querySelectorAll('.map-marker').length >= 2,
    undefined,
    {
      timeout: 5000,
    },
  );
  let shown = await markers(ctx.page);
  assert.ok(
    shown.every((m) => m.count < 3),
    'the cluster split',
  );
  assert.is(total(shown.filter((m) => m.lon > 139)), 3, 'into its three items');
  // Arrow keys pan by 100 px: the markers move the other way.
  await ctx.page.focus('.map-stage');
  const before = (await markers(ctx.page))[0];
  await ctx.page.keyboard.press('ArrowLeft');
  await ctx.page.waitForTimeout(100);
  const after = (await markers(ctx.page)).find((m) => m.lat === before.lat && m.lon === before.lon)!;
  assert.ok(Math.abs(after.x - before.x - 100) < 2, `panned by ${after.x - before.x}px`);
  await ctx.page.keyboard.press('ArrowRight');
  for (let i = 0; i < 8 && !(await ctx.page.$('.map-point')); i++) {
    await ctx.page.getByRole('button', { name: 'Zoom in' }).click();
    await ctx.page.waitForTimeout(60);
  }
  await ctx.page.click('.map-point');
  await ctx.page.waitForURL(/\/m\//);
  shown = [];
  const id = new URL(ctx.page.url()).pathname.split('/')[2];
  assert.ok(
    ctx.geo.points.some((p) => p.id === id && p.city === 'Tokyo'),
    'a Tokyo item opened',
  );
});

t('a drag pans, the wheel zooms at the cursor, two fingers pinch', async (ctx) => {
  if (!exe) return;
  await openMap(ctx);
  const page = ctx.page;
  const first = async () => (await markers(page)).reduce((a, b) => (b.lon > a.lon ? b : a));
  const a = await first();
  await page.mouse.move(600, 500);
  await page.mouse.down();
  await page.mouse.move(560, 470, { steps: 5 });
  await page.mouse.up();
  await page.waitForTimeout(100);
  const b = await first();
  assert.ok(Math.abs(b.x - a.x + 40) < 2 && Math.abs(b.y - a.y + 30) < 2, `dragged by ${b.x - a.x}, ${b.y - a.y}`);
  assert.match(page.url(), /\/map$/, 'a drag ending anywhere opens nothing');
  // The wheel zooms in about the cursor: the marker under it stays put, the others move away.
  await page.mouse.move(b.x, b.y);
  await page.mouse.wheel(0, -250);
  await page.waitForTimeout(150);
  const c = (await markers(page)).find((m) => m.lon > 139)!;
  assert.ok(Math.hypot(c.x - b.x, c.y - b.y) < 25, 'the point under the cursor stays under it');
  // Two fingers moving apart zoom in (pointer events, as a touch screen sends them).
  // Paris and Arezzo's markers, which stay apart and in view: their distance doubles with one level of zoom.
  const gap = async () => {
    const ms = await markers(page);
    const paris = ms.find((m) => Math.abs(m.lon - 2.29) < 0.5);
    const arezzo = ms.find((m) => Math.abs(m.lon - 11.88) < 0.5);
    return {
      mid: ((paris?.x ?? 0) + (arezzo?.x ?? 0)) / 2,
      midY: ((paris?.y ?? 0) + (arezzo?.y ?? 0)) / 2,
      d: Math.hypot((paris?.x ?? 0) - (arezzo?.x ?? 0), (paris?.y ?? 0) - (arezzo?.y ?? 0)),
    };
  };
  await page.getByRole('button', { name: 'Show every item' }).click();
  await page.waitForTimeout(100);
  const before = await gap();
  assert.ok(before.d > 20, 'two markers apart');
  await page.evaluate(
    `(([x, y]) => {
    const stage = document.querySelector('.map-stage');
    const at = (id, x, type) => stage.dispatchEvent(new PointerEvent(type, { pointerId: id, pointerType: 'touch', clientX: x, clientY: y, bubbles: true }));
    at(11, x - 50, 'pointerdown');
    at(12, x + 50, 'pointerdown');
    for (let d = 60; d <= 150; d += 10) { at(11, x - d, 'pointermove'); at(12, x + d, 'pointermove'); }
    at(12, x + 150, 'pointerup');
    at(11, x - 150, 'pointerup');
  })(${JSON.stringify([before.mid, before.midY])})`,
  );
  await page.waitForTimeout(150);
  const after = await gap();
  assert.ok(
    after.d > before.d * 2.2,
    `the markers spread (${before.d.toFixed(0)} → ${after.d.toFixed(0)} px): zoomed in`,
  );
});

t('a cluster that never splits opens its items in browse, with the map-area chip', async (ctx) => {
  if (!exe) return;
  await openMap(ctx);
  const paris = { lat: 48.8584, lon: 2.2945 };
  let last = '';
  for (let i = 0; i < 14 && new URL(ctx.page.url()).pathname.endsWith('/map'); i++) {
    const near = (await markers(ctx.page)).reduce((a, b) =>
      Math.hypot(b.lat - paris.lat, b.lon - paris.lon) < Math.hypot(a.lat - paris.lat, a.lon - paris.lon) ? b : a,
    );
    last = near.label;
    await ctx.page.mouse.click(near.x, near.y);
    await ctx.page.waitForTimeout(150);
  }
  assert.is(last, '2 items in one spot: open them', 'its name says what a click does');
  await ctx.page.waitForURL(/\/c\/[^/]+\?.*bbox=/);
  const url = new URL(ctx.page.url());
  const [w, s, e, n] = url.searchParams.get('bbox')!.split(',').map(Number);
  assert.ok(w <= paris.lon && paris.lon <= e && s <= paris.lat && paris.lat <= n, 'the box holds the pair');
  assert.ok(e - w < 0.01 && n - s < 0.01, 'and little else');
  await ctx.page.getByText('Area on the map').waitFor();
  if (ctx.geo.realApi) await ctx.page.getByText(/^2 items/).waitFor();
  await ctx.page.getByRole('button', { name: 'Remove map area filter' }).click();
  await ctx.page.waitForFunction(() => !(globalThis as any).location.search.includes('bbox='));
});

t('the places page lists countries and places with counts, each opening filtered browse', async (ctx) => {
  if (!exe) return;
  await ctx.page.goto(`${ctx.base}/c/${ctx.geo.datasetId}/places`);
  await ctx.page.waitForSelector('.places-country');
  const text = (await ctx.page.textContent('.places-countries')) ?? '';
  for (const country of ['Portugal', 'Japan', 'France']) assert.match(text, country);
  assert.match(text, /5 items/);
  // Each country shows a photo taken there, once its thumbnail has been made.
  await ctx.page.waitForFunction(
    () =>
      [...(globalThis as any).document.querySelectorAll('img.places-photo')].filter((i: any) => i.naturalWidth > 0)
        .length >= 3,
    undefined,
    { timeout: 10_000 },
  );
  assert.equal(await seriousA11yViolations(ctx.page), []);
  await screenshot(ctx.page, 'places');
  await ctx.page.getByRole('link', { name: 'Portugal' }).click();
  await ctx.page.waitForURL(/country=PT/);
  await ctx.page.getByText('Country: Portugal').waitFor();
  if (ctx.geo.realApi) await ctx.page.getByText(/^5 items/).waitFor();
});

t('camera and place filters: chips, kept in the URL, removed by their buttons', async (ctx) => {
  if (!exe) return;
  await ctx.page.goto(`${ctx.base}/c/${ctx.geo.datasetId}?recursive=true`);
  await ctx.page.getByLabel('Camera').selectOption('Pixel 8');
  await ctx.page.waitForURL(/camera=Pixel\+8/);
  await ctx.page.getByText('Camera: Pixel 8').waitFor();
  if (ctx.geo.realApi) await ctx.page.getByText(/^10 items/).waitFor();
  const mapLink = await ctx.page.getByRole('link', { name: 'Map', exact: true }).getAttribute('href');
  assert.match(mapLink ?? '', /\/map\?.*camera=Pixel\+8/, 'the map link keeps the filters');
  await ctx.page.reload();
  await ctx.page.getByText('Camera: Pixel 8').waitFor();
  await ctx.page.getByRole('button', { name: 'Remove camera filter Pixel 8' }).click();
  await ctx.page.waitForFunction(() => !(globalThis as any).location.search.includes('camera='));
  // The Japanese place with the most items (the geocoder names the nearest town: a ward of Tokyo, maybe).
  const places = (await ctx.app.server.request('GET', `/api/dataset/${ctx.geo.datasetId}/places`)).body;
  const japan = ctx.geo.realApi
    ? (places.places as Array<{ city: string; countryCode: string; count: number }>)
        .filter((p) => p.countryCode === 'JP')
        .sort((a, b) => b.count - a.count)[0]
    : { city: 'Tokyo', count: 3 };
  await ctx.page.goto(`${ctx.base}/c/${ctx.geo.datasetId}?recursive=true&place=${encodeURIComponent(japan.city)}`);
  await ctx.page.getByText(`Place: ${japan.city}`).waitFor();
  if (ctx.geo.realApi) await ctx.page.getByText(new RegExp(`^${japan.count} items?`)).waitFor();
  await ctx.page.goBack();
  await ctx.page.waitForFunction(() => !(globalThis as any).location.search.includes('place=')); // The collection's search screen has the same filters, in its own URL.
  await ctx.page.goto(`${ctx.base}/c/${ctx.geo.datasetId}/search?q=photo&country=jp`);
  await ctx.page.getByText('Country: Japan').waitFor();
  await ctx.page.getByRole('button', { name: 'Remove country filter Japan' }).click();
  await ctx.page.waitForFunction(() => !(globalThis as any).location.search.includes('country='));
  assert.match(ctx.page.url(), /q=photo/);
});

t('the viewer names where and with what an item was taken, linking to filtered browse', async (ctx) => {
  if (!exe) return;
  const lisbon = ctx.geo.points.find((p) => p.name === 'lisbon-1.jpg')!;
  await ctx.page.goto(`${ctx.base}/m/${lisbon.id}`);
  await ctx.page.waitForSelector('#capture-title');
  const section = ctx.page.locator('section[aria-labelledby="capture-title"]');
  if (ctx.geo.realApi) await section.getByRole('link', { name: 'Portugal' }).waitFor();
  // The position opens the map close up there: only Lisbon's markers in view.
  await section.getByRole('link', { name: '38.72230, -9.13930' }).click();
  await ctx.page.waitForURL(/\/map\?at=38\.7223,-9\.1393$/);
  await ctx.page.waitForSelector('.map-marker');
  const shown = await markers(ctx.page);
  assert.ok(
    shown.every((m) => Math.abs(m.lat - 38.72) < 0.1 && Math.abs(m.lon + 9.14) < 0.1),
    'close up on Lisbon',
  );
  assert.is(total(shown), 5);
  await ctx.page.goBack();
  await ctx.page.waitForSelector('#capture-title');
  await section.getByRole('link', { name: 'Google Pixel 8' }).click();
  await ctx.page.waitForURL(/camera=Pixel\+8/);
  await ctx.page.getByText('Camera: Pixel 8').waitFor();
});

t('dark mode and a phone: the map is drawn in dark colours and fits the screen', async (ctx) => {
  if (!exe) return;
  await ctx.page.emulateMedia({ colorScheme: 'dark' });
  await ctx.page.setViewportSize({ width: 390, height: 780 });
  await openMap(ctx);
  await ctx.page.waitForTimeout(300);
  const corner = await ctx.page.$eval('.map-canvas', (c) => {
    const canvas = c as any;
    const d = canvas.getContext('2d')!.getImageData(2, 2, 1, 1).data;
    return d[0] + d[1] + d[2];
  });
  assert.ok(corner < 200, 'a dark background');
  const width = await ctx.page.$eval('.map-stage', (e) => e.getBoundingClientRect().width);
  assert.ok(width <= 390 && width > 300, `the map fills the phone (${width}px)`);
  assert.equal(await seriousA11yViolations(ctx.page), []);
  await screenshot(ctx.page, 'map-phone-dark');
  await ctx.page.emulateMedia({ colorScheme: 'light' });
  await ctx.page.setViewportSize({ width: 1280, height: 800 });
});

t(
  '50,000 points: clusters at once, and panning and zooming stay smooth (beside 1,000; figures printed)',
  async (ctx) => {
    if (!exe) return;
    const some = await mapFrameTimes(ctx.page, ctx.base, await ctx.app.server.collection('Some places'), 1_000);
    const many = await mapFrameTimes(ctx.page, ctx.base, await ctx.app.server.collection('Everywhere'), 50_000);
    console.log(`\nmap, ${describeFrames(1_000, some)}\nmap, ${describeFrames(50_000, many)}`);
    console.log(
      `map, 50,000 ÷ 1,000 points: pan frame p95 ×${(many.pan.p95 / some.pan.p95).toFixed(2)}, ` +
        `zoom frame p95 ×${(many.zoom.p95 / some.zoom.p95).toFixed(2)}, ` +
        `map work p95 pan ×${(many.panWork.p95 / Math.max(0.1, some.panWork.p95)).toFixed(2)} ` +
        `zoom ×${(many.zoomWork.p95 / Math.max(0.1, some.zoomWork.p95)).toFixed(2)}`,
    );
    assert.ok(many.pan.p50 < 50, 'panning keeps at least 20 frames a second');
    assert.ok(many.zoom.p50 < 50, 'zooming too');
  },
);

t('the idle upload panel covers neither the map zoom controls nor the bottom-right of the grid', async (ctx) => {
  if (!exe) return;
  for (const size of [
    { width: 1280, height: 800 },
    { width: 390, height: 780 },
  ]) {
    await ctx.page.setViewportSize(size);
    await openMap(ctx);
    await ctx.page.getByRole('region', { name: 'Uploads' }).waitFor({ state: 'attached' });
    const zoom = await centres(ctx.page, '.map-controls button');
    assert.is(zoom.length, 3, 'zoom in, zoom out, show every item');
    assert.equal(await coveredByUploads(ctx.page, [...zoom, ...bottomRight(ctx.page)]), [], `map, ${size.width}px`);
    await screenshot(ctx.page, `map-idle-uploads-${size.width}`);
    await ctx.page.goto(`${ctx.base}/c/${ctx.geo.datasetId}`);
    await ctx.page.waitForSelector('.tile');
    const tiles = await centres(ctx.page, '.tile');
    assert.equal(await coveredByUploads(ctx.page, [...tiles, ...bottomRight(ctx.page)]), [], `grid, ${size.width}px`);
    await screenshot(ctx.page, `browse-idle-uploads-${size.width}`);
  }
  await ctx.page.setViewportSize({ width: 1280, height: 800 });
});

t('a collection with nothing geotagged shows the empty state', async (ctx) => {
  if (!exe) return;
  const empty = await ctx.app.server.collection('Nowhere');
  if (!ctx.geo.realApi) await stubGeoApi(ctx.page, empty, []);
  await ctx.page.goto(`${ctx.base}/c/${empty}/map`);
  await ctx.page.getByText('No item in this collection has a location yet.', { exact: false }).waitFor();
  assert.equal(ctx.app.foreignRequests, [], 'nothing requested outside 127.0.0.1');
});

t.run();
