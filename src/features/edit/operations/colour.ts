/**
 * Colour grades, tone adjustments, sharpen and blur: sharp operations on the
 * RGB channels (alpha is kept as it was).
 */
import sharp, { type Sharp } from 'sharp';
import type { EditOperation, GradePreset } from '../types.js';
import { fromSharp, joinAlpha, longSide, onColour, splitAlpha, toSharp, type Work } from './image.js';

type Grade = Extract<EditOperation, { op: 'grade' }>;
type Adjust = Extract<EditOperation, { op: 'adjust' }>;
type Sharpen = Extract<EditOperation, { op: 'sharpen' }>;
type Blur = Extract<EditOperation, { op: 'blur' }>;

type M3 = [[number, number, number], [number, number, number], [number, number, number]];

/** Rec. 709 luma in every row: R = G = B exactly, so the result is a true black and white. */
const GREY: M3 = [
  [0.2126, 0.7152, 0.0722],
  [0.2126, 0.7152, 0.0722],
  [0.2126, 0.7152, 0.0722],
];
/** The classic sepia matrix. */
const SEPIA: M3 = [
  [0.393, 0.769, 0.189],
  [0.349, 0.686, 0.168],
  [0.272, 0.534, 0.131],
];
/** Half sepia, half the original: the warm, faded base of the vintage look. */
const HALF_SEPIA = SEPIA.map((row, i) => row.map((v, j) => 0.5 * v + (i === j ? 0.5 : 0))) as M3;

/**
 * Saturation as one colour matrix: each channel moves toward (s < 1) or away
 * from (s > 1) the pixel's Rec. 709 luma, which stays as it was. A linear
 * recomb is much faster on a large photo than sharp's LCh modulate (numbers:
 * docs/measurements/features.md).
 */
export function saturationMatrix(s: number): M3 {
  const luma = GREY[0];
  return [0, 1, 2].map((i) => luma.map((l, j) => (1 - s) * l + (i === j ? s : 0))) as M3;
}

/** Contrast around mid-grey: out = a·in + 128·(1 − a). */
const contrast = (img: Sharp, a: number) => img.linear(a, 128 * (1 - a));

const GRADES: Record<GradePreset, (img: Sharp) => Sharp> = {
  greyscale: (img) => img.recomb(GREY),
  sepia: (img) => img.recomb(SEPIA),
  noir: (img) => contrast(img.recomb(GREY), 1.45),
  warm: (img) => img.linear([1.08, 1.02, 0.88], [6, 2, -4]),
  cool: (img) => img.linear([0.9, 1.0, 1.1], [-4, 0, 6]),
  invert: (img) => img.negate({ alpha: false }),
  auto: (img) => img.normalise({ lower: 1, upper: 99 }),
  // Half sepia (it also mutes the colours); the faded blacks and whites and the vignette follow in grade().
  vintage: (img) => img.recomb(HALF_SEPIA),
};

export async function grade(w: Work, op: Grade): Promise<Work> {
  const out = await onColour(w, GRADES[op.preset]);
  if (op.preset !== 'vintage') return out;
  // A pipeline of its own: inside one, sharp would run linear before recomb.
  return vignette(await onColour(out, (img) => img.linear(0.85, 22)), 0.35);
}

/** Grid cells on the longer side of the vignette's factor image (see vignetteFactor). */
const VIGNETTE_GRID = 512;

/**
 * The vignette's factor 1 − strength·(dx² + dy²)/r²max as a one-byte-a-pixel
 * image (255 = 1) the size of the image. It is computed in JavaScript on a
 * grid of at most VIGNETTE_GRID cells a side (cheap whatever the photo's size;
 * exact for an image that small), each cell the factor at its block's centre,
 * and sharp repeats each cell over its k×k block (a nearest-neighbour upscale,
 * much faster than a linear one on a large photo; numbers:
 * docs/measurements/features.md). The factor changes by at most
 * 255·2·strength·cx/r²max levels a pixel, so a block's edge is off by about
 * 255·strength·k/cx: under 0.4 of a level at any size.
 */
async function vignetteFactor(width: number, height: number, strength: number): Promise<Buffer> {
  const k = Math.ceil(Math.max(width, height) / VIGNETTE_GRID);
  const gw = Math.ceil(width / k);
  const gh = Math.ceil(height / k);
  const cx = (width - 1) / 2;
  const cy = (height - 1) / 2;
  const r2max = cx * cx + cy * cy || 1;
  const centre = (i: number) => i * k + (k - 1) / 2;
  const grid = Buffer.alloc(gw * gh);
  for (let j = 0; j < gh; j++) {
    const dy = centre(j) - cy;
    const row = 1 - (strength * dy * dy) / r2max;
    for (let i = 0; i < gw; i++) {
      const dx = centre(i) - cx;
      grid[j * gw + i] = Math.max(0, Math.min(255, 255 * (row - (strength * dx * dx) / r2max) + 0.5));
    }
  }
  if (k === 1) return grid;
  return sharp(grid, { raw: { width: gw, height: gh, channels: 1 } })
    .resize(gw * k, gh * k, { fit: 'fill', kernel: 'nearest' })
    .extract({ left: 0, top: 0, width, height })
    .toColourspace('b-w')
    .raw()
    .toBuffer();
}

/**
 * Darkens towards the corners: the colour channels times the factor of
 * vignetteFactor, in sharp (the factor joins as an alpha channel and the
 * image is flattened onto black: colour·factor), alpha kept as it was.
 * libvips truncates the product where the former JavaScript loop rounded, so
 * the result is on average half a level darker, at most 2 levels.
 */
export async function vignette(w: Work, strength: number): Promise<Work> {
  const { rgb, alpha } = await splitAlpha(w);
  const factor = await vignetteFactor(w.width, w.height, strength);
  const weighted = await joinAlpha(rgb, factor);
  const out = await fromSharp(toSharp(weighted).flatten({ background: { r: 0, g: 0, b: 0 } }));
  return joinAlpha(out, alpha);
}

export async function adjust(w: Work, op: Adjust): Promise<Work> {
  // One pipeline each: sharp keeps one `linear` per pipeline, so brightness and contrast cannot share one.
  // Brightness is a gain on R, G and B (hue kept); saturation a luma-preserving colour matrix.
  let out = w;
  if (op.brightness !== undefined) out = await onColour(out, (img) => img.linear(op.brightness!, 0));
  if (op.saturation !== undefined) out = await onColour(out, (img) => img.recomb(saturationMatrix(op.saturation!)));
  if (op.contrast !== undefined) out = await onColour(out, (img) => contrast(img, op.contrast!));
  return out;
}

export async function sharpen(w: Work, op: Sharpen): Promise<Work> {
  return onColour(w, (img) => img.sharpen({ sigma: op.sigma }));
}

/** Gaussian sigma in pixels for this image, from a sigma given for a 1000 px image. */
export const scaledSigma = (w: Work, sigma: number) => Math.max(1, Math.min(1000, (sigma * longSide(w)) / 1000));

export async function blur(w: Work, op: Blur): Promise<Work> {
  return onColour(w, (img) => img.blur(scaledSigma(w, op.sigma)));
}
