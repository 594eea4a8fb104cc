import { BundleError, importBundle } from '../../models/bundle/index.js';
import { loadCatalog } from '../../models/index.js';
import { conflict, unprocessable } from '../../platform/errors.js';
import { requireRole } from '../kernel/access.js';
import type { Principal, Services } from '../kernel/services.js';

/** One import at a time: two would race for the same model folders. */
let importing = false;

/**
 * POST /api/models/import: a model bundle (`npm run models -- pack` on an online machine) uploaded to the server,
 * verified and installed exactly as `npm run models -- import` does (every file's size and sha256 against the
 * manifest and the catalog's or recorded digest, in a staging folder; nothing installed when anything is wrong).
 * Then the model watcher looks at once, so items waiting for an imported model catch up. Admins and owners.
 */
export async function importModelBundle(
  deps: Pick<Services, 'config' | 'logger' | 'modelsChanged'>,
  principal: Principal,
  file: string,
) {
  requireRole(principal, 'admin');
  if (importing) throw conflict('another model bundle is being imported; try again when it is done');
  importing = true;
  try {
    const catalog = loadCatalog({ modelsDir: deps.config.modelsDir });
    const lines: string[] = [];
    const result = await importBundle(file, { modelsDir: deps.config.modelsDir, catalog, log: (l) => lines.push(l) });
    deps.logger.info('model bundle imported', { models: result.models.map((m) => m.name) });
    deps.modelsChanged?.();
    return { models: result.models.map(({ name, files, bytes }) => ({ name, files, bytes })), log: lines };
  } catch (err) {
    if (err instanceof BundleError) throw unprocessable(`bundle refused, nothing installed: ${err.message}`);
    throw err;
  } finally {
    importing = false;
  }
}
