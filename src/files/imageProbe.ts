/**
 * Reads what the library needs from an image file with sharp: upright
 * dimensions, EXIF as plain JSON, and one processed frame (upright, bounded in
 * size) that thumbnails and the vision models work from.
 *
 * Safety: the pixel count is checked from the header before any decoding, so a
 * small file that claims to be enormous (a "pixel bomb") is refused cheaply.
 */
import exifReader from 'exif-reader';
import sharp from 'sharp';
import type { Metadata, OutputInfo } from 'sharp';
import { DomainError, unprocessable } from '../platform/errors.js';
import { takenAtFromExif } from './captureTime.js';

/** What probeImage learns about an image. */
export interface ImageProbe {
  /** Width in pixels as displayed, i.e. after EXIF orientation. */
  width: number;
  /** Height in pixels as displayed, i.e. after EXIF orientation. */
  height: number;
  /** sharp's format name: jpeg, png, gif, webp, tiff, heif. */
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
}

/**
 * Whether this sharp build can decode HEVC-coded HEIC. sharp's prebuilt
 * binaries bundle libheif with the AV1 decoder only (patent reasons): AVIF
 * decodes, HEIC does not. A sharp using a system libvips reports no `heif`
 * version of its own and may have HEVC support; probeImage still maps a
 * failed decode to a clear error there.
 */
export const SHARP_CAN_DECODE_HEIC: boolean = (() => {
  const v = sharp.versions as Record<string, string | undefined>;
  if (v.heif && !v.de265 && !v.libde265) return false;
  return Boolean(sharp.format.heif?.input?.file);
})();

/** Stored image extensions (as sniffFile names them) that probeImage can decode with this sharp build. */
export const IMAGE_FORMATS_SHARP_CAN_DECODE: ReadonlySet<string> = new Set([
  'jpg',
  'png',
  'gif',
  'webp',
  'tif',
  'avif',
  ...(SHARP_CAN_DECODE_HEIC ? ['heic'] : []),
]);

/** Whether an image of this stored extension can be decoded here (false for HEIC with prebuilt sharp). */
export function canDecodeImage(ext: string): boolean {
  return IMAGE_FORMATS_SHARP_CAN_DECODE.has(ext);
}

const FRAME_QUALITY = 85;

/**
 * Probes an image file. Throws DomainError 'unprocessable' for bytes that are
 * not a decodable image or that exceed maxPixels, 'unsupported_media' for a
 * HEIC this build cannot decode.
 */
export async function probeImage(path: string, opts: ImageProbeOptions): Promise<ImageProbe> {
  const limit = Math.max(1, Math.floor(opts.maxPixels));
  // failOn 'error': tolerate what decoders only warn about (odd markers, extra
  // bytes); refuse what they cannot decode (a JPEG cut in half is refused too).
  // pages 1: animated GIF/WebP and multi-page TIFF are judged by their first page.
  const input = { limitInputPixels: limit, failOn: 'error', pages: 1 } as const;

  let meta: Metadata;
  try {
    // Header only, no decoding. sharp's metadata() applies limitInputPixels too,
    // with a vague message; lift it here so our own check below can say why.
    meta = await sharp(path, { ...input, limitInputPixels: false }).metadata();
  } catch (err) {
    throw unprocessable(`the file is not a readable image (${shortReason(err)})`);
  }
  const rawW = meta.width ?? 0;
  const rawH = meta.pageHeight ?? meta.height ?? 0;
  if (!rawW || !rawH) throw unprocessable('the image has no dimensions');
  if (rawW * rawH > limit) {
    throw unprocessable(`image is larger than ${formatMegapixels(limit)} megapixels (${rawW}x${rawH})`);
  }
  if (meta.format === 'heif' && meta.compression === 'hevc' && !SHARP_CAN_DECODE_HEIC) throw heicUnsupported();

  const orientation = meta.orientation ?? 1;
  const swap = orientation >= 5 && orientation <= 8;
  const width = swap ? rawH : rawW;
  const height = swap ? rawW : rawH;

  let exif: Record<string, unknown> = { tags: {} };
  if (meta.exif && meta.exif.length > 0) exif = exifToJson(meta.exif);

  // Keep transparency: an image with alpha becomes WebP (JPEG has no alpha).
  const ext: 'jpg' | 'webp' = meta.hasAlpha ? 'webp' : 'jpg';
  let pipeline = sharp(path, input)
    .rotate()
    .resize({ width: opts.frameMaxSide, height: opts.frameMaxSide, fit: 'inside', withoutEnlargement: true });
  pipeline =
    ext === 'webp'
      ? pipeline.webp({ quality: FRAME_QUALITY })
      : pipeline.jpeg({ quality: FRAME_QUALITY, mozjpeg: false });

  let out: { data: Buffer; info: OutputInfo };
  try {
    out = await pipeline.toBuffer({ resolveWithObject: true });
  } catch (err) {
    if (
      meta.format === 'heif' &&
      /unsupported|codec|decod/i.test(String((err as Error)?.message)) &&
      meta.compression !== 'av1'
    ) {
      throw heicUnsupported();
    }
    throw unprocessable(`the image could not be decoded (${shortReason(err)})`);
  }

  return {
    width,
    height,
    format: meta.format ?? 'unknown',
    exif,
    takenAt: takenAtFromExif(exif),
    frame: { buffer: out.data, width: out.info.width, height: out.info.height, ext },
  };
}

