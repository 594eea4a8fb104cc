/**
 * Plane geometry for text boxes: convex hull, minimum-area rectangle (rotating
 * calipers), the "unclip" expansion of PaddleOCR's DB post-processing, and the
 * corner order every quadrilateral is returned in (clockwise from top-left, in
 * image coordinates where y grows downwards).
 */
import type { Point } from '../types.js';

export interface RotatedRect {
  center: Point;
  /** Side length along `angle`. */
  width: number;
  /** Side length across `angle`. */
  height: number;
  /** Direction of the `width` side, radians. */
  angle: number;
}

const cross = (o: Point, a: Point, b: Point): number => (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);

/**
 * Convex hull (Andrew's monotone chain), counter-clockwise in a y-up frame,
 * without collinear points. Takes any point order; returns 0–n points.
 */
export function convexHull(points: readonly Point[]): Point[] {
  const pts = [...points].sort((a, b) => a.x - b.x || a.y - b.y);
  const uniq: Point[] = [];
  for (const p of pts) {
    const last = uniq[uniq.length - 1];
    if (!last || last.x !== p.x || last.y !== p.y) uniq.push(p);
  }
  if (uniq.length < 3) return uniq;
  const lower: Point[] = [];
  for (const p of uniq) {
    while (lower.length >= 2 && cross(lower[lower.length - 2], lower[lower.length - 1], p) <= 0) lower.pop();
    lower.push(p);
  }
  const upper: Point[] = [];
  for (let i = uniq.length - 1; i >= 0; i--) {
    const p = uniq[i];
    while (upper.length >= 2 && cross(upper[upper.length - 2], upper[upper.length - 1], p) <= 0) upper.pop();
    upper.push(p);
  }
  lower.pop();
  upper.pop();
  return lower.concat(upper);
}

/**
 * Minimum-area enclosing rectangle of a point set: the convex hull, then
 * rotating calipers (the optimal rectangle has a side on a hull edge; for each
 * edge in turn the three other extreme points only ever move forward, so the
 * whole sweep is linear in the hull size).
 */
export function minAreaRect(points: readonly Point[]): RotatedRect {
  const h = convexHull(points);
  const n = h.length;
  if (n === 0) return { center: { x: 0, y: 0 }, width: 0, height: 0, angle: 0 };
  if (n === 1) return { center: { ...h[0] }, width: 0, height: 0, angle: 0 };
  if (n === 2) {
    const dx = h[1].x - h[0].x,
      dy = h[1].y - h[0].y;
    return {
      center: { x: (h[0].x + h[1].x) / 2, y: (h[0].y + h[1].y) / 2 },
      width: Math.hypot(dx, dy),
      height: 0,
      angle: Math.atan2(dy, dx),
    };
  }
  const dot = (p: Point, ux: number, uy: number) => p.x * ux + p.y * uy;
  let best: RotatedRect | null = null;
  let bestArea = Infinity;
  // j: farthest along the edge direction, k: farthest from the edge, m: farthest against the edge direction.
  let j = 1,
    k = 1,
    m = 1;
  for (let i = 0; i < n; i++) {
    const a = h[i],
      b = h[(i + 1) % n];
    const len = Math.hypot(b.x - a.x, b.y - a.y);
    if (len === 0) continue;
    const ux = (b.x - a.x) / len,
      uy = (b.y - a.y) / len;
    // Normal pointing into the hull (hull is counter-clockwise for y-up, i.e. the left side).
    const vx = -uy,
      vy = ux;
    if (i === 0) {
      j = (i + 1) % n;
      k = j;
    }
    while (dot(h[(j + 1) % n], ux, uy) > dot(h[j], ux, uy) + 1e-12) j = (j + 1) % n;
    if (i === 0) k = j;
    while (dot(h[(k + 1) % n], vx, vy) > dot(h[k], vx, vy) + 1e-12) k = (k + 1) % n;
    if (i === 0) m = k;
    while (dot(h[(m + 1) % n], ux, uy) < dot(h[m], ux, uy) - 1e-12) m = (m + 1) % n;
    const maxU = dot(h[j], ux, uy),
      minU = dot(h[m], ux, uy);
    const baseV = dot(a, vx, vy),
      maxV = dot(h[k], vx, vy);
    const w = maxU - minU,
      hh = maxV - baseV;
    const area = w * hh;
    if (area < bestArea - 1e-9) {
      bestArea = area;
      const cu = (maxU + minU) / 2,
        cv = (maxV + baseV) / 2;
      best = {
        center: { x: cu * ux + cv * vx, y: cu * uy + cv * vy },
        width: w,
        height: hh,
        angle: Math.atan2(uy, ux),
      };
    }
  }
  return normalizeRect(best!);
}

