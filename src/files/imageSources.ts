/**
 * Where an image's pixels come from before sharp resizes them (imageProbe.ts):
 *
 *  - `sharp`: the file itself (JPEG, PNG, WebP, GIF, TIFF, AVIF; HEIC where sharp has HEVC);
 *  - `heif`:  libheif in WebAssembly, in a worker thread (heic/heicDecode.ts), for HEIC without it;
 *  - `raw`:   the largest JPEG a camera RAW embeds (rawPreview.ts);
 *  - `sequence`: the first frame of an animated AVIF, decoded by ffmpeg (firstFrame.ts).
 *
 * Each source says the header facts (for the pixel limit, checked before any decoding) and gives a sharp
 * pipeline that yields the picture upright.
 */
import sharp from 'sharp';
import type { Metadata, Sharp, SharpOptions } from 'sharp';
import { unprocessable } from '../platform/errors.js';
import type { Tags } from './exifTool.js';
import { firstFramePng } from './firstFrame.js';
import { decodeHeic } from './heic/heicDecode.js';
import { missingBoxBytes } from './isoBoxes.js';
import { extractRawPreview } from './rawPreview.js';

/**
 * Whether this sharp build can decode HEVC-coded HEIC. sharp's prebuilt
 * binaries bundle libheif with the AV1 decoder only (patent reasons): AVIF
 * decodes, HEIC does not, and goes to libheif in WebAssembly instead
 * (heic/heicDecode.ts). A sharp using a system libvips reports no `heif`
 * version of its own and may have HEVC support.
 */
export const SHARP_CAN_DECODE_HEIC: boolean = (() => {
  const v = sharp.versions as Record<string, string | undefined>;
  if (v.heif && !v.de265 && !v.libde265) return false;
  return Boolean(sharp.format.heif?.input?.file);
})();

/** How an image's pixels are read. */
export type ImageDecoder = 'sharp' | 'heif' | 'raw' | 'sequence';

/** What some sources need beside the file: ExifTool's tags (RAW, sequence), ffmpeg (sequence). */
export interface SourceExtras {
  tags?: Tags | null;
  ffmpegPath?: string;
}

/** Header facts and a way to the upright picture. */
export interface ImageSource {
  /** sharp's header metadata of what is decoded (for a RAW: of its preview). */
  meta: Metadata;
  /** Stored pixel size of one page of what is decoded, for the pixel limit. */
  pixelWidth: number;
  pixelHeight: number;
  /** The item's upright size: the picture's, or for a RAW the sensor image's as ExifTool reads it. */
  width: number;
  height: number;
  /** A fresh pipeline giving the picture upright (orientation applied, no orientation tag left). */
  upright(): Promise<Sharp>;
  /** Extra facts for the item's `exif` (a RAW says which preview it is shown from). */
  exifExtras: Record<string, unknown>;
}

/** Options every source reads with: the pixel limit; failOn 'error'; the first page only. */
export function inputOptions(limit: number) {
  return { limitInputPixels: limit, failOn: 'error', pages: 1 } as const satisfies SharpOptions;
}

/** Header metadata, without the pixel limit (checked by the caller with a clear message). */
async function header(input: string | Buffer, limit: number): Promise<Metadata> {
  try {
    return await sharp(input, { ...inputOptions(limit), limitInputPixels: false }).metadata();
  } catch (err) {
    throw unprocessable(`the file is not a readable image (${shortReason(err)})`);
  }
}

const swaps = (orientation: number) => orientation >= 5 && orientation <= 8;

/** Opens the source of an image file for the given decoder. */
export async function openImageSource(
  path: string,
  decoder: ImageDecoder,
  limit: number,
  extras: SourceExtras = {},
): Promise<ImageSource> {
  if (decoder === 'raw') return rawSource(path, limit, extras.tags ?? null);
  if (decoder === 'sequence') return sequenceSource(path, limit, extras);
  const meta = await header(path, limit);
  const w = meta.width ?? 0;
  const h = meta.pageHeight ?? meta.height ?? 0;
  // A file sniffed as AVIF by a generic brand may still be HEVC inside.
  const hevc = meta.format === 'heif' && meta.compression === 'hevc' && !SHARP_CAN_DECODE_HEIC;
  if (decoder === 'heif' || hevc) return heifSource(path, meta, w, h, limit);
  const turn = swaps(meta.orientation ?? 1);
  return {
    meta,
    pixelWidth: w,
    pixelHeight: h,
    width: turn ? h : w,
    height: turn ? w : h,
    upright: async () => sharp(path, inputOptions(limit)).rotate(),
    exifExtras: {},
  };
}

