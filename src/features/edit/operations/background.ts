/**
 * Background operations over a foreground matte from the background-removal
 * model (MODNet or BiRefNet, `services.models.matte`): remove (the matte
 * becomes the alpha channel), blur (a blurred copy shows through where the
 * matte is background) or replace with a colour.
 *
 * The model sees a copy at most MATTE_MAX_SIDE on its longer side (it works
 * at about 512 px inside anyway, and a 12 MP PNG would take longer to encode
 * than the model takes to run); the matte is scaled back to full size.
 *
 * The compositing runs in sharp (libvips, on libuv's thread pool), not in a
 * JavaScript loop, so a 12 MP photo does not block the HTTP thread: the
 * matte joins the colour as its alpha and is then composited (`over` the
 * blurred copy, flattened onto the colour), which is the same
 * rgb·m + other·(1 − m) per pixel, within one level of rounding.
 */
import sharp from 'sharp';
import { DomainError } from '../../../platform/errors.js';
import type { EditOperation } from '../types.js';
import { scaledSigma } from './colour.js';
import { fromSharp, joinAlpha, rawOf, splitAlpha, toSharp, type EditContext, type Work } from './image.js';

type Background = Extract<EditOperation, { op: 'background' }>;

export const MATTE_MAX_SIDE = 2048;

/** The foreground matte of the working image, one byte a pixel at its full size. */
export async function foregroundMatte(w: Work, ctx: EditContext): Promise<Buffer> {
  const scale = Math.min(1, MATTE_MAX_SIDE / Math.max(w.width, w.height));
  const { rgb } = await splitAlpha(w);
  const input = await toSharp(rgb)
    .resize(Math.max(1, Math.round(w.width * scale)), Math.max(1, Math.round(w.height * scale)), { kernel: 'lanczos3' })
    .png({ compressionLevel: 1, adaptiveFiltering: false })
    .toBuffer();
  const result = await ctx.deps.models.matte(input);
  if (!result) {
    throw new DomainError(
      'unavailable',
      'background editing needs a background-removal model: install with npm run models -- fetch modnet',
      { model: ctx.deps.models.roles().removeBackground ?? 'modnet' },
    );
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
  const { rgb, alpha } = await splitAlpha(w);
  if (op.action === 'remove') {
    // Keep whatever was already transparent transparent: the new alpha is alpha·matte/255.
    const a = alpha
      ? await sharp(alpha, rawOf(w, 1))
          .composite([{ input: mask, ...rawOf(w, 1), blend: 'multiply' }])
          .extractChannel(0)
          .raw()
          .toBuffer()
      : mask;
    return joinAlpha(rgb, a);
  }
  // The subject with the matte as its alpha, over the blurred copy or the colour.
  const subject = await joinAlpha(rgb, mask);
  let out: Work;
  if (op.action === 'blur') {
    const blurred = await fromSharp(toSharp(rgb).blur(scaledSigma(rgb, op.sigma)));
    out = await fromSharp(
      toSharp(blurred)
        .composite([{ input: subject.data, ...rawOf(subject, 4), blend: 'over' }])
        .removeAlpha(),
    );
  } else {
    out = await fromSharp(toSharp(subject).flatten({ background: { r: op.color.r, g: op.color.g, b: op.color.b } }));
  }
  return joinAlpha(out, alpha);
}
