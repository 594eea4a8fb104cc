/**
 * ×2 super-resolution with Swin2SR through the real transformers.js classes
 * (AutoProcessor → Swin2SRImageProcessor, AutoModelForImageToImage →
 * Swin2SRForImageSuperResolution), run tile by tile.
 *
 * Why tiles: Swin2SR's cost and memory grow with the pixel count (about 12
 * million multiply-adds per input pixel for the classical ×2 model, and
 * activations of 180 floats per pixel per layer), so a whole photo in one run
 * would need gigabytes. Each tile is TILE px square (input side) and is run
 * with OVERLAP px of its neighbours around it; only the tile's own part of the
 * output is kept, so seams get the context of both sides and no blending is
 * needed. The processor pads each run to the model's window size (8);
 * the padding is cropped off again.
 *
 * Alpha: the model sees the colour channels as stored (not flattened on a
 * background, which would wash out translucent pixels once the alpha is put
 * back); the alpha channel, when there is one, is upscaled separately with
 * Lanczos and put back.
 */
import sharp from 'sharp';
import { AutoModelForImageToImage, RawImage } from '@huggingface/transformers';
import { DomainError } from '../../platform/errors.js';
import type { ModelEntry } from '../catalog.js';
import type { EngineContext } from './context.js';
import { loadProcessorModel, type ProcessorModel } from './processorModel.js';

/** Input side of one tile, a multiple of the model's window size. */
export const TILE = 256;
/** Context taken from each neighbour of a tile (input px), discarded from the output. */
export const OVERLAP = 16;
/** Smallest side handed to the processor: its symmetric padding needs a few pixels to mirror. */
const MIN_SIDE = 16;

/** Upright RGB pixels (alpha removed, colours as stored) and, when the image has one, its alpha channel. */
async function decode(
  bytes: Uint8Array,
  maxPixels: number,
): Promise<{ rgb: Buffer; alpha: Buffer | null; width: number; height: number }> {
  try {
    const base = sharp(bytes, { limitInputPixels: maxPixels, failOn: 'error' }).rotate();
    const meta = await sharp(bytes, { limitInputPixels: maxPixels }).metadata();
    const { data: rgb, info } = await base
      .clone()
      .toColourspace('srgb')
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const alpha = meta.hasAlpha ? await base.clone().toColourspace('srgb').extractChannel(3).raw().toBuffer() : null;
    return { rgb, alpha, width: info.width, height: info.height };
  } catch (err) {
    throw new DomainError('unprocessable', `cannot decode image: ${(err as Error).message}`);
  }
}

/** Tile starts along one axis: as few tiles of at most TILE px as cover `size`, of near-equal sizes. */
export function tileEdges(size: number): number[] {
  const n = Math.max(1, Math.ceil(size / TILE));
  return Array.from({ length: n + 1 }, (_, i) => Math.round((i * size) / n));
}

/** Copies the region [x0,x1)×[y0,y1) of an RGB buffer, repeating edge pixels up to MIN_SIDE. */
function region(rgb: Buffer, width: number, height: number, x0: number, y0: number, x1: number, y1: number): RawImage {
  const w = Math.max(MIN_SIDE, x1 - x0);
  const h = Math.max(MIN_SIDE, y1 - y0);
  const out = new Uint8ClampedArray(w * h * 3);
  for (let y = 0; y < h; y++) {
    const sy = Math.min(y0 + y, y1 - 1, height - 1);
    for (let x = 0; x < w; x++) {
      const sx = Math.min(x0 + x, x1 - 1, width - 1);
      const s = (sy * width + sx) * 3;
      const d = (y * w + x) * 3;
      out[d] = rgb[s];
      out[d + 1] = rgb[s + 1];
      out[d + 2] = rgb[s + 2];
    }
  }
  return new RawImage(out, w, h, 3);
}

/** Runs the model over every tile; returns the upscaled RGB pixels and the scale the model applied. */
async function upscaleTiles(
  up: ProcessorModel,
  rgb: Buffer,
  width: number,
  height: number,
): Promise<{ data: Buffer; scale: number }> {
  const xs = tileEdges(width);
  const ys = tileEdges(height);
  let scale = 0;
  let out: Buffer | null = null;
  for (let ty = 0; ty + 1 < ys.length; ty++) {
    for (let tx = 0; tx + 1 < xs.length; tx++) {
      const [x0, x1, y0, y1] = [xs[tx], xs[tx + 1], ys[ty], ys[ty + 1]];
      const rx0 = Math.max(0, x0 - OVERLAP);
      const ry0 = Math.max(0, y0 - OVERLAP);
      const rx1 = Math.min(width, x1 + OVERLAP);
      const ry1 = Math.min(height, y1 + OVERLAP);
      const inputs = await up.processor(region(rgb, width, height, rx0, ry0, rx1, ry1));
      const { reconstruction } = await up.model({ pixel_values: inputs.pixel_values });
      if (!reconstruction) throw new DomainError('unavailable', 'the upscaler has no reconstruction output');
      const [, channels, oh, ow] = reconstruction.dims as number[];
      const s = Math.round(oh / inputs.pixel_values.dims[2]);
      if (channels !== 3 || s < 1 || Math.round(ow / inputs.pixel_values.dims[3]) !== s) {
        throw new DomainError('unavailable', `unexpected upscaler output [${reconstruction.dims.join(',')}]`);
      }
      if (!out) {
        scale = s;
        out = Buffer.alloc(width * s * height * s * 3);
      }
      const data = reconstruction.data as Float32Array;
      const plane = oh * ow;
      const outW = width * s;
      // Keep only this tile's own part: output rows/cols of [x0,x1)×[y0,y1), offset by the run's margin.
      for (let y = y0 * s; y < y1 * s; y++) {
        const srcRow = (y - ry0 * s) * ow;
        for (let x = x0 * s; x < x1 * s; x++) {
          const src = srcRow + (x - rx0 * s);
          const dst = (y * outW + x) * 3;
          for (let c = 0; c < 3; c++) {
            const v = data[c * plane + src];
            out[dst + c] = v <= 0 ? 0 : v >= 1 ? 255 : Math.round(v * 255);
          }
        }
      }
    }
  }
  return { data: out!, scale };
}

/** One PNG per image, `scale`× the upright input (×2 for the catalog's Swin2SR). */
export async function upscaleImages(
  ctx: EngineContext,
  entry: ModelEntry,
  images: Uint8Array[],
  maxInputPixels: number,
): Promise<Uint8Array[]> {
  return ctx.registry.use(
    entry.name,
    'model',
    () => loadProcessorModel(ctx, entry, AutoModelForImageToImage),
    async (up) => {
      const result: Uint8Array[] = [];
      for (const bytes of images) {
        const { rgb, alpha, width, height } = await decode(bytes, ctx.maxPixels);
        if (width * height > maxInputPixels) {
          throw new DomainError(
            'invalid_input',
            `image too large to upscale: ${width}×${height}; at most ${maxInputPixels} pixels`,
          );
        }
        const { data, scale } = await upscaleTiles(up, rgb, width, height);
        const size = { width: width * scale, height: height * scale };
        let png = sharp(data, { raw: { ...size, channels: 3 } });
        if (alpha) {
          const a = await sharp(alpha, { raw: { width, height, channels: 1 } })
            .resize({ ...size, fit: 'fill', kernel: 'lanczos3' })
            .raw()
            .toBuffer();
          png = png.joinChannel(a, { raw: { ...size, channels: 1 } });
        }
        result.push(new Uint8Array(await png.png().toBuffer()));
      }
      return result;
    },
  );
}