/** Same rectangle, described with |angle| ≤ 45°, so `width` is the more horizontal side. */
export function normalizeRect(r: RotatedRect): RotatedRect {
  let { angle, width, height } = r;
  const q = Math.PI / 2;
  // Bring the angle into (-90°, 90°], then swap sides to land in [-45°, 45°].
  while (angle > q) angle -= Math.PI;
  while (angle <= -q) angle += Math.PI;
  if (angle > q / 2) {
    angle -= q;
    [width, height] = [height, width];
  } else if (angle < -q / 2) {
    angle += q;
    [width, height] = [height, width];
  }
  return { center: { ...r.center }, width, height, angle };
}

/** The four corners of a rotated rectangle, clockwise from top-left (see orderQuad). */
export function rectCorners(r: RotatedRect): Point[] {
  const c = Math.cos(r.angle),
    s = Math.sin(r.angle);
  const hw = r.width / 2,
    hh = r.height / 2;
  const pts = [
    { x: -hw, y: -hh },
    { x: hw, y: -hh },
    { x: hw, y: hh },
    { x: -hw, y: hh },
  ].map((p) => ({ x: r.center.x + p.x * c - p.y * s, y: r.center.y + p.x * s + p.y * c }));
  return orderQuad(pts);
}

/**
 * Orders four corners as PaddleOCR's get_mini_boxes does: the two leftmost
 * points give top-left (smaller y) and bottom-left, the two others top-right
 * and bottom-right; returned as [TL, TR, BR, BL] (clockwise on screen).
 */
export function orderQuad(pts: readonly Point[]): Point[] {
  const s = [...pts].sort((a, b) => a.x - b.x || a.y - b.y);
  const [l0, l1, r0, r1] = s;
  const [tl, bl] = l0.y <= l1.y ? [l0, l1] : [l1, l0];
  const [tr, br] = r0.y <= r1.y ? [r0, r1] : [r1, r0];
  return [tl, tr, br, bl];
}

/**
 * PaddleOCR's "unclip": the shrunk text kernel is offset outwards by
 * distance = area · ratio / perimeter. For a rectangle the (round-joined)
 * offset polygon's minimum-area rectangle is the rectangle grown by that
 * distance on every side, which is what is returned.
 */
export function unclipRect(r: RotatedRect, ratio: number): RotatedRect {
  const area = r.width * r.height;
  const perimeter = 2 * (r.width + r.height);
  const d = perimeter > 0 ? (area * ratio) / perimeter : 0;
  return { center: { ...r.center }, width: r.width + 2 * d, height: r.height + 2 * d, angle: r.angle };
}

/** Shoelace area of a simple polygon (absolute value). */
export function polygonArea(pts: readonly Point[]): number {
  let s = 0;
  for (let i = 0; i < pts.length; i++) {
    const a = pts[i],
      b = pts[(i + 1) % pts.length];
    s += a.x * b.y - b.x * a.y;
  }
  return Math.abs(s) / 2;
}

export function distance(a: Point, b: Point): number {
  return Math.hypot(a.x - b.x, a.y - b.y);
}
