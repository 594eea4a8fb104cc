/**
 * Resize, upscale and border.
 *
 * Upscaling runs the ×2 super-resolution model (Swin2SR through
 * `services.models.upscale`) once per doubling (at most three: ×8), then a
 * lanczos3 resize to the exact target. Without the model, or for an input too
 * large for it (it refuses more than UPSCALE_MODEL_MAX_PIXELS: it is slow on a
 * CPU), lanczos3 does it all and the answer says so.
 */
import { DomainError, unprocessable } from '../../../platform/errors.js';
import type { EditOperation } from '../types.js';
import {
  decode,
  fromSharp,
  longSide,
  splitAlpha,
  joinAlpha,
  toPng,
  toSharp,
  type EditContext,
  type Work,
} from './image.js';
import sharp from 'sharp';
import { UPSCALE_MAX_INPUT_PIXELS } from '../../../models/imageToImage.js';

type Resize = Extract<EditOperation, { op: 'resize' }>;
type Border = Extract<EditOperation, { op: 'border' }>;

/** Largest side of any edit result (WebP's own limit is 16383). */
export const MAX_OUTPUT_SIDE = 16383;

function target(w: Work, op: Resize): { width: number; height: number } {
  if (op.scale !== undefined)
    return { width: Math.max(1, Math.round(w.width * op.scale)), height: Math.max(1, Math.round(w.height * op.scale)) };
  if (op.width !== undefined && op.height !== undefined) return { width: op.width, height: op.height };
  if (op.width !== undefined)
    return { width: op.width, height: Math.max(1, Math.round((w.height * op.width) / w.width)) };
  return { width: Math.max(1, Math.round((w.width * op.height!) / w.height)), height: op.height! };
}

/**
 * Resize to a scale or to a width and/or height. Both width and height give
 * exactly that size: the excess of a different shape is cropped from the
 * centre (like CSS object-fit: cover), never stretched.
 */
export async function resize(w: Work, op: Resize, ctx: EditContext): Promise<Work> {
  const t = target(w, op);
  if (t.width > MAX_OUTPUT_SIDE || t.height > MAX_OUTPUT_SIDE || t.width * t.height > ctx.deps.config.maxImagePixels) {
    throw unprocessable(
      `the result would be ${t.width}×${t.height} pixels; ` +
        `the editor makes images up to ${MAX_OUTPUT_SIDE} px a side and ${ctx.deps.config.maxImagePixels} pixels`,
    );
  }
  let current = w;
  if (t.width > w.width * 1.01 && t.height > w.height * 1.01) current = await modelUpscale(w, t, ctx);
  if (current.width === t.width && current.height === t.height) return current;
  return fromSharp(
    toSharp(current).resize(t.width, t.height, { fit: 'cover', position: 'centre', kernel: 'lanczos3' }),
  );
}

/** Doubles with the model while the result stays at or below about the target; returns the image as far as it got. */
async function modelUpscale(w: Work, t: { width: number; height: number }, ctx: EditContext): Promise<Work> {
  let current = w;
  const maxPixels = UPSCALE_MAX_INPUT_PIXELS[ctx.deps.config.device] ?? UPSCALE_MAX_INPUT_PIXELS.cpu;
  for (let pass = 0; pass < 3 && current.width * 2 <= t.width * 1.5 && current.height * 2 <= t.height * 1.5; pass++) {
    if (current.width * current.height > maxPixels) {
      ctx.notes.push(
        `upscaled with lanczos3: the image (${current.width}×${current.height}) ` +
          `is larger than the upscale model takes here (${maxPixels} pixels)`,
      );
      break;
    }
    const { rgb, alpha } = await splitAlpha(current);
    let result;
    try {
      result = await ctx.deps.models.upscale(await toPng(rgb));
    } catch (err) {
      if (err instanceof DomainError && err.code === 'invalid_input') {
        ctx.notes.push(`upscaled with lanczos3: ${err.message}`);
        break;
      }
      throw err;
    }
    if (!result) {
      ctx.notes.push('upscaled with lanczos3: no upscale model is installed (npm run models -- fetch swin2sr-x2)');
      break;
    }
    ctx.models.upscale = result.model;
    let up = await decode(result.image, Number.MAX_SAFE_INTEGER);
    up = (await splitAlpha(up)).rgb;
    let upAlpha: Buffer | null = null;
    if (alpha) {
      upAlpha = await sharp(alpha, { raw: { width: current.width, height: current.height, channels: 1 } })
        .resize(up.width, up.height, { fit: 'fill', kernel: 'lanczos3' })
        .raw()
        .toBuffer();
    }
    current = await joinAlpha(up, upAlpha);
  }
  return current;
}

export async function border(w: Work, op: Border): Promise<Work> {
  const size = Math.max(1, op.unit === 'px' ? Math.round(op.size) : Math.round((op.size / 100) * longSide(w)));
  if (w.width + 2 * size > MAX_OUTPUT_SIDE || w.height + 2 * size > MAX_OUTPUT_SIDE) {
    throw unprocessable(`a ${size} px border would make the image larger than ${MAX_OUTPUT_SIDE} px a side`);
  }
  const background = { r: op.color.r, g: op.color.g, b: op.color.b, alpha: op.color.alpha ?? 1 };
  return fromSharp(toSharp(w).extend({ top: size, bottom: size, left: size, right: size, background }));
}
