import type { FetchSummary, ModelReport } from '../../models/index.js';
import { DomainError } from '../../platform/errors.js';
import { requireRole } from '../kernel/access.js';
import type { Principal, Services } from '../kernel/services.js';

/**
 * Every catalog model with its state (installed, downloading, queued, missing, failed), bytes done and
 * total, licence, size and the default profile's roles it serves; plus the background fetch's summary.
 * Admins and owners only: it names files and folders of the server.
 */
export function listModels(
  deps: Pick<Services, 'modelFetch'>,
  principal: Principal,
): { models: ModelReport[]; fetch: FetchSummary } {
  requireRole(principal, 'admin');
  if (!deps.modelFetch) throw new DomainError('unavailable', 'model inventory is not available in this process');
  return { models: deps.modelFetch.report(), fetch: deps.modelFetch.summary() };
}
