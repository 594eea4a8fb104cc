/**
 * PP-OCR text detection (DB): pre-processing of the image into the model's
 * input and post-processing of its probability map into text quadrilaterals.
 *
 * Pre: resize so the long side is at most `maxSide` and both sides are
 * multiples of 32, scale to 0–1, normalise with the ImageNet mean/std in the
 * channel order the model was trained with (PaddleOCR feeds OpenCV's BGR).
 * Post: threshold the map, take each connected region's minimum-area
 * rectangle, score it by the mean probability inside, drop small and weak
 * ones, "unclip" (grow by area·ratio/perimeter) and map back to image pixels.
 */
import sharp from 'sharp';
import type { Point, RawImage } from '../types.js';
import { findRegions } from './components.js';
import { distance, minAreaRect, orderQuad, rectCorners, unclipRect, type RotatedRect } from './geometry.js';

export type ChannelOrder = 'bgr' | 'rgb';

const MEAN = [0.485, 0.456, 0.406];
const STD = [0.229, 0.224, 0.225];

export interface DetInput {
  data: Float32Array;
  width: number;
  height: number;
}

/** The model's input size for an image: long side ≤ maxSide, both multiples of 32 (≥ 32). */
export function detInputSize(width: number, height: number, maxSide: number): { width: number; height: number } {
  const ratio = Math.max(width, height) > maxSide ? maxSide / Math.max(width, height) : 1;
  const cap = Math.max(32, Math.floor(maxSide / 32) * 32);
  const side = (v: number) => Math.min(cap, Math.max(32, Math.round((v * ratio) / 32) * 32));
  return { width: side(width), height: side(height) };
}

/** Resizes and normalises an RGB image into a [1,3,H,W] float tensor. */
export async function detPreprocess(img: RawImage, maxSide: number, order: ChannelOrder = 'bgr'): Promise<DetInput> {
  const { width, height } = detInputSize(img.width, img.height, maxSide);
  const px =
    width === img.width && height === img.height
      ? img.data
      : await sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } })
          .resize(width, height, { fit: 'fill' })
          .raw()
          .toBuffer();
  const plane = width * height;
  const data = new Float32Array(3 * plane);
  // Output channel c takes source channel src[c]; per-channel affine v·a + b.
  const src = order === 'bgr' ? [2, 1, 0] : [0, 1, 2];
  for (let c = 0; c < 3; c++) {
    const s = src[c];
    const a = 1 / (255 * STD[c]),
      b = -MEAN[c] / STD[c];
    const off = c * plane;
    for (let i = 0, j = s; i < plane; i++, j += 3) data[off + i] = px[j] * a + b;
  }
  return { data, width, height };
}

export interface DetPostOptions {
  /** Pixel threshold of the probability map (DB `thresh`). */
  threshold: number;
  /** Minimum mean probability inside a box (DB `box_thresh`). */
  boxThreshold: number;
  unclipRatio: number;
  /** Regions whose rectangle's short side is below this (map pixels) are dropped. */
  minSize: number;
  maxCandidates: number;
}

export const DET_POST_DEFAULTS: DetPostOptions = {
  threshold: 0.3,
  boxThreshold: 0.6,
  unclipRatio: 1.6,
  minSize: 3,
  maxCandidates: 1000,
};

export interface TextBox {
  /** [TL, TR, BR, BL] in image pixels, inside the image. */
  quad: Point[];
  /** Mean map probability inside the (pre-unclip) rectangle. */
  score: number;
}

/** Mean of `prob` over the pixels whose centres lie inside the rotated rectangle. */
export function rectMean(prob: Float32Array, width: number, height: number, r: RotatedRect): number {
  const corners = rectCorners(r);
  const xs = corners.map((p) => p.x),
    ys = corners.map((p) => p.y);
  const x0 = Math.max(0, Math.floor(Math.min(...xs))),
    x1 = Math.min(width - 1, Math.ceil(Math.max(...xs)));
  const y0 = Math.max(0, Math.floor(Math.min(...ys))),
    y1 = Math.min(height - 1, Math.ceil(Math.max(...ys)));
  const c = Math.cos(r.angle),
    s = Math.sin(r.angle);
  const hw = r.width / 2 + 1e-3,
    hh = r.height / 2 + 1e-3;
  let sum = 0,
    count = 0;
  for (let y = y0; y <= y1; y++) {
    const dy = y + 0.5 - r.center.y;
    for (let x = x0; x <= x1; x++) {
      const dx = x + 0.5 - r.center.x;
      if (Math.abs(dx * c + dy * s) <= hw && Math.abs(-dx * s + dy * c) <= hh) {
        sum += prob[y * width + x];
        count++;
      }
    }
  }
  return count ? sum / count : 0;
}

/**
 * Turns the probability map ([H,W], map pixels) into text boxes in the
 * coordinates of the original image (srcWidth × srcHeight).
 */
export function detPostprocess(
  prob: Float32Array,
  mapWidth: number,
  mapHeight: number,
  srcWidth: number,
  srcHeight: number,
  opts: Partial<DetPostOptions> = {},
): TextBox[] {
  const o = { ...DET_POST_DEFAULTS, ...opts };
  const sx = srcWidth / mapWidth,
    sy = srcHeight / mapHeight;
  const out: TextBox[] = [];
  for (const region of findRegions(prob, mapWidth, mapHeight, o.threshold, o.maxCandidates)) {
    if (region.maxX - region.minX + 1 < o.minSize && region.maxY - region.minY + 1 < o.minSize) continue;
    const rect = minAreaRect(region.outline);
    if (Math.min(rect.width, rect.height) < o.minSize) continue;
    const score = rectMean(prob, mapWidth, mapHeight, rect);
    if (score < o.boxThreshold) continue;
    const grown = unclipRect(rect, o.unclipRatio);
    if (Math.min(grown.width, grown.height) < o.minSize + 2) continue;
    const quad = orderQuad(
      rectCorners(grown).map((p) => ({
        x: Math.min(srcWidth, Math.max(0, p.x * sx)),
        y: Math.min(srcHeight, Math.max(0, p.y * sy)),
      })),
    );
    if (distance(quad[0], quad[1]) <= 3 || distance(quad[0], quad[3]) <= 3) continue;
    out.push({ quad, score });
  }
  return out;
}
