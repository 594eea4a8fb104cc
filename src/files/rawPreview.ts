/**
 * The picture of a camera RAW: the largest JPEG the camera (or the converter
 * that wrote a DNG) embedded in it, read with ExifTool. Sensor data is never
 * developed here: that needs LibRaw, whose answers differ from the camera's own
 * rendering anyway, and most RAWs carry a full-size JPEG for exactly this use.
 *
 * Decided where the issue is silent: a preview whose long side is at least
 * MIN_PREVIEW_SIDE is used even when it is smaller than the sensor (a DNG from
 * Adobe's converter may embed only a 256 px one); the item keeps the sensor's
 * dimensions and `exif.rawPreview` says how big the picture we show is. A RAW
 * with no usable preview is refused with a reason.
 */
import sharp from 'sharp';
import { DomainError, unprocessable } from '../platform/errors.js';
import { readEmbedded, type Tags } from './exifTool.js';

/** A preview smaller than this on its long side is a thumbnail, too small to show or analyse. */
export const MIN_PREVIEW_SIDE = 256;

/** Embedded JPEGs in the order ExifTool's documentation ranks them: full size first. */
const PREVIEW_TAGS = ['JpgFromRaw', 'PreviewImage', 'OtherImage', 'ThumbnailImage'] as const;

/** One embedded JPEG: its bytes and stored (not yet turned) pixel size. */
export interface RawPreview {
  jpeg: Buffer;
  width: number;
  height: number;
  /** The tag it came from. */
  tag: string;
}

/**
 * The largest usable embedded JPEG of a RAW. Throws 'unprocessable' when there is none (a RAW we cannot show),
 * with words saying why; 'unavailable' when ExifTool did not run (`tags` null).
 */
export async function extractRawPreview(file: string, tags: Tags | null): Promise<RawPreview> {
  // ExifTool answers every readable file with tags (an unknown format with an Error tag): none means it did not run.
  if (!tags) {
    throw new DomainError(
      'unavailable',
      'camera RAW files are read with ExifTool, which cannot run on this server (it needs Perl)',
    );
  }
  const present = PREVIEW_TAGS.filter((t) => t in tags);
  let best: RawPreview | null = null;
  for (const tag of present) {
    const jpeg = await readEmbedded(tag, file);
    if (!jpeg) continue;
    const meta = await sharp(jpeg)
      .metadata()
      .catch(() => null);
    if (!meta?.width || !meta.height || meta.format !== 'jpeg') continue;
    if (!best || meta.width * meta.height > best.width * best.height) {
      best = { jpeg, width: meta.width, height: meta.height, tag };
    }
  }
  if (!best || Math.max(best.width, best.height) < MIN_PREVIEW_SIDE) {
    const found = best ? ` (only a ${best.width}x${best.height} thumbnail)` : '';
    throw unprocessable(
      `this RAW file has no embedded preview image we can show${found}; this server does not develop RAW sensor ` +
        'data, so export a JPEG or DNG with a full-size preview from your RAW converter',
    );
  }
  return best;
}
