/**
 * The catalog as the VisionModels facade sees it on the main thread: which
 * models are installed, what each one reports (ModelInfo), and the entry a
 * request names or a role points to, checked so that cheap errors never queue.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config.js';
import { DomainError } from '../../platform/errors.js';
import {
  factsOf,
  hasStandinFor,
  modelFolder,
  ORT_ARCHES,
  type Catalog,
  type ModelEntry,
  type Task,
} from '../catalog.js';
import type { DetectionRole, ModelInfo, ModelRoles } from '../types.js';

/** The roles served by a model that may be absent (the method then answers null). */
export type OptionalRole = DetectionRole | 'embedFaces' | 'upscale' | 'removeBackground';

export interface ModelDirectory {
  catalog: Catalog;
  roles: ModelRoles;
  info(entry: ModelEntry): ModelInfo;
  /** The entry that made a stored vector or result: model ids start with the catalog name (`<name>:…`). */
  infoById(modelId: string): ModelInfo | null;
  /** The entry of a name; invalid_input when the catalog has none. */
  lookup(name: string): ModelEntry;
  /** The entry for a request, checked for task and presence. */
  usable(name: string, tasks: readonly Task[]): ModelEntry;
  /** The entry serving a role, or null when the role is unset or its model is not installed. */
  roleEntry(role: OptionalRole): ModelEntry | null;
}

export function createModelDirectory(catalog: Catalog, config: Config): ModelDirectory {
  const test = config.modelProfile === 'test';
  const roles: ModelRoles = catalog.roles[config.modelProfile];
  // Only "installed" is remembered: a missing model is looked for again on every request, so one that
  // `npm run models -- fetch` or `import` puts in place is used without a restart.
  const installedCache = new Set<string>();

  function isInstalled(entry: ModelEntry): boolean {
    if (entry.package) return true; // a dependency of the server, installed with it
    if (test && hasStandinFor(catalog, entry.arch)) return true; // a stand-in (detectors: their real file when present)
    if (test && !ORT_ARCHES.includes(entry.arch)) return false; // no stand-in of its shape
    if (installedCache.has(entry.name)) return true;
    const folder = modelFolder(entry, config.modelsDir);
    const ok = entry.files.every((file) => file.optional || existsSync(path.join(folder, file.path)));
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
      nearDuplicate: facts.nearDuplicate ?? null,
    };
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
        { model: name },
      );
    }
    return entry;
  }

  return {
    catalog,
    roles,
    info,
    infoById(modelId) {
      const entry = catalog.models.get(modelId.split(':')[0]);
      return entry ? info(entry) : null;
    },
    lookup,
    usable,
    roleEntry(role) {
      const name = roles[role];
      if (!name) return null;
      const entry = lookup(name);
      return isInstalled(entry) ? entry : null;
    },
  };
}
