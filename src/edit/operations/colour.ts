/**
 * Colour grades, tone adjustments, sharpen and blur: sharp operations on the
 * RGB channels (alpha is kept as it was).
 */
import type { Sharp } from 'sharp';
import type { EditOperation, GradePreset } from '../types.js';
import { longSide, onColour, type Work } from './image.js';

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
 * recomb is several times faster on a large photo than sharp's LCh modulate.
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

/**
 * Darkens towards the corners: factor 1 − strength·(dx² + dy²)/r²max on the
 * colour channels. The factor is a sum of a column term and a row term, so
 * both are precomputed and the pixel loop is one multiply a channel.
 */
export function vignette(w: Work, strength: number): Work {
  const out = Buffer.from(w.data);
  const cx = (w.width - 1) / 2;
  const cy = (w.height - 1) / 2;
  const r2max = cx * cx + cy * cy || 1;
  const col = new Float64Array(w.width);
  for (let x = 0; x < w.width; x++) col[x] = (strength * (x - cx) * (x - cx)) / r2max;
  const c = w.channels;
  for (let y = 0; y < w.height; y++) {
    const row = 1 - (strength * (y - cy) * (y - cy)) / r2max;
    let i = y * w.width * c;
    for (let x = 0; x < w.width; x++, i += c) {
      const f = row - col[x];
      out[i] = out[i] * f + 0.5;
      out[i + 1] = out[i + 1] * f + 0.5;
      out[i + 2] = out[i + 2] * f + 0.5;
    }
  }
  return { ...w, data: out };
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
