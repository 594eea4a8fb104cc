/**
 * The two side workers of the VisionModels facade, each its own thread
 * started on first use and serving one request at a time:
 *  - generation: its queue is not the 429 gate, the durable generation queue
 *    in front of it (src/features/generate/queue.ts) bounds what waits;
 *  - upscale: an upscale that takes minutes on a CPU never holds up the
 *    embeddings, captions and detections of the main worker.
 */
import sharp from 'sharp';
import { DomainError } from '../../platform/errors.js';
import {
  asBuffer,
  checkUpscaleInput,
  pngSize,
  UPSCALE_MAX_INPUT_PIXELS,
  UPSCALE_QUEUE_LENGTH,
} from '../imageToImage.js';
import type { GeneratedImage, GenerateOptions, LoadedModel } from '../types.js';
import { WorkerPool } from '../worker/pool.js';
import type { FacadeContext } from './context.js';
import { checkImages, MAX_TEXT_CHARS } from './requests.js';

export class SideWorkers {
  private generatePool: WorkerPool | null = null;
  private upscalePool: WorkerPool | null = null;
  private closed = false;
  /** The models the upscale worker holds, as it last reported them. */
  upscaleLoaded: LoadedModel[] = [];

  constructor(
    private readonly ctx: FacadeContext,
    /** Largest input of upscale(), in pixels (default: UPSCALE_MAX_INPUT_PIXELS for the configured device). */
    private readonly upscaleMaxPixels: number | undefined,
  ) {}

  async generateImage(prompt: string, opts: GenerateOptions = {}): Promise<GeneratedImage> {
    const { directory, setup, log } = this.ctx;
    const name = opts.model ?? directory.roles.generate;
    if (!name) throw new DomainError('unavailable', 'no image generation model is configured');
    const entry = directory.usable(name, ['generate']);
    if (typeof prompt !== 'string' || !prompt.trim())
      throw new DomainError('invalid_input', 'prompt must not be empty');
    if (prompt.length > MAX_TEXT_CHARS)
      throw new DomainError('invalid_input', `prompt must be at most ${MAX_TEXT_CHARS} characters`);
    if (this.closed) throw new DomainError('unavailable', 'models are shutting down');
    this.generatePool ??= new WorkerPool({
      setup: { ...setup, pinned: [] },
      logger: log.child({ worker: 'generate' }),
      size: 1,
      maxQueue: 1000,
    });
    const [out] = await this.generatePool.submit(
      'generate',
      entry.name,
      [prompt],
      { seed: opts.seed ?? 0 },
      opts.onProgress ?? (() => {}),
    );
    const png = Buffer.from(out as Uint8Array);
    const { width = 0, height = 0 } = await sharp(png).metadata();
    return { png, width, height, model: entry.name };
  }

  async upscale(image: Buffer): Promise<{ image: Buffer; model: string; width: number; height: number } | null> {
    const { config, directory, setup, log } = this.ctx;
    const entry = directory.roleEntry('upscale');
    if (!entry) return null;
    checkImages([image]);
    const maxInputPixels = this.upscaleMaxPixels ?? UPSCALE_MAX_INPUT_PIXELS[config.device];
    await checkUpscaleInput(image, maxInputPixels, config.maxImagePixels);
    if (this.closed) throw new DomainError('unavailable', 'models are shutting down');
    this.upscalePool ??= new WorkerPool({
      setup: { ...setup, pinned: [] },
      logger: log.child({ worker: 'upscale' }),
      size: 1,
      maxQueue: UPSCALE_QUEUE_LENGTH,
      onModels: (models) => (this.upscaleLoaded = models),
    });
    const [png] = (await this.upscalePool.submit('upscale', entry.name, [image], { maxInputPixels })) as Uint8Array[];
    return { image: asBuffer(png), model: entry.name, ...pngSize(png) };
  }

  /** Refuses new requests and closes the workers started. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([this.generatePool?.close(), this.upscalePool?.close()]);
  }
}
