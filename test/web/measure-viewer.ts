/**
 * Measuring helpers for the viewer (used by test/web/viewer.test.ts; a `web` bench section is to be built on
 * them): how long from a user's action until the item's picture and its regions are on screen.
 */
import type { Page } from 'playwright-core';

// Functions passed to page.waitForFunction/evaluate run in the page; the test program has no DOM types.
declare const document: any;

/** Resolves once the viewer shows a decoded image (or a video with metadata) and, when asked, a drawn region. */
export async function viewerShown(page: Page, opts: { regions?: boolean; timeoutMs?: number } = {}): Promise<void> {
  await page.waitForFunction(
    (wantRegions) => {
      const img = document.querySelector('.image-stage img');
      const video = document.querySelector('.video-stage video');
      const picture = (img && img.complete && img.naturalWidth > 0) || (video && video.readyState >= 1);
      const region = document.querySelector(
        '.image-stage .region-overlay polygon, .video-stage .region-overlay polygon',
      );
      return !!picture && (!wantRegions || !!region);
    },
    opts.regions ?? true,
    { timeout: opts.timeoutMs ?? 10_000, polling: 'raf' },
  );
}

/** Milliseconds from `action` (a click, a navigation) until the viewer shows the item (see viewerShown). */
export async function timeToOpen(
  page: Page,
  action: () => Promise<unknown>,
  opts: { regions?: boolean } = {},
): Promise<number> {
  const start = performance.now();
  await action();
  await viewerShown(page, opts);
  return performance.now() - start;
}

/** Median of several measurements (ms), for a steadier number than one run. */
export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