/** HEIC through libheif: rotation and mirroring (irot, imir) are applied by the decoder itself. */
async function heifSource(path: string, meta: Metadata, w: number, h: number, limit: number): Promise<ImageSource> {
  const missing = await missingBoxBytes(path);
  if (missing > 0) throw unprocessable(`the HEIC file is truncated (${missing} bytes of its data are missing)`);
  checkPixels(w, h, limit); // before decoding: the decoder holds the whole image
  // Decoded now: the item's size is the decoded picture's, after the file's rotation (irot) is applied.
  const px = await decodeHeic(path);
  const raw = { width: px.width, height: px.height, channels: px.channels };
  return {
    meta,
    pixelWidth: w,
    pixelHeight: h,
    width: px.width,
    height: px.height,
    upright: async () => {
      const image = sharp(px.data, { raw, limitInputPixels: limit });
      return meta.hasAlpha ? image : image.removeAlpha();
    },
    exifExtras: {},
  };
}

/** Refuses an image of more than `limit` pixels, saying its size and the limit. */
export function checkPixels(w: number, h: number, limit: number): void {
  if (!w || !h) throw unprocessable('the image has no dimensions');
  if (w * h > limit) throw unprocessable(`image is larger than ${formatMegapixels(limit)} megapixels (${w}x${h})`);
}

/** 1e8 → "100", 2.5e7 → "25", 12345678 → "12.3". */
function formatMegapixels(pixels: number): string {
  const mp = pixels / 1e6;
  return Number.isInteger(mp) ? String(mp) : String(Number(mp.toFixed(1)));
}

/** A RAW through its embedded JPEG, turned by the preview's own orientation when it has one, else the RAW's. */
async function rawSource(path: string, limit: number, tags: Tags | null): Promise<ImageSource> {
  const preview = await extractRawPreview(path, tags);
  const meta = await header(preview.jpeg, limit);
  // The preview's own tag when it says a turn; else the RAW's (previews are mostly stored as the sensor was).
  const own = meta.orientation && meta.orientation !== 1 ? meta.orientation : null;
  const orientation = own ?? numberOr(tags?.Orientation, 1);
  const turn = swaps(orientation);
  const pw = turn ? preview.height : preview.width;
  const ph = turn ? preview.width : preview.height;
  const sw = numberOr(tags?.ImageWidth, 0);
  const sh = numberOr(tags?.ImageHeight, 0);
  // The sensor image's size when ExifTool knows it and it has the preview's shape; else the preview's.
  const sensor = sw > 0 && sh > 0 && Math.abs(sw / sh - preview.width / preview.height) < 0.05;
  return {
    meta,
    pixelWidth: preview.width,
    pixelHeight: preview.height,
    width: sensor ? (turn ? sh : sw) : pw,
    height: sensor ? (turn ? sw : sh) : ph,
    upright: async () => orient(sharp(preview.jpeg, inputOptions(limit)), own ? null : orientation),
    exifExtras: { rawPreview: { tag: preview.tag, width: pw, height: ph } },
  };
}

/**
 * The first frame of an image sequence. Its size is checked against the limit from ExifTool's header read
 * before ffmpeg decodes anything; the PNG ffmpeg writes is already upright.
 */
async function sequenceSource(path: string, limit: number, extras: SourceExtras): Promise<ImageSource> {
  const w = numberOr(extras.tags?.ImageWidth, 0);
  const h = numberOr(extras.tags?.ImageHeight, 0);
  if (w && h) checkPixels(w, h, limit);
  if (!extras.ffmpegPath) throw unprocessable('the image sequence cannot be decoded here (no ffmpeg)');
  const png = await firstFramePng(path, extras.ffmpegPath);
  const meta = await header(png, limit);
  const pw = meta.width ?? 0;
  const ph = meta.height ?? 0;
  return {
    meta,
    pixelWidth: pw,
    pixelHeight: ph,
    width: pw,
    height: ph,
    upright: async () => sharp(png, inputOptions(limit)),
    exifExtras: { sequence: true },
  };
}

/**
 * Applies an EXIF orientation (1–8) by hand, for a picture that does not carry it; null: its own tag. sharp
 * mirrors before it rotates, hence 5 = mirror + 270° and 7 = mirror + 90° (checked against its own rotate()).
 */
export function orient(image: Sharp, orientation: number | null): Sharp {
  if (orientation === null) return image.rotate();
  const turns: Record<number, [number, boolean]> = {
    2: [0, true],
    3: [180, false],
    4: [180, true],
    5: [270, true],
    6: [90, false],
    7: [90, true],
    8: [270, false],
  };
  const [angle, mirror] = turns[orientation] ?? [0, false];
  const turned = angle ? image.rotate(angle) : image;
  return mirror ? turned.flop() : turned;
}

function numberOr(v: unknown, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

/** sharp's messages carry library prefixes and sometimes the server path; keep the first line, without paths. */
export function shortReason(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  const line = msg
    .split('\n')[0]
    .replace(/\/[^\s:]+/g, '<file>')
    .trim();
  return line.length > 160 ? line.slice(0, 157) + '...' : line || 'unknown error';
}
