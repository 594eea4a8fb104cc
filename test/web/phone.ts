/**
 * Helpers for the phone browser tests (phone.test.ts, phone-screens.test.ts): a phone's context options, a
 * small analysed library, touch gestures sent through the DevTools protocol (real touch → pointer events),
 * and the layout checks (no sideways scrolling, tap target sizes).
 */
import type { Page } from 'playwright-core';
import { makeImage, waitForProcessing, type TestApp } from '../helpers/testApp.js';
import type { WatchOptions } from './browser.js';

// Functions passed to page.evaluate run in the page; the test program has no DOM types.
declare const document: any, window: any;

export const PHONE = { width: 390, height: 844 };
export const SMALL_PHONE = { width: 360, height: 740 };
export const phoneOptions = (colorScheme: 'light' | 'dark' = 'light'): WatchOptions => ({
  viewport: PHONE,
  device: { hasTouch: true, isMobile: true, colorScheme },
});

export interface PhoneLibrary {
  datasetId: string;
  /** Newest first, as browse lists them. */
  items: string[];
  trips: string;
}

/** A collection with a folder and four analysed pictures (three at the top level, one in Trips), and one trashed. */
export async function seedPhoneLibrary(t: TestApp): Promise<PhoneLibrary> {
  const datasetId = await t.collection('Phone pictures');
  const folder = await t.request('POST', '/api/folder', { body: { datasetId, name: 'Trips' } });
  const trips = folder.body.folder.path as string;
  const ids: string[] = [];
  const colours = [
    ['red.jpg', 220, 30, 30],
    ['green.jpg', 30, 180, 40],
    ['blue.jpg', 30, 40, 220],
    ['trip.jpg', 200, 200, 40],
  ] as const;
  for (const [name, r, g, b] of colours) {
    const bytes = await makeImage({ width: 480, height: 360, color: { r, g, b }, format: 'jpeg' });
    const fields: Record<string, string> = { datasetId, name };
    if (name === 'trip.jpg') fields.path = trips;
    const res = await t.upload(fields, { bytes, filename: name, type: 'image/jpeg' });
    if (res.status !== 200) throw new Error(`upload ${name}: ${res.status} ${JSON.stringify(res.body)}`);
    ids.push(res.body.mediaId);
    await new Promise((done) => setTimeout(done, 20));
  }
  for (const id of ids) await waitForProcessing(t, id, 60_000);
  // One in the trash, so the Trash screen has a row.
  const gone = await t.upload(
    { datasetId, name: 'gone.jpg' },
    { bytes: await makeImage({ width: 64, height: 48 }), filename: 'gone.jpg', type: 'image/png' },
  );
  await waitForProcessing(t, gone.body.mediaId, 60_000);
  const trashed = await t.request('DELETE', `/api/media/${gone.body.mediaId}`);
  if (trashed.status >= 300) throw new Error(`trash: ${trashed.status}`);
  return { datasetId, items: ids.slice(0, 3).reverse(), trips };
}

/** One finger from `from` to `to` in `steps` moves (Input.dispatchTouchEvent: the page sees real touches). */
export async function touchDrag(page: Page, from: Pt, to: Pt, steps = 8): Promise<void> {
  await touches(page, [from], [to], steps);
}

/** One finger held still at `at` for `ms`, then lifted. */
export async function touchHold(page: Page, at: Pt, ms: number): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [at] });
  await new Promise((done) => setTimeout(done, ms));
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

/** Two fingers moving from `from` to `to` together (a pinch when they spread). */
export async function pinch(page: Page, from: [Pt, Pt], to: [Pt, Pt], steps = 8): Promise<void> {
  await touches(page, from, to, steps);
}

export interface Pt {
  x: number;
  y: number;
}

async function touches(page: Page, from: Pt[], to: Pt[], steps: number): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  const at = (k: number) =>
    from.map((p, i) => ({
      x: p.x + ((to[i].x - p.x) * k) / steps,
      y: p.y + ((to[i].y - p.y) * k) / steps,
      id: i,
    }));
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: at(0) });
  for (let k = 1; k <= steps; k++)
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: at(k) });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

/** The centre of the first element matching `selector`. */
export async function centreOf(page: Page, selector: string): Promise<Pt> {
  const box = await page.locator(selector).first().boundingBox();
  if (!box) throw new Error(`${selector} is not shown`);
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/** How far the page scrolls sideways (0 when nothing is wider than the screen), and the widest culprit. */
export async function horizontalOverflow(page: Page): Promise<{ overflow: number; culprit: string }> {
  return page.evaluate(() => {
    // A phone zooms out to show a too-wide page (innerWidth grows past the screen's): that counts too.
    const overflow = Math.max(document.documentElement.scrollWidth, window.innerWidth) - window.screen.width;
    let culprit = '';
    if (overflow > 0)
      for (const el of document.querySelectorAll('body *')) {
        const r = el.getBoundingClientRect();
        if (r.right > window.screen.width + 0.5 && r.width > 0) {
          culprit = `${el.tagName.toLowerCase()}.${String(el.className)} in .${String(el.parentElement?.className)} right=${Math.round(r.right)}`;
          break;
        }
      }
    return { overflow, culprit };
  });
}

/** Every visible element matching `selector` smaller than 44 × 44 px (height only for text inputs), as text. */
export async function smallTargets(page: Page, selector: string): Promise<string[]> {
  return page.$$eval(selector, (els) =>
    els
      .map((el: any) => ({ el, r: el.getBoundingClientRect() }))
      .filter(({ r }) => r.width > 0 && r.height > 0)
      .filter(({ el, r }) => r.height < 44 || (el.tagName !== 'INPUT' && el.tagName !== 'SELECT' && r.width < 44))
      .map(
        ({ el, r }) =>
          `${el.tagName.toLowerCase()} "${(el.getAttribute('aria-label') || el.textContent || '').trim()}" ${Math.round(r.width)}×${Math.round(r.height)}`,
      ),
  );
}
