/**
 * Aspect ratios for generated images. The model draws a square; the answer
 * honours the requested ratio:
 *
 * - up to 16:9 (or 9:16) the square is centre-cropped to the ratio: every
 *   pixel kept is one the model drew;
 * - beyond that (21:9) cropping alone would throw away more than 44% of the
 *   picture, so the square is first outpainted to 16:9 by extending it with a
 *   blurred mirror image of its own edges, then cropped to the ratio.
 *
 * The answer says which (`aspectRatioMethod`).
 */
import sharp from 'sharp';
import { invalid } from '../../platform/errors.js';

/** interface.md's list, then compat.md's extra ratios for generate. */
export const ASPECT_RATIOS = ['1:1', '16:9', '9:16', '4:3', '3:4', '2:3', '3:2', '4:5', '5:4', '21:9'] as const;
/** compat.md: the ratio of the (first) input image. */
export const MATCH_INPUT = 'match_input_image';

/** Beyond this ratio of long to short side, the square is outpainted before cropping. */
const CROP_ONLY_MAX = 16 / 9;
/** Blur of the mirrored margins (sigma as a share of the square's side). */
const MARGIN_BLUR = 0.04;

export type AspectMethod = 'none' | 'crop' | 'outpaint+crop';

export interface AspectPlan {
  /** The ratio answered, as `w:h` (for match_input_image: the reference image's own, reduced). */
  label: string;
  /** width / height. */
  ratio: number;
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/**
 * Validates a requested ratio. `match_input_image` takes the first reference
 * image's size; without one it falls back to 1:1 (the answer says so).
 */
export function planAspect(
  requested: string | undefined,
  reference: { width: number; height: number } | null,
): AspectPlan & { note?: string } {
  const value = requested?.trim() || '1:1';
  if (value === MATCH_INPUT) {
    if (!reference) return { label: '1:1', ratio: 1, note: 'match_input_image without a reference image: 1:1' };
    const d = gcd(reference.width, reference.height);
    return { label: `${reference.width / d}:${reference.height / d}`, ratio: reference.width / reference.height };
  }
  if (!(ASPECT_RATIOS as readonly string[]).includes(value)) {
    throw invalid(
      `aspectRatio must be one of ${[...ASPECT_RATIOS, MATCH_INPUT].join(', ')}; got ${JSON.stringify(value)}`,
    );
  }
  const [w, h] = value.split(':').map(Number);
  return { label: value, ratio: w / h };
}

/** How a square becomes `ratio`: none, a crop, or an outpaint then a crop. */
export function aspectMethod(ratio: number): AspectMethod {
  if (Math.abs(ratio - 1) < 1e-9) return 'none';
  return Math.max(ratio, 1 / ratio) <= CROP_ONLY_MAX + 1e-9 ? 'crop' : 'outpaint+crop';
}

/**
 * Turns the model's square PNG into an image of `ratio` (PNG out) and says
 * how. The long side of the result is at least the square's side.
 */
export async function fitToAspect(
  square: Buffer,
  ratio: number,
): Promise<{ png: Buffer; width: number; height: number; method: AspectMethod }> {
  const meta = await sharp(square).metadata();
  const side = Math.min(meta.width ?? 0, meta.height ?? 0);
  const method = aspectMethod(ratio);
  if (method === 'none') return { png: square, width: meta.width ?? side, height: meta.height ?? side, method };
  const landscape = ratio > 1;
  let base = square;
  if (method === 'outpaint+crop') {
    // Extend the long axis to 16:9 with a blurred mirror of the picture's own edges, the picture itself kept sharp in the middle.
    const pad = Math.ceil((Math.round(side * CROP_ONLY_MAX) - side) / 2);
    const extend = landscape
      ? { left: pad, right: pad, top: 0, bottom: 0 }
      : { top: pad, bottom: pad, left: 0, right: 0 };
    const mirrored = await sharp(square)
      .extend({ ...extend, extendWith: 'mirror' })
      .blur(Math.max(0.3, side * MARGIN_BLUR))
      .png()
      .toBuffer();
    base = await sharp(mirrored)
      .composite([{ input: square, left: extend.left, top: extend.top }])
      .png()
      .toBuffer();
  }
  // Centre crop to the ratio, keeping as much of the (extended) picture as fits.
  const bm = await sharp(base).metadata();
  const bw = bm.width ?? side;
  const bh = bm.height ?? side;
  const width = Math.min(bw, Math.round(bh * ratio));
  const height = Math.min(bh, Math.round(width / ratio));
  const left = Math.floor((bw - width) / 2);
  const top = Math.floor((bh - height) / 2);
  const png = await sharp(base).extract({ left, top, width, height }).png().toBuffer();
  return { png, width, height, method };
}
