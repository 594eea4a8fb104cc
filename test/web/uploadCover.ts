/** Whether the upload panel covers anything: the browser tests of its folded (idle) state. */
import type { Page } from 'playwright-core';

type Point = [number, number];

/** Of `points` (viewport coordinates), those where what a click would hit belongs to the upload panel. */
export const coveredByUploads = (page: Page, points: Point[]): Promise<Point[]> =>
  page.evaluate(
    (pts) => pts.filter(([x, y]) => (globalThis as any).document.elementFromPoint(x, y)?.closest('.upload-panel')),
    points,
  );

/** Points every 16 px over the viewport's bottom-right 448 × 128 px, where the panel sits (and sat when idle). */
export function bottomRight(page: Page): Point[] {
  const { width, height } = page.viewportSize()!;
  const points: Point[] = [];
  for (let x = Math.max(1, width - 448); x < width; x += 16)
    for (let y = Math.max(1, height - 128); y < height; y += 16) points.push([x, y]);
  return points;
}

/** The centres of the elements `selector` matches. */
export const centres = (page: Page, selector: string): Promise<Point[]> =>
  page.$$eval(selector, (els) =>
    els.map((e) => {
      const r = e.getBoundingClientRect();
      return [r.x + r.width / 2, r.y + r.height / 2] as Point;
    }),
  );
