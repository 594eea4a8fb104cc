import type { FetchSummary, ModelReport } from '../../models/index.js';
import { DomainError } from '../../platform/errors.js';
import { requireRole } from '../kernel/access.js';
import type { Principal, Services } from '../kernel/services.js';

/** What waits for a model in the caller's organization: items, and items per analysis stage (feature). */
export interface ModelWaiting {
  items: number;
  /** Stage (embeddings, caption, objects, faces, text, moderation) → items whose stage waits for this model. */
  stages: Record<string, number>;
}

/**
 * Every catalog model with its state (installed, downloading, queued, missing, failed), bytes done and
 * total, licence, size and the default profile's roles it serves; what waits for it in the caller's organization
 * (items whose analysis stages wait for it, per stage: README "Missing models: stages that wait"); plus the
 * background fetch's summary. Admins and owners only: it names files and folders of the server.
 */
export async function listModels(
  deps: Pick<Services, 'modelFetch' | 'storage'>,
  principal: Principal,
): Promise<{ models: Array<ModelReport & { waiting: ModelWaiting }>; fetch: FetchSummary }> {
  requireRole(principal, 'admin');
  if (!deps.modelFetch) throw new DomainError('unavailable', 'model inventory is not available in this process');
  const counts = await deps.storage.analysis.waitingCounts(principal.organizationId);
  const waiting = new Map(counts.map((w) => [w.model, { items: w.items, stages: w.stages }]));
  return {
    models: deps.modelFetch.report().map((m) => ({ ...m, waiting: waiting.get(m.name) ?? { items: 0, stages: {} } })),
    fetch: deps.modelFetch.summary(),
  };
}
