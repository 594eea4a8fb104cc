/**
 * Main-thread side of the image-to-image models (upscale, matte): the input
 * checks made before a job queues, and reading the result PNG's size.
 */
import sharp, { type Metadata } from 'sharp';
import { DomainError } from '../errors.js';

/**
 * Largest input the upscaler accepts by default: 2048×2048 (a 16-megapixel
 * result). Swin2SR costs roughly 12 million multiply-adds per input pixel, so
 * on a CPU even this takes many minutes (see README); callers with bigger
 * photos shrink or crop first.
 */
export const UPSCALE_MAX_INPUT_PIXELS = 2048 * 2048;

/** Upright width and height from the image header (no full decode); unprocessable when it is not an image. */
export async function imageSize(image: Buffer, maxImagePixels: number): Promise<{ width: number; height: number }> {
  let meta: Metadata;
  try {
    meta = await sharp(image, { limitInputPixels: maxImagePixels }).metadata();
  } catch (err) {
    throw new DomainError('unprocessable', `cannot decode image: ${(err as Error).message}`);
  }
  const { width, height } = meta.autoOrient ?? meta;
  if (!width || !height) throw new DomainError('unprocessable', 'cannot decode image: no dimensions');
  if (width * height > maxImagePixels) throw new DomainError('unprocessable', `image has ${width * height} pixels; at most ${maxImagePixels} are accepted`);
  return { width, height };
}

/** Refuses an upscale input above `maxPixels` before it reaches the worker. */
export async function checkUpscaleInput(image: Buffer, maxPixels: number, maxImagePixels: number): Promise<void> {
  const { width, height } = await imageSize(image, maxImagePixels);
  if (width * height > maxPixels) {
    throw new DomainError('invalid_input', `image too large to upscale: ${width}×${height}; at most ${maxPixels} pixels (shrink or crop it first)`);
  }
}

/** Width and height of a PNG from its IHDR chunk. */
export function pngSize(png: Uint8Array): { width: number; height: number } {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  if (png.byteLength < 24 || view.getUint32(12) !== 0x49484452) throw new DomainError('unavailable', 'model worker returned no PNG');
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

/** A Buffer over a worker's transferred bytes (no copy). */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
