/**
 * Foreground alpha mattes with background-removal models (MODNet, BiRefNet)
 * through the real transformers.js classes: AutoProcessor and
 * AutoModelForImageSegmentation, which runs these custom architectures as a
 * plain model with one session. What follows mirrors transformers.js'
 * `background-removal` pipeline (feed the one session input, take the first
 * output, apply a sigmoid when the values are logits), except the end: the
 * matte is resized with sharp to the full upright input size and encoded as
 * an 8-bit grey PNG, instead of being put into a downsized copy of the image.
 *
 * The model sees the image at its processor's size (MODNet: short side 512,
 * multiples of 32; BiRefNet: 1024²). sharp resizes the decoded photo to
 * exactly that size (asked of the processor itself), so the processor's own
 * resize is a no-op: a 24-megapixel photo never reaches it whole, and small
 * images escape its enlargement, which (an affine transform in Node) blends
 * the bottom and right edges with black, enough to flip the matte there.
 */
import sharp from 'sharp';
import { AutoModelForImageSegmentation, type RawImage } from '@huggingface/transformers';
import { DomainError } from '../../platform/errors.js';
import type { ModelEntry } from '../catalog.js';
import type { EngineContext } from './context.js';
import { decodeRgb } from './images.js';
import { loadProcessorModel, type ProcessorModel } from './processorModel.js';

/** Outputs outside [0, 1] by more than this are logits (BiRefNet); MODNet's are already probabilities. */
const EPSILON = 1e-5;

/** Width and height of the upright (EXIF-rotated) image, from its header. */
async function uprightSize(bytes: Uint8Array, maxPixels: number): Promise<{ width: number; height: number }> {
  try {
    const meta = await sharp(bytes, { limitInputPixels: maxPixels }).metadata();
    const { width, height } = meta.autoOrient ?? meta;
    if (!width || !height) throw new Error('no dimensions');
    return { width, height };
  } catch (err) {
    throw new DomainError('unprocessable', `cannot decode image: ${(err as Error).message}`);
  }
}

/** The upright image decoded to RGB (flattened on white) at the size the processor resizes to. */
async function decodeForModel(
  matter: ProcessorModel,
  bytes: Uint8Array,
  full: { width: number; height: number },
  maxPixels: number,
): Promise<RawImage> {
  const imageProcessor = matter.processor.image_processor ?? matter.processor;
  const [width, height] = imageProcessor.do_resize
    ? (imageProcessor.get_resize_output_image_size({ size: [full.width, full.height] }, imageProcessor.size) as [
        number,
        number,
      ])
    : [full.width, full.height];
  return decodeRgb(bytes, maxPixels, { width, height, fit: 'fill', kernel: 'linear' });
}

/** The model's matte of one image as 8-bit values at the model's resolution. */
async function runMatte(
  matter: ProcessorModel,
  image: RawImage,
): Promise<{ data: Uint8Array; width: number; height: number }> {
  const inputs = await matter.processor(image);
  const { inputNames, outputNames } = matter.model.sessions.model as { inputNames: string[]; outputNames: string[] };
  // MODNet's session input is `input`, BiRefNet's `input_image`: feed pixel_values under the one name it declares.
  const feed = inputNames.includes('pixel_values')
    ? { pixel_values: inputs.pixel_values }
    : { [inputNames[0]]: inputs.pixel_values };
  const output = (await matter.model(feed))[outputNames[0]];
  if (!output) throw new DomainError('unavailable', `the matting model has no ${outputNames[0]} output`);
  const dims = output.dims as number[];
  const [height, width] = dims.slice(-2);
  if (dims.length < 3 || width * height !== output.data.length / dims[0] || dims[dims.length - 3] !== 1) {
    throw new DomainError('unavailable', `unexpected matte shape [${dims.join(',')}]`);
  }
  const values = output.data as Float32Array;
  const n = width * height;
  let logits = false;
  for (let i = 0; i < n && !logits; i++) logits = values[i] < -EPSILON || values[i] > 1 + EPSILON;
  const data = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const v = logits ? 1 / (1 + Math.exp(-values[i])) : values[i];
    data[i] = v <= 0 ? 0 : v >= 1 ? 255 : Math.round(v * 255);
  }
  return { data, width, height };
}

/** One grey PNG per image: alpha of the foreground, at the upright input's full width and height. */
export async function matteImages(ctx: EngineContext, entry: ModelEntry, images: Uint8Array[]): Promise<Uint8Array[]> {
  return ctx.registry.use(
    entry.name,
    'model',
    () => loadProcessorModel(ctx, entry, AutoModelForImageSegmentation),
    async (matter) => {
      const result: Uint8Array[] = [];
      for (const bytes of images) {
        const full = await uprightSize(bytes, ctx.maxPixels);
        const matte = await runMatte(matter, await decodeForModel(matter, bytes, full, ctx.maxPixels));
        const png = await sharp(matte.data, { raw: { width: matte.width, height: matte.height, channels: 1 } })
          .resize({ ...full, fit: 'fill', kernel: 'mitchell' })
          .toColourspace('b-w')
          .png()
          .toBuffer();
        result.push(new Uint8Array(png));
      }
      return result;
    },
  );
}
