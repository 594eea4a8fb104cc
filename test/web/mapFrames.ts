/**
 * The map under load, for the browser test and docs/measurements/map.md: a collection whose map answer is
 * 50,000 points (stubbed in the page: the server's own answer for so many items is the places branch's to
 * measure) around a few hundred towns, then frame times while the map pans (an arrow key each frame) and
 * zooms (a wheel step each frame). Two figures per frame: the interval between animation frames (the whole
 * frame: clustering, canvas draw, the markers' render, layout and paint; Chromium caps it at 16.7 ms), and the
 * map's own work (how far into the frame our next callback starts: the map's frame callback and the Preact render
 * it queues run before it), which shows the cost below the cap.
 */
import type { Page } from 'playwright-core';

export interface MapFrames {
  firstDrawMs: number;
  /** Frame intervals (ms) while panning and zooming. */
  pan: Quantiles;
  zoom: Quantiles;
  /** The map's own work per frame (ms). */
  panWork: Quantiles;
  zoomWork: Quantiles;
  markers: number;
}

export interface Quantiles {
  p50: number;
  p95: number;
}

/** `count` points in clumps around 300 seeded centres (as photos are: many near home, some far away). */
export function syntheticPoints(count: number): {
  total: number;
  ids: string[];
  latitudes: number[];
  longitudes: number[];
} {
  let seed = 42;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const centres = Array.from({ length: 300 }, () => [rand() * 120 - 50, rand() * 340 - 170]);
  const ids: string[] = [];
  const latitudes: number[] = [];
  const longitudes: number[] = [];
  for (let i = 0; i < count; i++) {
    const [lat, lon] = centres[Math.floor(rand() ** 2 * centres.length)];
    ids.push(i.toString(16).padStart(32, '0'));
    latitudes.push(lat + (rand() - 0.5) * 0.5);
    longitudes.push(lon + (rand() - 0.5) * 0.5);
  }
  return { total: count, ids, latitudes, longitudes };
}

/** In the page: each frame sends one event to the map stage, and the frame intervals are kept. */
const DRIVE = `(async ({ kind, frames }) => {
  const stage = document.querySelector('.map-stage');
  const rect = stage.getBoundingClientRect();
  const times = [];
  const work = [];
  let last = 0;
  await new Promise((done) => {
    let n = 0;
    const step = (now) => {
      if (last) {
        times.push(now - last);
        work.push(performance.now() - now);
      }
      last = now;
      if (n++ >= frames) return done();
      if (kind === 'pan') stage.dispatchEvent(new KeyboardEvent('keydown', { key: n % 40 < 20 ? 'ArrowRight' : 'ArrowDown', bubbles: true }));
      else stage.dispatchEvent(new WheelEvent('wheel', { deltaY: n < frames / 2 ? -60 : 60, clientX: rect.x + rect.width / 2, clientY: rect.y + rect.height / 2, bubbles: true, cancelable: true }));
      requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  });
  return { times, work };
})`;

const quantiles = (xs: number[]): Quantiles => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
  return { p50: at(0.5), p95: at(0.95) };
};
type Drive = { times: number[]; work: number[] };

/** One line of figures. */
export const describeFrames = (n: number, f: MapFrames): string =>
  `${n.toLocaleString('en')} points: first draw ${f.firstDrawMs.toFixed(0)} ms; ` +
  `pan frames p50 ${f.pan.p50.toFixed(1)} / p95 ${f.pan.p95.toFixed(1)} ms (map work ${f.panWork.p50.toFixed(1)} / ` +
  `${f.panWork.p95.toFixed(1)}); zoom frames p50 ${f.zoom.p50.toFixed(1)} / p95 ${f.zoom.p95.toFixed(1)} ms ` +
  `(map work ${f.zoomWork.p50.toFixed(1)} / ${f.zoomWork.p95.toFixed(1)}); ${f.markers} markers`;

export async function mapFrameTimes(page: Page, base: string, datasetId: string, count: number): Promise<MapFrames> {
  const body = JSON.stringify(syntheticPoints(count));
  await page.route(`**/api/dataset/${datasetId}/map*`, (route) =>
    route.fulfill({ status: 200, contentType: 'application/json', body }),
  );
  const started = Date.now();
  await page.goto(`${base}/c/${datasetId}/map`);
  await page.waitForSelector('.map-marker', { timeout: 30_000 });
  const firstDrawMs = Date.now() - started;
  // Settle: the coarse atlas, then a zoom into a crowded area (the detailed atlas loads past zoom 3).
  await page.waitForTimeout(300);
  await page.evaluate(`${DRIVE}({ kind: 'pan', frames: 20 })`); // warm-up: compiled code, the detailed atlas
  const pan = (await page.evaluate(`${DRIVE}({ kind: 'pan', frames: 120 })`)) as Drive;
  const markers = await page.$$eval('.map-marker', (els) => els.length);
  const zoom = (await page.evaluate(`${DRIVE}({ kind: 'zoom', frames: 120 })`)) as Drive;
  return {
    firstDrawMs,
    pan: quantiles(pan.times),
    zoom: quantiles(zoom.times),
    panWork: quantiles(pan.work),
    zoomWork: quantiles(zoom.work),
    markers,
  };
}
