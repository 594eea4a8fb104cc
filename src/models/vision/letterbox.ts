/**
 * Letterboxing for detectors with a fixed input (YOLOX): scale the image to
 * fit the input keeping its aspect ratio, place it at the top-left, pad the
 * rest with a constant, and pack it as a planar (NCHW) float tensor of raw
 * 0–255 values.
 *
 * The image is decoded once by sharp (EXIF orientation applied, alpha
 * flattened onto the pad colour, shrink-on-load for JPEG), resized straight to
 * the letterbox size, and read back as raw interleaved bytes; packing is one
 * pass over typed arrays with no per-pixel allocation.
 */
import sharp, { type Sharp } from 'sharp';
import type { RawImage } from './types.js';

export interface LetterboxGeometry {
  /** Factor from source pixels to letterbox pixels (divide by it to map back). */
  scale: number;
  /** Size of the scaled image inside the letterbox (top-left aligned). */
  width: number;
  height: number;
}

/** YOLOX's letterbox geometry: r = min(W/w, H/h), the image resized to (w·r, h·r), at least 1 px. */
export function letterboxGeometry(
  srcWidth: number,
  srcHeight: number,
  dstWidth: number,
  dstHeight: number,
): LetterboxGeometry {
  if (!(srcWidth > 0 && srcHeight > 0)) throw new Error(`image has no pixels (${srcWidth}×${srcHeight})`);
  const scale = Math.min(dstWidth / srcWidth, dstHeight / srcHeight);
  return {
    scale,
    width: Math.min(dstWidth, Math.max(1, Math.round(srcWidth * scale))),
    height: Math.min(dstHeight, Math.max(1, Math.round(srcHeight * scale))),
  };
}

export interface PackOptions {
  /** Pad value for the area outside the image (YOLOX: 114). */
  pad: number;
  /** Channel order of the tensor: 'bgr' (YOLOX, OpenCV-trained models) or 'rgb'. */
  order: 'bgr' | 'rgb';
}

/**
 * Packs interleaved 8-bit pixels (`channels` 1–4; grey is replicated, a 4th
 * channel ignored) of a `width`×`height` image into the top-left of a planar
 * 3×dstHeight×dstWidth float tensor, padding the rest with `pad`.
 */
export function packPlanar(
  src: Uint8Array,
  width: number,
  height: number,
  channels: number,
  dst: Float32Array,
  dstWidth: number,
  dstHeight: number,
  opts: PackOptions,
): void {
  const plane = dstWidth * dstHeight;
  if (dst.length < 3 * plane) throw new Error(`tensor too small: ${dst.length} < ${3 * plane}`);
  if (width > dstWidth || height > dstHeight)
    throw new Error(`image ${width}×${height} does not fit ${dstWidth}×${dstHeight}`);
  if (src.length < width * height * channels)
    throw new Error(`pixel buffer too short: ${src.length} < ${width * height * channels}`);
  // Plane offsets of R, G and B in the output.
  const [oR, oG, oB] = opts.order === 'bgr' ? [2 * plane, plane, 0] : [0, plane, 2 * plane];
  const gOff = channels >= 3 ? 1 : 0;
  const bOff = channels >= 3 ? 2 : 0;
  for (let y = 0; y < height; y++) {
    let si = y * width * channels;
    const rowStart = y * dstWidth;
    const rowEnd = rowStart + width;
    for (let di = rowStart; di < rowEnd; di++, si += channels) {
      dst[oR + di] = src[si];
      dst[oG + di] = src[si + gOff];
      dst[oB + di] = src[si + bOff];
    }
    if (width < dstWidth) {
      const padEnd = rowStart + dstWidth;
      dst.fill(opts.pad, rowEnd, padEnd);
      dst.fill(opts.pad, plane + rowEnd, plane + padEnd);
      dst.fill(opts.pad, 2 * plane + rowEnd, 2 * plane + padEnd);
    }
  }
  if (height < dstHeight) {
    const from = height * dstWidth;
    dst.fill(opts.pad, from, plane);
    dst.fill(opts.pad, plane + from, 2 * plane);
    dst.fill(opts.pad, 2 * plane + from, 3 * plane);
  }
}

export interface Letterboxed extends LetterboxGeometry {
  /** Planar 3×dstHeight×dstWidth tensor data. */
  tensor: Float32Array;
  /** Size of the source image as displayed (EXIF orientation applied). */
  sourceWidth: number;
  sourceHeight: number;
}

function isRawImage(image: Buffer | RawImage): image is RawImage {
  return !Buffer.isBuffer(image) && typeof image === 'object' && image !== null && 'data' in image;
}

/**
 * Decodes (or takes raw RGB), letterboxes to dstWidth×dstHeight and packs the
 * tensor (into `opts.out` when given and of the right length). Encoded input:
 * any format sharp reads (JPEG, PNG, WebP, GIF, TIFF, AVIF); the first frame
 * of animations; EXIF orientation is applied.
 */
export async function letterbox(
  image: Buffer | RawImage,
  dstWidth: number,
  dstHeight: number,
  opts: PackOptions & { out?: Float32Array } = { pad: 114, order: 'bgr' },
): Promise<Letterboxed> {
  const background = { r: opts.pad, g: opts.pad, b: opts.pad };
  let srcWidth: number;
  let srcHeight: number;
  let pipeline: Sharp;
  let direct: Uint8Array | null = null;

  if (isRawImage(image)) {
    const { data, width, height, channels } = image;
    if (channels !== 3) throw new Error(`raw images must have 3 channels (RGB), got ${channels}`);
    if (!Number.isInteger(width) || !Number.isInteger(height) || width <= 0 || height <= 0)
      throw new Error(`invalid raw image size ${width}×${height}`);
    if (data.length < width * height * 3) throw new Error(`raw image data too short for ${width}×${height}×3`);
    srcWidth = width;
    srcHeight = height;
    pipeline = sharp(data, { raw: { width, height, channels: 3 } });
    direct = data;
  } else {
    pipeline = sharp(image, { autoOrient: true, failOn: 'error' }); // tolerate what decoders only warn about, as the file layer does
    const meta = await pipeline.metadata(); // header only: no pixel decode
    srcWidth = meta.autoOrient?.width ?? meta.width ?? 0;
    srcHeight = meta.autoOrient?.height ?? meta.height ?? 0;
  }

  const geo = letterboxGeometry(srcWidth, srcHeight, dstWidth, dstHeight);
  let pixels: Uint8Array;
  let channels = 3;
  if (direct && geo.width === srcWidth && geo.height === srcHeight) {
    pixels = direct; // already the right size: no resampling
  } else {
    const { data, info } = await pipeline
      .resize(geo.width, geo.height, { fit: 'fill', kernel: 'linear' })
      .flatten({ background })
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.width !== geo.width || info.height !== geo.height) {
      throw new Error(`resize gave ${info.width}×${info.height}, expected ${geo.width}×${geo.height}`);
    }
    pixels = data;
    channels = info.channels;
  }
  // A reused tensor saves the page faults of a fresh multi-MB allocation (docs/measurements/models.md).
  const tensor =
    opts.out && opts.out.length === 3 * dstWidth * dstHeight ? opts.out : new Float32Array(3 * dstWidth * dstHeight);
  packPlanar(pixels, geo.width, geo.height, channels, tensor, dstWidth, dstHeight, opts);
  return { ...geo, tensor, sourceWidth: srcWidth, sourceHeight: srcHeight };
}
