import { conflict, DomainError, notFound, unprocessable } from '../../platform/errors.js';
import { requireRole } from '../kernel/access.js';
import type { Principal, Services } from '../kernel/services.js';

/**
 * POST /api/models/:name/fetch: start (or retry) one model's download in the background (admin); its progress is
 * GET /api/models. Refused while downloads are off (offline: import a bundle instead), and for a model with no
 * source to fetch from.
 */
export function fetchModel(deps: Pick<Services, 'modelFetch'>, principal: Principal, name: string) {
  requireRole(principal, 'admin');
  if (!deps.modelFetch) throw new DomainError('unavailable', 'model downloads are not available in this process');
  const outcome = deps.modelFetch.fetch(name);
  if (outcome === 'unknown') throw notFound(`no model ${name} in the catalog`);
  if (outcome === 'off')
    throw conflict(`downloads are off (${deps.modelFetch.summary().reason ?? 'off'}): import a model bundle instead`);
  if (outcome === 'not_fetchable')
    throw unprocessable(`model ${name} has no hub repository or download URL: import a model bundle instead`);
  return { name, state: outcome };
}
