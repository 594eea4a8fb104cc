/**
 * The working image of an edit: raw 8-bit sRGB pixels (3 channels, or 4 with
 * alpha), decoded once, upright. Every operation takes one and returns a new
 * one, so each step is a complete, predictable sharp pipeline (sharp reorders
 * operations inside one pipeline; a raw hand-over between steps keeps the
 * prompt's order) and the result does not depend on how steps are grouped.
 */
import sharp, { type Sharp } from 'sharp';
import { unprocessable } from '../../../platform/errors.js';
import type { EditOperation, OutputFormat } from '../types.js';
import type { Services } from '../../kernel/services.js';

export interface Work {
  data: Buffer;
  width: number;
  height: number;
  channels: 3 | 4;
}

/** What the edit operations use of the services: limits, the device, the models, the log. */
export type EditDeps = Pick<Services, 'config' | 'logger' | 'models'>;

/** What the operations share while one plan runs. */
export interface EditContext {
  deps: EditDeps;
  /** Things the answer should mention (a fallback taken, a format switched). */
  notes: string[];
  /** Model (catalog name) used per purpose, e.g. { upscale: 'swin2sr-x2' }. */
  models: Record<string, string>;
}

export type Operation<O extends EditOperation = EditOperation> = (w: Work, op: O, ctx: EditContext) => Promise<Work>;

/** Decodes encoded bytes into an upright 8-bit sRGB working image (EXIF orientation applied, metadata dropped). */
export async function decode(bytes: Buffer, maxPixels: number): Promise<Work> {
  try {
    return await fromSharp(sharp(bytes, { limitInputPixels: maxPixels }).autoOrient());
  } catch (err) {
    throw unprocessable(`image could not be decoded: ${(err as Error).message}`);
  }
}

/** A sharp pipeline reading the working image. */
export function toSharp(w: Work): Sharp {
  return sharp(w.data, { raw: { width: w.width, height: w.height, channels: w.channels } });
}

/** Runs a pipeline to raw 8-bit sRGB with 3 or 4 channels. */
export async function fromSharp(img: Sharp): Promise<Work> {
  const { data, info } = await img.toColourspace('srgb').raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  if (info.channels === 3 || info.channels === 4)
    return { data, width: info.width, height: info.height, channels: info.channels };
  if (info.channels !== 1 && info.channels !== 2) throw unprocessable(`unsupported channel count ${info.channels}`);
  // One or two channels (a grey input sharp kept grey): expand to RGB(A) in a second sharp pass, off this thread.
  const grey = await sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
    .toColourspace('srgb')
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  if (grey.info.channels !== 3 && grey.info.channels !== 4)
    throw unprocessable(`unsupported channel count ${grey.info.channels}`);
  return { data: grey.data, width: info.width, height: info.height, channels: grey.info.channels };
}

/** Raw-input options for a buffer of `channels` bands the size of `w`. */
export const rawOf = (w: { width: number; height: number }, channels: 1 | 2 | 3 | 4) => ({
  raw: { width: w.width, height: w.height, channels },
});

/*
 * Pixel work below runs in sharp (libvips on libuv's thread pool), never in a
 * JavaScript loop over the pixels: on a large photo such a loop would block the
 * HTTP thread (numbers: docs/measurements/features.md).
 */

/** Splits off the alpha channel: colour operations then never touch transparency. */
export async function splitAlpha(w: Work): Promise<{ rgb: Work; alpha: Buffer | null }> {
  if (w.channels === 3) return { rgb: w, alpha: null };
  const [rgb, alpha] = await Promise.all([
    toSharp(w).removeAlpha().raw().toBuffer(),
    toSharp(w).extractChannel(3).raw().toBuffer(),
  ]);
  return { rgb: { data: rgb, width: w.width, height: w.height, channels: 3 }, alpha };
}

/** Puts an alpha channel (one byte a pixel, same size) back on an RGB image. */
export async function joinAlpha(rgb: Work, alpha: Buffer | null): Promise<Work> {
  if (!alpha) return rgb;
  const data = await toSharp(rgb).joinChannel(alpha, rawOf(rgb, 1)).raw().toBuffer();
  return { data, width: rgb.width, height: rgb.height, channels: 4 };
}

/** Runs a colour step on the RGB channels only, keeping alpha as it was. */
export async function onColour(w: Work, step: (img: Sharp) => Sharp): Promise<Work> {
  const { rgb, alpha } = await splitAlpha(w);
  const out = await fromSharp(step(toSharp(rgb)));
  return joinAlpha(out.channels === 3 ? out : (await splitAlpha(out)).rgb, alpha);
}

