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
import type { z } from 'zod';
import { requiredFiles, type Arch, type Task } from './archs.js';
import {
  CatalogSchema,
  type EntrySchema,
  LocalSchema,
  type Calibrations,
  type Catalog,
  type ModelEntry,
  type ModelFacts,
  type Roles,
} from './catalogSchema.js';

export {
  ARCH_INFO,
  ARCHES,
  DTYPE_SUFFIX,
  DTYPES,
  ORT_ARCHES,
  requiredFiles,
  TASKS,
  type Arch,
  type Dtype,
  type Task,
} from './archs.js';
export type {
  Calibration,
  Calibrations,
  Catalog,
  ModelEntry,
  ModelFacts,
  ModelFile,
  Profile,
  Roles,
  StandinCatalog,
} from './catalogSchema.js';

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
  const facts: ModelFacts = {
    calibration: entry.calibration ?? defaults.calibration,
    clusterThreshold: entry.clusterThreshold ?? defaults.clusterThreshold,
  };
  const nearDuplicate = entry.nearDuplicate !== undefined ? entry.nearDuplicate : defaults.nearDuplicate;
  if (nearDuplicate !== undefined) facts.nearDuplicate = nearDuplicate;
  return facts;
}

/** Whether the test profile has a stand-in of this architecture. */
export function hasStandinFor(catalog: Catalog, arch: Arch): boolean {
  return catalog.standins.arches[arch] !== undefined;
}

/** The folder holding a model's files. */
export function modelFolder(entry: ModelEntry, modelsDir: string): string {
  return path.join(modelsDir, entry.dir);
}
