/**
 * Decodes encoded image bytes into the RawImage transformers.js processors
 * take. sharp does the heavy part (decode, EXIF orientation, alpha flattening,
 * and a first shrink to just above the model's input size, so a 24-megapixel
 * photo is not handed to the processor whole); the processor then applies the
 * model's exact resize/crop/normalise.
 */
import sharp, { type ResizeOptions } from 'sharp';
import { RawImage } from '@huggingface/transformers';
import { DomainError } from '../../platform/errors.js';

export async function decodeImage(bytes: Uint8Array, opts: { minSide: number; maxPixels: number }): Promise<RawImage> {
  return decodeRgb(bytes, opts.maxPixels, {
    width: opts.minSide,
    height: opts.minSide,
    fit: 'outside',
    withoutEnlargement: true,
  });
}

/** The upright image flattened on white, as 8-bit RGB, resized by `resize` (the step callers differ in). */
export async function decodeRgb(bytes: Uint8Array, maxPixels: number, resize: ResizeOptions): Promise<RawImage> {
  try {
    const { data, info } = await sharp(bytes, { limitInputPixels: maxPixels, failOn: 'error' })
      .rotate()
      .resize(resize)
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    return new RawImage(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), info.width, info.height, 3);
  } catch (err) {
    throw new DomainError('unprocessable', `cannot decode image: ${(err as Error).message}`);
  }
}

/** The side the first shrink keeps: the largest size named in a preprocessor config (224 for CLIP). */
export function processorSide(config: Record<string, unknown> | undefined, fallback = 512): number {
  const sizes: number[] = [];
  for (const key of ['size', 'crop_size']) {
    const v = config?.[key];
    if (typeof v === 'number') sizes.push(v);
    else if (v && typeof v === 'object') for (const n of Object.values(v)) if (typeof n === 'number') sizes.push(n);
  }
  return sizes.length ? Math.max(...sizes) : fallback;
}