/** Bytes compared per turn of the event loop by allBytes (memcmp of 1 MiB: well under a millisecond). */
const COMPARE_BLOCK = 1 << 20;
const constantBlocks = new Map<number, Buffer>();

/**
 * Whether every byte of `buf` is `value`: a native compare (memcmp) against a
 * constant block, one block a turn of the event loop, so even a 12 MP image
 * holds the thread for a fraction of a millisecond at a time.
 */
async function allBytes(buf: Buffer, value: number): Promise<boolean> {
  let block = constantBlocks.get(value);
  if (!block) constantBlocks.set(value, (block = Buffer.alloc(COMPARE_BLOCK, value)));
  for (let start = 0; start < buf.length; start += COMPARE_BLOCK) {
    if (start > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const end = Math.min(buf.length, start + COMPARE_BLOCK);
    if (buf.compare(block, 0, end - start, start, end) !== 0) return false;
  }
  return true;
}

/** Whether any pixel is not fully opaque: the alpha channel, extracted by sharp, is compared with 255s. */
export async function hasTransparency(w: Work): Promise<boolean> {
  if (w.channels === 3) return false;
  return !(await allBytes(await toSharp(w).extractChannel(3).raw().toBuffer(), 255));
}

/** Pixels looked at in JavaScript before the full check: a colour image nearly always shows colour among them. */
const GREY_SAMPLE = 4096;

/**
 * Whether every pixel has R = G = B (a black-and-white result), so it can be
 * stored as one grey channel. A strided sample of GREY_SAMPLE pixels first
 * (bounded work on this thread, and the usual answer for a colour photo);
 * when all of those are grey, the full check: sharp computes the cyclic
 * differences R−G, G−B, B−R, which the 8-bit cast clamps at 0, and all of
 * them are 0 only when R = G = B (each is ≤ 0 and the three sum to 0).
 */
export async function isGrey(w: Work): Promise<boolean> {
  const d = w.data;
  const c = w.channels;
  const n = w.width * w.height;
  const stride = Math.max(1, Math.floor(n / GREY_SAMPLE));
  for (let p = 0; p < n; p += stride) {
    const i = p * c;
    if (d[i] !== d[i + 1] || d[i] !== d[i + 2]) return false;
  }
  if (stride === 1) return true;
  const diff = await toSharp(w)
    .removeAlpha()
    .recomb([
      [1, -1, 0],
      [0, 1, -1],
      [-1, 0, 1],
    ])
    .raw({ depth: 'uchar' })
    .toBuffer();
  return allBytes(diff, 0);
}

/** The image without its alpha channel (dropped, not flattened). */
export async function dropAlpha(w: Work): Promise<Work> {
  return w.channels === 3 ? w : (await splitAlpha(w)).rgb;
}

/** Composites onto an opaque colour. */
export async function flatten(w: Work, background: { r: number; g: number; b: number }): Promise<Work> {
  if (w.channels === 3) return w;
  return fromSharp(toSharp(w).flatten({ background }));
}

/**
 * Encodes with fixed settings and no metadata, so the same pixels always give
 * the same bytes. A black-and-white result is stored as a grey image (exactly
 * equal channels when decoded, and smaller).
 */
export async function encode(w: Work, format: OutputFormat, quality: number): Promise<Buffer> {
  let img: Sharp;
  if (format !== 'webp' && (await isGrey(w))) {
    // The red channel is the grey; alpha (if any) joins it as the second band.
    const [grey, alpha] = await Promise.all([
      toSharp(w).extractChannel(0).raw().toBuffer(),
      w.channels === 4 ? toSharp(w).extractChannel(3).raw().toBuffer() : null,
    ]);
    img = sharp(grey, rawOf(w, 1));
    if (alpha) img = img.joinChannel(alpha, rawOf(w, 1));
    img = img.toColourspace('b-w');
  } else {
    img = toSharp(w);
  }
  switch (format) {
    case 'jpg':
      return img
        .jpeg({ quality, chromaSubsampling: quality >= 90 ? '4:4:4' : '4:2:0', mozjpeg: false, progressive: false })
        .toBuffer();
    case 'png':
      return img.png({ compressionLevel: 6, adaptiveFiltering: false, palette: false }).toBuffer();
    case 'webp':
      return img.webp({ quality, effort: 4, smartSubsample: false }).toBuffer();
  }
}

/** PNG bytes for handing the working image to a model (fast, lossless). */
export function toPng(w: Work): Promise<Buffer> {
  return toSharp(w).png({ compressionLevel: 1, adaptiveFiltering: false }).toBuffer();
}

/** Longer side, for sizes given relative to the image. */
export const longSide = (w: Work) => Math.max(w.width, w.height);