function heicUnsupported(): DomainError {
  return new DomainError(
    'unsupported_media',
    'HEIC images cannot be decoded by this server (its image library has no HEVC decoder); convert the photo to JPEG first',
  );
}

/** 1e8 → "100", 2.5e7 → "25", 12345678 → "12.3". */
function formatMegapixels(pixels: number): string {
  const mp = pixels / 1e6;
  return Number.isInteger(mp) ? String(mp) : String(Number(mp.toFixed(1)));
}

/** sharp's messages carry library prefixes and sometimes the server path; keep the first line, without paths. */
function shortReason(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  const line = msg
    .split('\n')[0]
    .replace(/\/[^\s:]+/g, '<file>')
    .trim();
  return line.length > 160 ? line.slice(0, 157) + '...' : line || 'unknown error';
}

// ---------------------------------------------------------------------------
// EXIF to JSON

/** Offsets to other IFDs and to the embedded thumbnail: meaningless outside the file. */
const POINTER_TAGS = new Set([
  'ExifTag',
  'GPSTag',
  'InteroperabilityTag',
  'JPEGInterchangeFormat',
  'JPEGInterchangeFormatLength',
]);
/** Groups dropped whole: IFD1 only describes the embedded thumbnail. */
const DROPPED_GROUPS = new Set(['bigEndian', 'Thumbnail']);
/** Buffers rendered as text when printable; longer ones (MakerNote) are dropped. */
const MAX_BUFFER_TEXT = 256;

/**
 * Converts a raw EXIF block (sharp's `metadata().exif`, "Exif\0\0" header
 * included) to plain JSON: the exif-reader groups (Image, Photo, GPSInfo, Iop)
 * with Dates as ISO strings, printable Buffers as strings, other Buffers
 * dropped, BigInts as numbers; plus convenience fields at the top level
 * (make, model, lensModel, dateTimeOriginal, orientation, exposureTime,
 * fNumber, iso, focalLength, latitude, longitude, altitude) and `tags: {}`.
 * Unreadable EXIF gives `{ tags: {} }`: EXIF is a nicety, never a reason to
 * refuse an image.
 *
 * Note on dates: EXIF times carry no zone. exif-reader reads them as UTC, so
 * "2008:10:22 16:28:39" becomes "2008-10-22T16:28:39.000Z": the camera's wall
 * clock, not a true instant. The capture time (`takenAt`, captureTime.ts)
 * applies OffsetTimeOriginal to it when the file has one.
 */
