/**
 * Connected regions of a thresholded probability map (8-connectivity), found
 * iteratively with one preallocated queue: no recursion, no per-pixel objects.
 * For each region it yields the two horizontal extreme pixel centres of every
 * row it covers — enough to rebuild the region's convex hull exactly.
 */
import type { Point } from '../types.js';

export interface Region {
  /** Pixel count. */
  size: number;
  /** Bounding box in map pixels (inclusive). */
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
  /** Leftmost and rightmost pixel centres of each row (x + 0.5, y + 0.5). */
  outline: Point[];
}

/**
 * Labels the pixels of `prob` (row-major, width × height) above `threshold`
 * and returns up to `maxRegions` regions, largest-first order not guaranteed
 * (scan order: top-to-bottom, left-to-right by first pixel).
 */
export function findRegions(
  prob: Float32Array,
  width: number,
  height: number,
  threshold: number,
  maxRegions = 1000,
): Region[] {
  const n = width * height;
  const seen = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (prob[i] > threshold) seen[i] = 1; // 1 = foreground, unvisited
  const queue = new Int32Array(n);
  const rowMin = new Int32Array(height).fill(-1);
  const rowMax = new Int32Array(height).fill(-1);
  const regions: Region[] = [];
  for (let start = 0; start < n && regions.length < maxRegions; start++) {
    if (seen[start] !== 1) continue;
    seen[start] = 2;
    let head = 0,
      tail = 0;
    queue[tail++] = start;
    let minX = width,
      minY = height,
      maxX = -1,
      maxY = -1;
    while (head < tail) {
      const p = queue[head++];
      const y = (p / width) | 0,
        x = p - y * width;
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
      if (rowMin[y] < 0 || x < rowMin[y]) rowMin[y] = x;
      if (x > rowMax[y]) rowMax[y] = x;
      const y0 = y > 0 ? y - 1 : y,
        y1 = y < height - 1 ? y + 1 : y;
      const x0 = x > 0 ? x - 1 : x,
        x1 = x < width - 1 ? x + 1 : x;
      for (let yy = y0; yy <= y1; yy++) {
        const row = yy * width;
        for (let xx = x0; xx <= x1; xx++) {
          const q = row + xx;
          if (seen[q] === 1) {
            seen[q] = 2;
            queue[tail++] = q;
          }
        }
      }
    }
    const outline: Point[] = [];
    for (let y = minY; y <= maxY; y++) {
      const a = rowMin[y],
        b = rowMax[y];
      if (a < 0) continue;
      outline.push({ x: a + 0.5, y: y + 0.5 });
      if (b !== a) outline.push({ x: b + 0.5, y: y + 0.5 });
      rowMin[y] = -1;
      rowMax[y] = -1;
    }
    regions.push({ size: tail, minX, minY, maxX, maxY, outline });
  }
  return regions;
}
