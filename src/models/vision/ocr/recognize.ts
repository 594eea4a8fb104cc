/**
 * PP-OCR recognition pre-processing: each text quadrilateral is sampled
 * straight into the model's input as a horizontal strip 48 pixels high
 * (crop, rotation, deskew and resize in one pass), normalised to
 * (x/255 − 0.5)/0.5 and right-padded with zeros to the batch width.
 */
import type { Point, RawImage } from '../types.js';
import type { ChannelOrder } from './detect.js';
import { distance } from './geometry.js';

export const REC_HEIGHT = 48;

export interface Strip {
  /** Source corners mapped to the strip's [TL, TR, BR, BL]. */
  quad: Point[];
  /** Width of the strip at height 48 (before padding). */
  width: number;
  /** True when the text stands vertically and the strip was turned. */
  rotated: boolean;
}

/**
 * Plans the strip for a quadrilateral [TL, TR, BR, BL]: its reading
 * direction (turned by 90° when it is more than 1.5 times as tall as wide,
 * as PaddleOCR does) and its width at height 48, capped at `maxWidth`.
 */
export function planStrip(quad: readonly Point[], maxWidth: number, margin = 0): Strip {
  let [tl, tr, br, bl] = quad;
  const w = Math.max(distance(tl, tr), distance(bl, br));
  const h = Math.max(distance(tl, bl), distance(tr, br));
  const rotated = h >= 1.5 * w;
  if (margin > 0) {
    // Grow across the reading direction by `margin` × the thickness on each side.
    if (!rotated) {
      [tl, bl] = spread(tl, bl, margin);
      [tr, br] = spread(tr, br, margin);
    } else {
      [tl, tr] = spread(tl, tr, margin);
      [bl, br] = spread(bl, br, margin);
    }
  }
  // Turned strip: np.rot90 of the crop, i.e. the strip's top edge is the crop's right edge.
  const q = rotated ? [tr, br, bl, tl] : [tl, tr, br, bl];
  const len = Math.max(distance(q[0], q[1]), distance(q[3], q[2]));
  const thick = Math.max(distance(q[0], q[3]), distance(q[1], q[2]));
  const width = Math.max(1, Math.min(maxWidth, Math.ceil((REC_HEIGHT * len) / Math.max(thick, 1e-6))));
  return { quad: q.map((p) => ({ ...p })), width, rotated };
}

/** Moves a and b apart along their line by `f` × their distance each. */
function spread(a: Point, b: Point, f: number): [Point, Point] {
  const dx = (b.x - a.x) * f,
    dy = (b.y - a.y) * f;
  return [
    { x: a.x - dx, y: a.y - dy },
    { x: b.x + dx, y: b.y + dy },
  ];
}

/**
 * Samples `strip` from `img` into `out` (a [3, 48, batchWidth] block at
 * `offset`), bilinear, with k×k supersampling when shrinking by more than
 * 1.5× so that large text does not alias. Columns past strip.width are 0.
 */
export function fillStrip(
  img: RawImage,
  strip: Strip,
  out: Float32Array,
  offset: number,
  batchWidth: number,
  order: ChannelOrder = 'bgr',
): void {
  const H = REC_HEIGHT,
    W = strip.width;
  const [q0, q1, q2, q3] = strip.quad;
  const srcLen = Math.max(distance(q0, q1), distance(q3, q2));
  const srcThick = Math.max(distance(q0, q3), distance(q1, q2));
  const scale = Math.max(srcLen / W, srcThick / H);
  const k = Math.min(4, Math.max(1, Math.round(scale)));
  const inv = 1 / (k * k);
  const plane = H * batchWidth;
  const { data, width: iw, height: ih } = img;
  const cs = order === 'bgr' ? [2, 1, 0] : [0, 1, 2];
  const acc = new Float64Array(3);
  for (let oy = 0; oy < H; oy++) {
    for (let ox = 0; ox < batchWidth; ox++) {
      const o = offset + oy * batchWidth + ox;
      if (ox >= W) {
        out[o] = 0;
        out[o + plane] = 0;
        out[o + 2 * plane] = 0;
        continue;
      }
      acc[0] = acc[1] = acc[2] = 0;
      for (let sy = 0; sy < k; sy++) {
        const t = (oy + (sy + 0.5) / k) / H;
        // Left and right ends of this scan line in the source.
        const lx = q0.x + (q3.x - q0.x) * t,
          ly = q0.y + (q3.y - q0.y) * t;
        const rx = q1.x + (q2.x - q1.x) * t,
          ry = q1.y + (q2.y - q1.y) * t;
        for (let sx = 0; sx < k; sx++) {
          const s = (ox + (sx + 0.5) / k) / W;
          // Continuous coordinates → pixel-index space (pixel i has its centre at i + 0.5).
          let fx = lx + (rx - lx) * s - 0.5,
            fy = ly + (ry - ly) * s - 0.5;
          if (fx < 0) fx = 0;
          else if (fx > iw - 1) fx = iw - 1;
          if (fy < 0) fy = 0;
          else if (fy > ih - 1) fy = ih - 1;
          const x0 = fx | 0,
            y0 = fy | 0;
          const x1 = x0 + 1 < iw ? x0 + 1 : x0,
            y1 = y0 + 1 < ih ? y0 + 1 : y0;
          const ax = fx - x0,
            ay = fy - y0;
          const w00 = (1 - ax) * (1 - ay),
            w01 = ax * (1 - ay),
            w10 = (1 - ax) * ay,
            w11 = ax * ay;
          const i00 = (y0 * iw + x0) * 3,
            i01 = (y0 * iw + x1) * 3,
            i10 = (y1 * iw + x0) * 3,
            i11 = (y1 * iw + x1) * 3;
          for (let c = 0; c < 3; c++) {
            const ch = cs[c];
            acc[c] += data[i00 + ch] * w00 + data[i01 + ch] * w01 + data[i10 + ch] * w10 + data[i11 + ch] * w11;
          }
        }
      }
      // (v/255 − 0.5) / 0.5 = v/127.5 − 1
      out[o] = (acc[0] * inv) / 127.5 - 1;
      out[o + plane] = (acc[1] * inv) / 127.5 - 1;
      out[o + 2 * plane] = (acc[2] * inv) / 127.5 - 1;
    }
  }
}
