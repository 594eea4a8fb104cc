/**
 * The working image of an edit: raw 8-bit sRGB pixels (3 channels, or 4 with
 * alpha), decoded once, upright. Every operation takes one and returns a new
 * one, so each step is a complete, predictable sharp pipeline (sharp reorders
 * operations inside one pipeline; a raw hand-over between steps keeps the
 * prompt's order) and the result does not depend on how steps are grouped.
 */
import sharp, { type Sharp } from 'sharp';
import { unprocessable } from '../../errors.js';
import type { EditOperation, OutputFormat } from '../types.js';
import type { Services } from '../../domain/services.js';

export interface Work {
  data: Buffer;
  width: number;
  height: number;
  channels: 3 | 4;
}

/** What the operations share while one plan runs. */
export interface EditContext {
  s: Services;
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
  if (info.channels === 3 || info.channels === 4) return { data, width: info.width, height: info.height, channels: info.channels };
  // One or two channels (a grey input): expand to RGB(A).
  const grey = info.channels === 1 || info.channels === 2;
  if (!grey) throw unprocessable(`unsupported channel count ${info.channels}`);
  const n = info.width * info.height;
  const out = Buffer.alloc(n * (info.channels + 2));
  const oc = info.channels + 2;
  for (let i = 0; i < n; i++) {
    const v = data[i * info.channels];
    out[i * oc] = v;
    out[i * oc + 1] = v;
    out[i * oc + 2] = v;
    if (oc === 4) out[i * oc + 3] = data[i * info.channels + 1];
  }
  return { data: out, width: info.width, height: info.height, channels: oc as 3 | 4 };
}

/** Splits off the alpha channel: colour operations then never touch transparency. */
export function splitAlpha(w: Work): { rgb: Work; alpha: Buffer | null } {
  if (w.channels === 3) return { rgb: w, alpha: null };
  const n = w.width * w.height;
  const rgb = Buffer.alloc(n * 3);
  const alpha = Buffer.alloc(n);
  for (let i = 0, j = 0; i < n; i++, j += 4) {
    rgb[i * 3] = w.data[j];
    rgb[i * 3 + 1] = w.data[j + 1];
    rgb[i * 3 + 2] = w.data[j + 2];
    alpha[i] = w.data[j + 3];
  }
  return { rgb: { data: rgb, width: w.width, height: w.height, channels: 3 }, alpha };
}

/** Puts an alpha channel (one byte a pixel, same size) back on an RGB image. */
export function joinAlpha(rgb: Work, alpha: Buffer | null): Work {
  if (!alpha) return rgb;
  const n = rgb.width * rgb.height;
  const out = Buffer.alloc(n * 4);
  for (let i = 0, j = 0; i < n; i++, j += 4) {
    out[j] = rgb.data[i * 3];
    out[j + 1] = rgb.data[i * 3 + 1];
    out[j + 2] = rgb.data[i * 3 + 2];
    out[j + 3] = alpha[i];
  }
  return { data: out, width: rgb.width, height: rgb.height, channels: 4 };
}

/** Runs a colour step on the RGB channels only, keeping alpha as it was. */
export async function onColour(w: Work, step: (img: Sharp) => Sharp): Promise<Work> {
  const { rgb, alpha } = splitAlpha(w);
  const out = await fromSharp(step(toSharp(rgb)));
  return joinAlpha(out.channels === 3 ? out : splitAlpha(out).rgb, alpha);
}

/** Whether any pixel is not fully opaque. */
export function hasTransparency(w: Work): boolean {
  if (w.channels === 3) return false;
  for (let j = 3; j < w.data.length; j += 4) if (w.data[j] !== 255) return true;
  return false;
}

/** Whether every pixel has R = G = B (a black-and-white result), so it can be stored as one grey channel. */
export function isGrey(w: Work): boolean {
  const d = w.data;
  const c = w.channels;
  for (let i = 0; i < d.length; i += c) if (d[i] !== d[i + 1] || d[i] !== d[i + 2]) return false;
  return true;
}

/** The image without its alpha channel (dropped, not flattened). */
export function dropAlpha(w: Work): Work {
  return w.channels === 3 ? w : splitAlpha(w).rgb;
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
  if (format !== 'webp' && isGrey(w)) {
    const n = w.width * w.height;
    const gc = w.channels === 4 ? 2 : 1;
    const grey = Buffer.alloc(n * gc);
    for (let i = 0; i < n; i++) {
      grey[i * gc] = w.data[i * w.channels];
      if (gc === 2) grey[i * gc + 1] = w.data[i * w.channels + 3];
    }
    img = sharp(grey, { raw: { width: w.width, height: w.height, channels: gc as 1 | 2 } }).toColourspace('b-w');
  } else {
    img = toSharp(w);
  }
  switch (format) {
    case 'jpg':
      return img.jpeg({ quality, chromaSubsampling: quality >= 90 ? '4:4:4' : '4:2:0', mozjpeg: false, progressive: false }).toBuffer();
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
