/**
 * createVisionModels: the VisionModels implementation the application uses.
 * Resolves names against the catalog and checks inputs on the main thread
 * (cheap errors never queue), then hands inference to the worker pool.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import type { Config } from '../config.js';
import { DomainError } from '../platform/errors.js';
import type { Logger } from '../platform/logger.js';
import {
  factsOf,
  hasStandinFor,
  loadCatalog,
  modelFolder,
  ORT_ARCHES,
  type Catalog,
  type ModelEntry,
  type Task,
} from './catalog.js';
import type { Detection } from './vision/types.js';
import { FLORENCE_TEXT_TASKS } from './tasks.js';
import {
  asBuffer,
  checkUpscaleInput,
  imageSize,
  pngSize,
  UPSCALE_MAX_INPUT_PIXELS,
  UPSCALE_QUEUE_LENGTH,
} from './imageToImage.js';
import type {
  CaptionOptions,
  CaptionResult,
  DetectionResult,
  DetectionRole,
  FaceVectors,
  GeneratedImage,
  GenerateOptions,
  LoadedModel,
  ModelInfo,
  ModelRoles,
  VisionModels,
  ZeroShotScore,
} from './types.js';
import type { RequestKind, WorkerSetup } from './worker/protocol.js';
import { WorkerPool } from './worker/pool.js';

export interface VisionModelsOptions {
  /** Defaults to the shipped catalog plus <modelsDir>/catalog.local.json. */
  catalog?: Catalog;
  /** Worker threads (default 1). */
  workers?: number;
  /** Requests allowed to wait before rate_limited (default 32). */
  maxQueue?: number;
  /** Unload LRU idle models above this many MB (default: env MODEL_MEMORY_BUDGET_MB, else no limit). */
  memoryBudgetMB?: number | null;
  /** Most inputs merged into one worker batch, per kind. */
  maxBatch?: Partial<Record<RequestKind, number>>;
  /** Largest input of upscale(), in pixels (default: UPSCALE_MAX_INPUT_PIXELS for the configured device). */
  upscaleMaxPixels?: number;
}

/** Most images or texts accepted in one call. */
const MAX_INPUTS = 256;
const MAX_TEXT_CHARS = 2000;

/** How a Florence-2 task reads as a prompt for a chat model. */
const TASK_AS_PROMPT: Record<string, string> = {
  '<CAPTION>': 'Describe this image in one sentence.',
  '<DETAILED_CAPTION>': 'Describe this image in detail.',
  '<MORE_DETAILED_CAPTION>': 'Describe this image in as much detail as you can.',
  '<OCR>': 'Write down all the text in this image.',
};
const isTask = (p: string) => (FLORENCE_TEXT_TASKS as readonly string[]).includes(p);

function budgetFromEnv(): number | null {
  const raw = process.env.MODEL_MEMORY_BUDGET_MB;
  if (raw === undefined || raw === '') return null;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0)
    throw new Error(`Invalid configuration: MODEL_MEMORY_BUDGET_MB must be a positive number, got ${raw}`);
  return n;
}