export function exifToJson(raw: Buffer): Record<string, unknown> {
  let parsed: Record<string, unknown>;
  try {
    parsed = exifReader(raw) as unknown as Record<string, unknown>;
  } catch {
    return { tags: {} };
  }
  const groups: Record<string, Record<string, unknown>> = {};
  for (const [name, group] of Object.entries(parsed)) {
    if (DROPPED_GROUPS.has(name) || !group || typeof group !== 'object') continue;
    const out: Record<string, unknown> = {};
    for (const [tag, value] of Object.entries(group as Record<string, unknown>)) {
      if (POINTER_TAGS.has(tag)) continue;
      const v = toJsonValue(value);
      if (v !== undefined) out[tag] = v;
    }
    if (Object.keys(out).length > 0) groups[name] = out;
  }

  const image = groups.Image ?? {};
  const photo = groups.Photo ?? {};
  const gps = groups.GPSInfo ?? {};
  const top: Record<string, unknown> = {
    make: nonEmptyString(image.Make),
    model: nonEmptyString(image.Model),
    lensModel: nonEmptyString(photo.LensModel),
    dateTimeOriginal: nonEmptyString(photo.DateTimeOriginal) ?? nonEmptyString(image.DateTime),
    orientation: finite(image.Orientation),
    exposureTime: finite(photo.ExposureTime),
    fNumber: finite(photo.FNumber),
    iso:
      finite(Array.isArray(photo.ISOSpeedRatings) ? photo.ISOSpeedRatings[0] : photo.ISOSpeedRatings) ??
      finite(photo.PhotographicSensitivity),
    focalLength: finite(photo.FocalLength),
    latitude: gpsDegrees(gps.GPSLatitude, gps.GPSLatitudeRef, 'S', 90),
    longitude: gpsDegrees(gps.GPSLongitude, gps.GPSLongitudeRef, 'W', 180),
    // The raw ref: a one-byte Buffer in some files, which the conversion above drops.
    altitude: gpsAltitude(gps.GPSAltitude, (parsed.GPSInfo as Record<string, unknown> | undefined)?.GPSAltitudeRef),
  };
  const result: Record<string, unknown> = { tags: {} };
  for (const [k, v] of Object.entries(top)) if (v !== undefined) result[k] = v;
  return { ...result, ...groups };
}

/** One EXIF value as JSON, or undefined to drop it. */
function toJsonValue(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
  if (Buffer.isBuffer(value)) return bufferText(value);
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string') {
    // EXIF strings are NUL-padded and often blank-padded (e.g. ImageDescription of 31 spaces).
    const s = value.replace(/\0/g, '').trim();
    return s === '' ? undefined : s;
  }
  if (typeof value === 'boolean') return value;
  if (Array.isArray(value)) {
    const arr = value.map(toJsonValue);
    return arr.some((v) => v === undefined) ? undefined : arr;
  }
  return undefined;
}

/**
 * A Buffer as text when it holds short printable text (ExifVersion "0230",
 * UserComment "ASCII\0\0\0hello"); otherwise undefined. Binary blobs such as
 * MakerNote would bloat every listing and mean nothing to a client.
 */
function bufferText(buf: Buffer): string | undefined {
  let b = buf;
  // UserComment starts with an 8-byte character code.
  const code = b.subarray(0, 8).toString('latin1');
  if (code === 'ASCII\0\0\0' || code === 'UNICODE\0' || code === '\0\0\0\0\0\0\0\0') b = b.subarray(8);
  if (code === 'UNICODE\0') return undefined; // UCS-2 of unknown byte order: rare, skip it
  const text = b.toString('latin1').replace(/\0+$/, '').trim();
  if (text === '' || text.length > MAX_BUFFER_TEXT || !/^[\x20-\x7e]+$/.test(text)) return undefined;
  return text;
}

function nonEmptyString(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function finite(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** [degrees, minutes, seconds] plus a hemisphere letter → signed decimal degrees, or undefined when invalid. */
function gpsDegrees(dms: unknown, ref: unknown, negativeRef: string, max: number): number | undefined {
  let deg: number | undefined;
  if (Array.isArray(dms) && dms.length > 0 && dms.every((x) => typeof x === 'number' && Number.isFinite(x))) {
    const [d, m = 0, s = 0] = dms as number[];
    deg = d + m / 60 + s / 3600;
  } else {
    deg = finite(dms);
  }
  if (deg === undefined || deg < 0 || deg > max) return undefined;
  if (typeof ref === 'string' && ref.trim().toUpperCase() === negativeRef) deg = -deg;
  return Math.round(deg * 1e7) / 1e7; // ~1 cm: more digits are noise
}

/** GPSAltitude in metres; GPSAltitudeRef 1 means below sea level. */
function gpsAltitude(alt: unknown, ref: unknown): number | undefined {
  const a = finite(alt);
  if (a === undefined) return undefined;
  const below = ref === 1 || (Buffer.isBuffer(ref) && ref[0] === 1) || ref === '1';
  return below ? -a : a;
}
