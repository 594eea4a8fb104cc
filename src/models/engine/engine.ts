/**
 * The in-worker model engine: configures transformers.js for offline use,
 * then serves requests (embed images/texts, caption, warm up) with models loaded
 * lazily and kept warm in a PartRegistry.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { env } from '@huggingface/transformers';
import { DomainError } from '../../platform/errors.js';
import type { ModelEntry } from '../catalog.js';
import { loadStandins, type Standins } from '../loadStandins.js';
import type { LoadedModel } from '../types.js';
import type { WorkerRequest, WorkerSetup } from '../worker/protocol.js';
import { generateTexts } from './caption.js';
import { generateImage } from './generate.js';
import { matteImages } from './matte.js';
import { upscaleImages } from './upscale.js';
import type { EngineContext } from './context.js';
import { DeviceChooser } from './device.js';
import { embedImages, embedTexts } from './embed.js';
import { PartRegistry } from './registry.js';
import { DetectorHost } from './detectors.js';
import { ORT_ARCHES } from '../catalog.js';

export type EngineLog = (
  level: 'debug' | 'info' | 'warn' | 'error',
  msg: string,
  fields?: Record<string, unknown>,
) => void;

export class Engine {
  private readonly entries: Map<string, ModelEntry>;
  private readonly ctx: EngineContext;
  /** The test profile's stand-in generators; null in production. */
  private readonly standins: Standins | null;
  private readonly test: boolean;
  private readonly root: string;
  /** Stand-ins already checked in this worker. */
  private readonly ensured = new Set<string>();
  private readonly detectors: DetectorHost;

  /** An engine for a worker's setup; the test profile's stand-ins are loaded here, and only there. */
  static async create(setup: WorkerSetup, log: EngineLog, onModels: (loaded: LoadedModel[]) => void): Promise<Engine> {
    const standins = setup.profile === 'test' ? await loadStandins() : null;
    return new Engine(setup, standins, log, onModels);
  }

  private constructor(
    setup: WorkerSetup,
    standins: Standins | null,
    log: EngineLog,
    onModels: (loaded: LoadedModel[]) => void,
  ) {
    this.entries = new Map(setup.entries.map((e) => [e.name, e]));
    this.standins = standins;
    this.test = standins !== null;
    this.root = standins ? standins.root(setup.modelsDir) : setup.modelsDir;
    this.detectors = new DetectorHost({ modelsDir: setup.modelsDir, standins });
    // Never reach for the network: every file must already be on disk.
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = this.root + path.sep;
    env.useBrowserCache = false;
    const registry = new PartRegistry({
      budgetBytes: setup.memoryBudgetMB === null ? null : setup.memoryBudgetMB * 2 ** 20,
      pinned: new Set(setup.pinned),
      onChange: onModels,
      log: (msg, fields) => log('info', msg, fields),
    });
    this.ctx = {
      registry,
      devices: new DeviceChooser(setup.device, (msg, fields) => log('warn', msg, fields)),
      modelId: (e) => (this.test ? e.name : e.dir),
      folder: (e) => path.join(this.root, this.test ? e.name : e.dir),
      dtype: (e) => (this.test ? 'fp32' : e.dtype),
      maxPixels: setup.maxImagePixels,
    };
  }

  private entry(name: string): ModelEntry {
    const e = this.entries.get(name);
    if (!e) throw new DomainError('invalid_input', `unknown model ${name}`);
    if (ORT_ARCHES.includes(e.arch)) return e; // the DetectorHost finds (or makes) their files
    if (this.standins) {
      if (!this.ensured.has(name)) this.standins.ensure(e, this.root); // milliseconds, and only once per version
      this.ensured.add(name);
    } else {
      // transformers.js reports a missing tokenizer file as "Cannot read properties of undefined": say what is missing instead.
      const folder = this.ctx.folder(e);
      const missing = e.files.filter((f) => !f.optional && !existsSync(path.join(folder, f.path))).map((f) => f.path);
      if (missing.length)
        throw new DomainError(
          'unavailable',
          `model ${name} is missing ${missing.join(', ')} in ${folder}: run \`npm run models -- fetch ${name}\``,
          { model: name },
        );
    }
    return e;
  }

  /** `progress` receives steps done / total from long requests (generate). */
  async run(
    request: WorkerRequest,
    progress: (done: number, total: number) => void = () => {},
  ): Promise<(Float32Array | string | Uint8Array)[]> {
    const entry = this.entry(request.model);
    const bytes = () => request.inputs.map((x) => (typeof x === 'string' ? Buffer.from(x) : x));
    const strings = () => request.inputs.map(String);
    switch (request.kind) {
      case 'embedImages':
        return embedImages(this.ctx, entry, bytes());
      case 'embedTexts':
        return embedTexts(this.ctx, entry, strings());
      case 'caption':
        return generateTexts(this.ctx, entry, bytes(), request.options);
      case 'warm':
        return this.warm(entry);
      case 'detect':
        return this.detectors.detect(
          entry,
          request.inputs.map((x) => (typeof x === 'string' ? Buffer.from(x) : x)),
          request.options.minScore,
        );
      case 'embedFaces':
        return [await this.detectors.embedFaces(entry, bytes()[0], JSON.parse(request.options.faces ?? '[]'))];
      case 'modelId':
        return [await this.detectors.modelId(entry)];
      case 'generate':
        return generateImage(this.ctx, entry, strings()[0], request.options.seed ?? 0, progress);
      case 'upscale':
        return upscaleImages(this.ctx, entry, bytes(), request.options.maxInputPixels ?? Infinity);
      case 'matte':
        return matteImages(this.ctx, entry, bytes());
    }
  }

  /** Loads a model's parts by running them once on a tiny input: an empty text, a 1-pixel image. */
  private async warm(entry: ModelEntry): Promise<string[]> {
    if (entry.task === 'upscale') {
      await upscaleImages(this.ctx, entry, [ONE_PIXEL_PNG], Infinity);
    } else if (entry.task === 'remove-background') {
      await matteImages(this.ctx, entry, [ONE_PIXEL_PNG]);
    } else if (entry.task === 'embed') {
      await embedTexts(this.ctx, entry, ['']);
      await embedImages(this.ctx, entry, [ONE_PIXEL_PNG]);
    } else if (entry.task === 'caption' && entry.arch !== 'smolvlm') {
      await generateTexts(this.ctx, entry, [ONE_PIXEL_PNG], { maxNewTokens: 1 });
    } else {
      await generateTexts(this.ctx, entry, [ONE_PIXEL_PNG], { prompt: 'Hi', maxNewTokens: 1 });
    }
    return [];
  }
}

/** A valid 1×1 white PNG, for warm-up runs. */
const ONE_PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4//8/AAX+Av4N70a4AAAAAElFTkSuQmCC',
  'base64',
);