export function createVisionModels(config: Config, logger: Logger, options: VisionModelsOptions = {}): VisionModels {
  const catalog = options.catalog ?? loadCatalog({ modelsDir: config.modelsDir });
  const profile = config.modelProfile;
  const test = profile === 'test';
  const roles: ModelRoles = catalog.roles[profile];
  const log = logger.child({ component: 'models' });
  let loaded: LoadedModel[] = [];
  const installedCache = new Set<string>();

  const setup: WorkerSetup = {
    modelsDir: config.modelsDir,
    profile,
    device: config.device,
    memoryBudgetMB: options.memoryBudgetMB === undefined ? budgetFromEnv() : options.memoryBudgetMB,
    maxImagePixels: config.maxImagePixels,
    nice: config.inferenceNice,
    entries: [...catalog.models.values()],
    pinned: [`${roles.embed}:text`],
  };
  const pool = new WorkerPool({
    setup,
    logger: log,
    size: options.workers,
    maxQueue: options.maxQueue,
    maxBatch: options.maxBatch,
    onModels: (l) => (loaded = l),
  });

  function isInstalled(entry: ModelEntry): boolean {
    if (entry.package) return true; // a dependency of the server, installed with it
    if (test && hasStandinFor(catalog, entry.arch)) return true; // a stand-in (detectors: their real file when present)
    if (test && !ORT_ARCHES.includes(entry.arch)) return false; // no stand-in of its shape
    if (installedCache.has(entry.name)) return true;
    const folder = modelFolder(entry, config.modelsDir);
    const ok = entry.files.every((f) => f.optional || existsSync(path.join(folder, f.path)));
    if (ok) installedCache.add(entry.name);
    return ok;
  }

  function info(entry: ModelEntry): ModelInfo {
    const source = test ? `standin-v${catalog.standins.version}` : (entry.repo ?? `local:${entry.dir}`);
    const dtype = test ? 'fp32' : entry.dtype;
    const facts = factsOf(catalog, entry, test);
    return {
      name: entry.name,
      id: `${entry.name}:${source}:${dtype}`,
      task: entry.task,
      arch: entry.arch,
      dims: entry.dims,
      dtype,
      standin: test,
      installed: isInstalled(entry),
      calibration: facts.calibration ?? {},
      clusterThreshold: facts.clusterThreshold ?? null,
    };
  }

  /** The entry that made a stored vector or result: model ids start with the catalog name (`<name>:…`). */
  function infoById(modelId: string): ModelInfo | null {
    const entry = catalog.models.get(modelId.split(':')[0]);
    return entry ? info(entry) : null;
  }

  function lookup(name: string): ModelEntry {
    const entry = catalog.models.get(name);
    if (!entry)
      throw new DomainError(
        'invalid_input',
        `unknown model ${JSON.stringify(name)}; known: ${[...catalog.models.keys()].join(', ')}`,
      );
    return entry;
  }

  /** The entry for a request, checked for task and presence. */
  function usable(name: string, tasks: readonly Task[]): ModelEntry {
    const entry = lookup(name);
    if (!tasks.includes(entry.task))
      throw new DomainError('invalid_input', `model ${name} is a ${entry.task} model, not ${tasks.join(' or ')}`);
    if (!isInstalled(entry)) {
      throw new DomainError(
        'unavailable',
        test
          ? `model ${name} has no stand-in in the test profile`
          : `model ${name} is not installed: run \`npm run models -- fetch ${name}\``,
      );
    }
    return entry;
  }

  function checkList<T>(items: T[], what: string): void {
    if (!Array.isArray(items) || items.length === 0) throw new DomainError('invalid_input', `no ${what} given`);
    if (items.length > MAX_INPUTS) throw new DomainError('invalid_input', `at most ${MAX_INPUTS} ${what} per call`);
  }

  function checkImages(images: Buffer[]): void {
    checkList(images, 'images');
    if (images.some((b) => !(b instanceof Uint8Array) || b.length === 0))
      throw new DomainError('invalid_input', 'images must be non-empty encoded image bytes');
  }

  async function embedImages(model: string | null | undefined, images: Buffer[]): Promise<Float32Array[]> {
    const entry = usable(model ?? roles.embed, ['embed']);
    checkImages(images);
    return (await pool.submit('embedImages', entry.name, images)) as Float32Array[];
  }

  async function embedTexts(model: string | null | undefined, texts: string[]): Promise<Float32Array[]> {
    const entry = usable(model ?? roles.embed, ['embed']);
    checkList(texts, 'texts');
    if (texts.some((t) => typeof t !== 'string' || t.length > MAX_TEXT_CHARS))
      throw new DomainError('invalid_input', `texts must be strings of at most ${MAX_TEXT_CHARS} characters`);
    return (await pool.submit('embedTexts', entry.name, texts)) as Float32Array[];
  }

  /** Picks the model and the prompt it receives for a caption request. */
  function captionPlan(prompt: string | undefined, model: string | undefined): { entry: ModelEntry; prompt?: string } {
    const p = prompt?.trim() || undefined;
    const freeForm = p !== undefined && !isTask(p);
    const name = model ?? (freeForm ? roles.prompt : roles.caption);
    if (!name) {
      throw new DomainError(
        'unavailable',
        freeForm ? 'no prompt-following model is configured for free-form prompts' : 'no caption model is configured',
      );
    }
    const entry = usable(name, ['caption', 'prompt']);
    switch (entry.arch) {
      case 'vit-gpt2':
        if (freeForm)
          throw new DomainError('invalid_input', `model ${name} writes plain captions and cannot follow a prompt`);
        return { entry }; // task tokens all mean "a caption" to it
      case 'florence2':
        if (freeForm)
          throw new DomainError('invalid_input', `model ${name} takes only ${FLORENCE_TEXT_TASKS.join(', ')}`);
        return { entry, prompt: p };
      default:
        return { entry, prompt: p === undefined ? TASK_AS_PROMPT['<DETAILED_CAPTION>'] : (TASK_AS_PROMPT[p] ?? p) };
    }
  }

  async function caption(images: Buffer[], prompt?: string, opts: CaptionOptions = {}): Promise<CaptionResult[]> {
    checkImages(images);
    if (prompt !== undefined && (typeof prompt !== 'string' || prompt.length > MAX_TEXT_CHARS))
      throw new DomainError('invalid_input', 'prompt too long');
    const plan = captionPlan(prompt, opts.model);
    const texts = await pool.submit('caption', plan.entry.name, images, {
      prompt: plan.prompt,
      maxNewTokens: opts.maxNewTokens,
    });
    return texts.map((text) => ({ text: String(text), model: plan.entry.name }));
  }

  async function zeroShot(
    image: Buffer,
    labels: string[],
    opts: { model?: string; template?: string } = {},
  ): Promise<ZeroShotScore[]> {
    checkList(labels, 'labels');
    const template = opts.template ?? 'a photo of {}';
    if (!template.includes('{}')) throw new DomainError('invalid_input', 'template must contain {}');
    const [[imageVector], textVectors] = await Promise.all([
      embedImages(opts.model, [image]),
      embedTexts(
        opts.model,
        labels.map((l) => template.replaceAll('{}', l)),
      ),
    ]);
    const similarity = textVectors.map((t) => t.reduce((s, x, i) => s + x * imageVector[i], 0));
    const max = Math.max(...similarity);
    const exp = similarity.map((s) => Math.exp(100 * (s - max)));
    const sum = exp.reduce((a, b) => a + b, 0);
    return labels
      .map((label, i) => ({ label, score: exp[i] / sum, similarity: similarity[i] }))
      .sort((a, b) => b.score - a.score);
  }

  const detectorIds = new Map<string, string>();

  /** The entry serving a detection role, or null when the role is unset or its model is not installed. */
  function roleEntry(role: DetectionRole | 'embedFaces' | 'upscale' | 'removeBackground'): ModelEntry | null {
    const name = roles[role];
    if (!name) return null;
    const entry = lookup(name);
    return isInstalled(entry) ? entry : null;
  }

  async function detectorId(entry: ModelEntry): Promise<string> {
    let id = detectorIds.get(entry.name);
    if (!id) {
      id = String((await pool.submit('modelId', entry.name, ['']))[0]);
      detectorIds.set(entry.name, id);
    }
    return id;
  }

  async function detect(
    role: DetectionRole,
    image: Buffer,
    opts: { minScore?: number } = {},
  ): Promise<DetectionResult | null> {
    const entry = roleEntry(role);
    if (!entry) return null;
    checkImages([image]);
    const [json] = await pool.submit('detect', entry.name, [image], { minScore: opts.minScore });
    return { model: entry.name, modelId: await detectorId(entry), detections: JSON.parse(String(json)) as Detection[] };
  }

  async function embedFaces(image: Buffer, faces: Detection[]): Promise<FaceVectors | null> {
    const entry = roleEntry('embedFaces');
    if (!entry) return null;
    if (faces.length === 0) return { model: entry.name, modelId: await detectorId(entry), vectors: [] };
    const [flat] = (await pool.submit('embedFaces', entry.name, [image], {
      faces: JSON.stringify(faces),
    })) as Float32Array[];
    const dims = flat.length / faces.length;
    const vectors = faces.map((_, i) => flat.slice(i * dims, (i + 1) * dims));
    return { model: entry.name, modelId: await detectorId(entry), vectors };
  }

  /**
   * The generation worker: its own thread (started on first use), one request at a
   * time. Its queue is not the 429 gate: the durable generation queue in front
   * of it (src/features/generate/queue.ts) bounds what waits.
   */
  let genPool: WorkerPool | null = null;
  let closed = false;

  async function generateImage(prompt: string, opts: GenerateOptions = {}): Promise<GeneratedImage> {
    const name = opts.model ?? roles.generate;
    if (!name) throw new DomainError('unavailable', 'no image generation model is configured');
    const entry = usable(name, ['generate']);
    if (typeof prompt !== 'string' || !prompt.trim())
      throw new DomainError('invalid_input', 'prompt must not be empty');
    if (prompt.length > MAX_TEXT_CHARS)
      throw new DomainError('invalid_input', `prompt must be at most ${MAX_TEXT_CHARS} characters`);
    if (closed) throw new DomainError('unavailable', 'models are shutting down');
    genPool ??= new WorkerPool({
      setup: { ...setup, pinned: [] },
      logger: log.child({ worker: 'generate' }),
      size: 1,
      maxQueue: 1000,
    });
    const [out] = await genPool.submit(
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

  /**
   * The upscale worker: its own thread (started on first use), one request at a
   * time, so an upscale that takes minutes on a CPU never holds up the
   * embeddings, captions and detections of the main worker.
   */
  let upscalePool: WorkerPool | null = null;
  let upscaleLoaded: LoadedModel[] = [];

  async function upscale(
    image: Buffer,
  ): Promise<{ image: Buffer; model: string; width: number; height: number } | null> {
    const entry = roleEntry('upscale');
    if (!entry) return null;
    checkImages([image]);
    const maxInputPixels = options.upscaleMaxPixels ?? UPSCALE_MAX_INPUT_PIXELS[config.device];
    await checkUpscaleInput(image, maxInputPixels, config.maxImagePixels);
    if (closed) throw new DomainError('unavailable', 'models are shutting down');
    upscalePool ??= new WorkerPool({
      setup: { ...setup, pinned: [] },
      logger: log.child({ worker: 'upscale' }),
      size: 1,
      maxQueue: UPSCALE_QUEUE_LENGTH,
      onModels: (l) => (upscaleLoaded = l),
    });
    const [png] = (await upscalePool.submit('upscale', entry.name, [image], { maxInputPixels })) as Uint8Array[];
    return { image: asBuffer(png), model: entry.name, ...pngSize(png) };
  }

  async function matte(image: Buffer): Promise<{ mask: Buffer; model: string; width: number; height: number } | null> {
    const entry = roleEntry('removeBackground');
    if (!entry) return null;
    checkImages([image]);
    await imageSize(image, config.maxImagePixels);
    const [png] = (await pool.submit('matte', entry.name, [image])) as Uint8Array[];
    return { mask: asBuffer(png), model: entry.name, ...pngSize(png) };
  }

  async function warmUp(names?: string[]): Promise<void> {
    const wanted = names ?? [roles.embed];
    await Promise.all(
      wanted.map((n) =>
        pool.submit('warm', usable(n, ['embed', 'caption', 'prompt', 'upscale', 'remove-background']).name, []),
      ),
    );
  }

  return {
    embedImages,
    embedTexts,
    caption,
    zeroShot,
    modelInfo: (name) => info(lookup(name ?? roles.embed)),
    modelInfoById: infoById,
    listModels: () => [...catalog.models.values()].map(info),
    roles: () => ({ ...roles }),
    loadedModels: () => [...loaded, ...upscaleLoaded].map((m) => ({ ...m })),
    warmUp,
    detect,
    embedFaces,
    upscale,
    matte,
    generateImage,
    close: async () => {
      closed = true;
      await Promise.all([pool.close(), genPool?.close(), upscalePool?.close()]);
    },
  };
}
