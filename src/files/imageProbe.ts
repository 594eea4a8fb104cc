/**
 * Reads what the library needs from an image file: upright
 * dimensions, EXIF as plain JSON, and one processed frame (upright, bounded in
 * size) that thumbnails and the vision models work from.
 *
 * Safety: the pixel count is checked from the header before any decoding, so a
 * small file that claims to be enormous (a "pixel bomb") is refused cheaply.
 */
import sharp from 'sharp';
import type { OutputInfo } from 'sharp';
import { DomainError, unprocessable } from '../platform/errors.js';
import { takenAtFromExif } from './captureTime.js';
import type { Tags } from './exifTool.js';
import { exifToJson } from './exifJson.js';
import { SHARP_CAN_DECODE_HEIC, checkPixels, openImageSource, shortReason, type ImageDecoder } from './imageSources.js';
import { isRawExt } from './rawFormats.js';

export { exifToJson } from './exifJson.js';
export { SHARP_CAN_DECODE_HEIC } from './imageSources.js';

/** What probeImage learns about an image. */
export interface ImageProbe {
  /** Width in pixels as displayed, i.e. after EXIF orientation. */
  width: number;
  /** Height in pixels as displayed, i.e. after EXIF orientation. */
  height: number;
  /** sharp's format name of what was decoded: jpeg, png, gif, webp, tiff, heif (a RAW: its preview's, jpeg). */
  format: string;
  /** EXIF as JSON: groups (Image, Photo, GPSInfo, Iop), convenience fields, and always `tags: {}`. */
  exif: Record<string, unknown>;
  /** When the photo was taken (EXIF DateTimeOriginal, else DateTimeDigitized), ISO UTC; null when unknown (captureTime.ts). */
  takenAt: string | null;
  /** The processed frame, ready for BlobStore.putBuffer(frame.buffer, frame.ext). */
  frame: { buffer: Buffer; width: number; height: number; ext: 'jpg' | 'png' | 'webp' };
}

export interface ImageProbeOptions {
  /** Largest accepted width × height (of one page). */
  maxPixels: number;
  /** The frame fits inside frameMaxSide × frameMaxSide; smaller images are not enlarged. */
  frameMaxSide: number;
  /** How the pixels are read (imageDecoderFor); default sharp. */
  decoder?: ImageDecoder;
  /** ExifTool's tags of the file, when read: a RAW's preview choice and orientation use them. */
  tags?: Tags | null;
  /** The ffmpeg executable, for the first frame of an image sequence. */
  ffmpegPath?: string;
}

/** Stored image extensions (as sniffFile names them) that sharp itself can decode with this build. */
export const IMAGE_FORMATS_SHARP_CAN_DECODE: ReadonlySet<string> = new Set([
  'jpg',
  'png',
  'gif',
  'webp',
  'tif',
  'avif',
  ...(SHARP_CAN_DECODE_HEIC ? ['heic'] : []),
  // The prebuilt sharp has no JPEG XL input; a sharp over a system libvips with libjxl has.
  ...(sharp.format.jxl?.input?.file ? ['jxl'] : []),
]);

/**
 * How an image of this stored extension is decoded here: sharp, libheif (HEIC where sharp has no HEVC), a
 * RAW's embedded preview; null when it cannot be (JPEG XL: no decoder in this sharp build).
 */
export function imageDecoderFor(ext: string): ImageDecoder | null {
  if (IMAGE_FORMATS_SHARP_CAN_DECODE.has(ext)) return 'sharp';
  if (ext === 'heic') return 'heif';
  if (isRawExt(ext)) return 'raw';
  return null;
}

/** Whether an image of this stored extension can be decoded here. */
export function canDecodeImage(ext: string): boolean {
  return imageDecoderFor(ext) !== null;
}

const FRAME_QUALITY = 85;
/** sharp stops a decode + resize + encode that takes longer (a 100-megapixel TIFF takes a few seconds). */
export const SHARP_TIMEOUT_SECONDS = 60;

/**
 * Probes an image file. Throws DomainError 'unprocessable' for bytes that are
 * not a decodable image or that exceed maxPixels.
 */
export async function probeImage(path: string, opts: ImageProbeOptions): Promise<ImageProbe> {
  const limit = Math.max(1, Math.floor(opts.maxPixels));
  // sharp's header read applies limitInputPixels too, with a vague message; the
  // source reads it without, so that the check below can say why.
  const source = await openImageSource(path, opts.decoder ?? 'sharp', limit, opts);
  const { meta, pixelWidth: rawW, pixelHeight: rawH } = source;
  checkPixels(rawW, rawH, limit);

  let exif: Record<string, unknown> = { tags: {} };
  if (meta.exif && meta.exif.length > 0) exif = exifToJson(meta.exif);
  exif = { ...exif, ...source.exifExtras };

  // Keep transparency: an image with alpha becomes WebP (JPEG has no alpha).
  const ext: 'jpg' | 'webp' = meta.hasAlpha ? 'webp' : 'jpg';
  let out: { data: Buffer; info: OutputInfo };
  try {
    let pipeline = (await source.upright())
      .timeout({ seconds: SHARP_TIMEOUT_SECONDS })
      .resize({ width: opts.frameMaxSide, height: opts.frameMaxSide, fit: 'inside', withoutEnlargement: true });
    pipeline =
      ext === 'webp'
        ? pipeline.webp({ quality: FRAME_QUALITY })
        : pipeline.jpeg({ quality: FRAME_QUALITY, mozjpeg: false });
    out = await pipeline.toBuffer({ resolveWithObject: true });
  } catch (err) {
    if (err instanceof DomainError) throw err;
    throw unprocessable(`the image could not be decoded (${shortReason(err)})`);
  }

  return {
    width: source.width,
    height: source.height,
    format: meta.format ?? 'unknown',
    exif,
    takenAt: takenAtFromExif(exif),
    frame: { buffer: out.data, width: out.info.width, height: out.info.height, ext },
  };
}
