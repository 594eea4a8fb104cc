/**
 * Main-thread side of the image-to-image models (upscale, matte): the input
 * checks made before a request queues, and reading the result PNG's size.
 */
import sharp, { type Metadata } from 'sharp';
import { DomainError } from '../platform/errors.js';

/**
 * Largest input the upscaler accepts by default, per device: 1024×1024 on a
 * CPU, 2048×2048 on a GPU. Swin2SR (classical ×2) is costly per input pixel,
 * so a big photo would hold the upscale worker for a very long time on a CPU
 * (figures: docs/measurements/models.md). Callers with bigger photos shrink or crop first.
 */
export const UPSCALE_MAX_INPUT_PIXELS: Record<'cpu' | 'cuda', number> = { cpu: 1024 * 1024, cuda: 2048 * 2048 };

/** Upscale requests allowed to wait for the upscale worker before rate_limited (each can take minutes). */
export const UPSCALE_QUEUE_LENGTH = 4;

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
  if (width * height > maxImagePixels)
    throw new DomainError(
      'unprocessable',
      `image has ${width * height} pixels; at most ${maxImagePixels} are accepted`,
    );
  return { width, height };
}

/** Refuses an upscale input above `maxPixels` before it reaches the worker. */
export async function checkUpscaleInput(image: Buffer, maxPixels: number, maxImagePixels: number): Promise<void> {
  const { width, height } = await imageSize(image, maxImagePixels);
  if (width * height > maxPixels) {
    throw new DomainError(
      'invalid_input',
      `image too large to upscale: ${width}×${height}; at most ${maxPixels} pixels (shrink or crop it first)`,
    );
  }
}

/** Width and height of a PNG from its IHDR chunk. */
export function pngSize(png: Uint8Array): { width: number; height: number } {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  if (png.byteLength < 24 || view.getUint32(12) !== 0x49484452)
    throw new DomainError('unavailable', 'model worker returned no PNG');
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

/** A Buffer over a worker's transferred bytes (no copy). */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
