/**
 * The geometry of UltraFace detection (see ./ultraface.ts): the model input's
 * size, the tiles of the small-face pass, non-maximum suppression of candidate
 * boxes and their conversion into Detections.
 */
import sharp from 'sharp';
import type { Detection, Point, RawImage } from './types.js';

export const INPUT_W = 320;
export const INPUT_H = 240;

export type TilingMode = 'auto' | 'off' | 'always';

/** A rectangle of the image in pixels (integers). */
export interface Region {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface Candidate {
  score: number;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** Crops `region` out of a raw image and resizes it to width × height (aspect ratio not kept), as packed RGB. */
export async function cropResize(img: RawImage, region: Region, width: number, height: number): Promise<Buffer> {
  let image = sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } });
  const whole = region.left === 0 && region.top === 0 && region.width === img.width && region.height === img.height;
  if (!whole) image = image.extract(region);
  return image.resize(width, height, { fit: 'fill', kernel: 'linear' }).raw().toBuffer();
}

function iou(a: Candidate, b: Candidate): number {
  const iw = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1);
  const ih = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1);
  if (iw <= 0 || ih <= 0) return 0;
  const inter = iw * ih;
  const union = (a.x2 - a.x1) * (a.y2 - a.y1) + (b.x2 - b.x1) * (b.y2 - b.y1) - inter;
  return union > 0 ? inter / union : 0;
}

/** Intersection over the smaller box's area. */
function overlapOfSmaller(a: Candidate, b: Candidate): number {
  const iw = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1);
  const ih = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1);
  if (iw <= 0 || ih <= 0) return 0;
  const smaller = Math.min((a.x2 - a.x1) * (a.y2 - a.y1), (b.x2 - b.x1) * (b.y2 - b.y1));
  return smaller > 0 ? (iw * ih) / smaller : 0;
}

/**
 * Greedy NMS, best score first (ties broken by position so the result is
 * deterministic). `containment`, when given, also drops a box whose
 * intersection with a kept one covers that fraction of the smaller box.
 */
export function nmsCandidates<T extends Candidate>(cands: T[], iouThreshold: number, containment?: number): T[] {
  const sorted = [...cands].sort((a, b) => b.score - a.score || a.y1 - b.y1 || a.x1 - b.x1);
  const kept: T[] = [];
  for (const c of sorted) {
    if (
      kept.some((k) => iou(k, c) > iouThreshold || (containment !== undefined && overlapOfSmaller(k, c) > containment))
    )
      continue;
    kept.push(c);
  }
  return kept;
}

/** Start offsets of `count` windows of `size` covering `total` evenly (first at 0, last ending at total). */
function spread(total: number, size: number, count: number): number[] {
  if (count <= 1) return [0];
  const step = (total - size) / (count - 1);
  return Array.from({ length: count }, (_, i) => Math.round(i * step));
}

/**
 * The tiles of the small-face pass, or [] when it would not help. Exported
 * for tests and the benchmark.
 */
export function planTiles(
  width: number,
  height: number,
  opts: { mode?: TilingMode; minFactor?: number; zoom?: number; overlap?: number; maxTiles?: number } = {},
): Region[] {
  const mode = opts.mode ?? 'auto';
  if (mode === 'off') return [];
  const factor = Math.max(width / INPUT_W, height / INPUT_H);
  if (mode === 'auto' && factor < (opts.minFactor ?? 1.5)) return [];
  const overlap = Math.min(0.5, Math.max(0, opts.overlap ?? 0.2));
  const maxTiles = Math.max(1, opts.maxTiles ?? 36);
  let scale = Math.max(1, factor / (opts.zoom ?? 2));
  for (;;) {
    const tw = Math.min(width, Math.round(INPUT_W * scale));
    const th = Math.min(height, Math.round(INPUT_H * scale));
    const cols = tw >= width ? 1 : Math.ceil((width - tw) / (tw * (1 - overlap))) + 1;
    const rows = th >= height ? 1 : Math.ceil((height - th) / (th * (1 - overlap))) + 1;
    if (cols * rows <= maxTiles || (cols === 1 && rows === 1)) {
      if (cols === 1 && rows === 1) return []; // one tile = the full pass again
      const tiles: Region[] = [];
      for (const top of spread(height, th, rows))
        for (const left of spread(width, tw, cols)) tiles.push({ left, top, width: tw, height: th });
      return tiles;
    }
    scale *= 1.15;
  }
}

export function toDetection(c: Candidate, width: number, height: number): Detection {
  const clampX = (v: number) => Math.min(width, Math.max(0, v));
  const clampY = (v: number) => Math.min(height, Math.max(0, v));
  const x1 = clampX(c.x1);
  const y1 = clampY(c.y1);
  const x2 = clampX(c.x2);
  const y2 = clampY(c.y2);
  const round = (v: number) => Math.round(v * 100) / 100;
  const polygon: Point[] = [
    { x: round(x1), y: round(y1) },
    { x: round(x2), y: round(y1) },
    { x: round(x2), y: round(y2) },
    { x: round(x1), y: round(y2) },
  ];
  return {
    label: 'face',
    score: c.score,
    box: { x: round(x1), y: round(y1), width: round(x2 - x1), height: round(y2 - y1) },
    polygon,
  };
}
