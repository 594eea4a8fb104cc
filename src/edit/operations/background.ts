/**
 * Background operations over a foreground matte from the background-removal
 * model (MODNet or BiRefNet, `services.models.matte`): remove (the matte
 * becomes the alpha channel), blur (a blurred copy shows through where the
 * matte is background) or replace with a colour.
 *
 * The model sees a copy at most MATTE_MAX_SIDE on its longer side (it works
 * at about 512 px inside anyway, and a 12 MP PNG would take longer to encode
 * than the model takes to run); the matte is scaled back to full size.
 */
import sharp from 'sharp';
import { DomainError } from '../../errors.js';
import type { EditOperation } from '../types.js';
import { scaledSigma } from './colour.js';
import { fromSharp, joinAlpha, splitAlpha, toSharp, type EditContext, type Work } from './image.js';

type Background = Extract<EditOperation, { op: 'background' }>;

export const MATTE_MAX_SIDE = 2048;

/** The foreground matte of the working image, one byte a pixel at its full size. */
export async function foregroundMatte(w: Work, ctx: EditContext): Promise<Buffer> {
  const scale = Math.min(1, MATTE_MAX_SIDE / Math.max(w.width, w.height));
  const { rgb } = splitAlpha(w);
  const input = await toSharp(rgb)
    .resize(Math.max(1, Math.round(w.width * scale)), Math.max(1, Math.round(w.height * scale)), { kernel: 'lanczos3' })
    .png({ compressionLevel: 1, adaptiveFiltering: false })
    .toBuffer();
  const result = await ctx.s.models.matte(input);
  if (!result) {
    throw new DomainError('unavailable', 'background editing needs a background-removal model: install with npm run models -- fetch modnet');
  }
  ctx.models.matte = result.model;
  const { data, info } = await sharp(result.mask)
    .extractChannel(0)
    .resize(w.width, w.height, { fit: 'fill', kernel: 'lanczos3' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 1 || data.length !== w.width * w.height) throw new Error('matte has an unexpected shape');
  return data;
}

export async function background(w: Work, op: Background, ctx: EditContext): Promise<Work> {
  const mask = await foregroundMatte(w, ctx);
  const { rgb, alpha } = splitAlpha(w);
  if (op.action === 'remove') {
    // Keep whatever was already transparent transparent.
    const a = alpha ? Buffer.from(mask.map((m, i) => Math.round((m * alpha[i]) / 255))) : mask;
    return joinAlpha(rgb, a);
  }
  const n = rgb.width * rgb.height;
  const out = Buffer.alloc(n * 3);
  if (op.action === 'blur') {
    const blurred = await fromSharp(toSharp(rgb).blur(scaledSigma(rgb, op.sigma)));
    for (let i = 0; i < n; i++) {
      const m = mask[i];
      for (let c = 0; c < 3; c++) {
        const k = i * 3 + c;
        out[k] = (rgb.data[k] * m + blurred.data[k] * (255 - m)) / 255 + 0.5; // a Buffer store truncates: + 0.5 rounds
      }
    }
  } else {
    const colour = [op.color.r, op.color.g, op.color.b];
    for (let i = 0; i < n; i++) {
      const m = mask[i];
      for (let c = 0; c < 3; c++) {
        const k = i * 3 + c;
        out[k] = (rgb.data[k] * m + colour[c] * (255 - m)) / 255 + 0.5;
      }
    }
  }
  return joinAlpha({ data: out, width: rgb.width, height: rgb.height, channels: 3 }, alpha);
}
