import sharp from 'sharp';
import type { RawImage } from './types.js';

/**
 * Encoded bytes → packed RGB (EXIF orientation applied, alpha flattened over
 * white, sRGB), decoded once so every detector can share it; a RawImage is
 * checked and passed through.
 */
export async function toRawImage(image: Buffer | RawImage): Promise<RawImage> {
  if (!Buffer.isBuffer(image)) {
    const { data, width, height, channels } = image;
    if (
      channels !== 3 ||
      !Number.isInteger(width) ||
      !Number.isInteger(height) ||
      width <= 0 ||
      height <= 0 ||
      data.length < width * height * 3
    ) {
      throw new Error(`raw image must be packed RGB: ${width}×${height}×${channels} with ${data.length} bytes`);
    }
    return image;
  }
  const { data, info } = await sharp(image, { failOn: 'error' })
    .rotate()
    .flatten({ background: '#ffffff' })
    .toColourspace('srgb')
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`decoded image has ${info.channels} channels, expected 3`);
  return { data, width: info.width, height: info.height, channels: 3 };
}
