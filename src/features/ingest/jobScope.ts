import type { Job } from '../../jobs/types.js';
import { inCallersOrganization } from '../kernel/access.js';
import type { Principal, Services } from '../kernel/services.js';

/**
 * Whose a job of any type is, as GET /api/jobs and the retry route judge it, from its payload: an item's
 * (`mediaId`, or the first of `ids`: ingest phases, renditions, web-video, reembed, catch-up, a purge of
 * chosen entries), a collection's (`collectionId`: duplicates scan, cluster-faces, a collection's purge), an
 * organization's (`organizationId`: generate), or the server's (none of those: the whole-server purge and
 * clustering, housekeeping every admin sees, as they see the queue's figures). Another organization's job is null.
 */
export interface JobScope {
  kind: 'item' | 'collection' | 'organization' | 'server';
  id: string | null;
  /** The item's or collection's name; null for the others. */
  name: string | null;
  /** The item's processing status, for an item's job. */
  processingStatus: string | null;
}

type ScopeDeps = Pick<Services, 'storage'>;
const text = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : null);

/** The job's scope when the caller's organization may see it; null for another organization's. */
export async function jobScope(deps: ScopeDeps, principal: Principal, job: Job): Promise<JobScope | null> {
  const p = (job.payload ?? {}) as Record<string, unknown>;
  const mediaId = text(p.mediaId) ?? (Array.isArray(p.ids) ? text(p.ids[0]) : null);
  if (mediaId) {
    const media = await deps.storage.media.get(mediaId);
    if (!media || !inCallersOrganization(principal, media)) return null;
    return { kind: 'item', id: media.id, name: media.name, processingStatus: media.processingStatus };
  }
  const collectionId = text(p.collectionId) ?? text(p.datasetId);
  if (collectionId) {
    const collection = await deps.storage.collections.get(collectionId);
    if (!collection || !inCallersOrganization(principal, collection)) return null;
    return { kind: 'collection', id: collection.id, name: collection.name, processingStatus: null };
  }
  const organizationId = text(p.organizationId);
  if (organizationId) {
    if (organizationId !== principal.organizationId) return null;
    return { kind: 'organization', id: organizationId, name: null, processingStatus: null };
  }
  return { kind: 'server', id: null, name: null, processingStatus: null };
}

/** A running job's progress in figures: how far, how fast since its attempt started, how long still. */
export interface ProgressFigures {
  done: number;
  total: number;
  ratePerSecond: number | null;
  etaSeconds: number | null;
}

/** The (done, total) pairs the job handlers report: generate and most jobs; ingest prepare; ingest embed. */
const PAIRS = [
  ['done', 'total'],
  ['done', 'frames'],
  ['embedded', 'frames'],
] as const;

/**
 * Figures of a job's progress report when it says how far of how much (null otherwise, e.g. a scan that counts
 * only what it read): the rate is units per second since the attempt started, the ETA what is left at that rate.
 */
export function progressFigures(progress: unknown, startedAt: string | null, now = Date.now()): ProgressFigures | null {
  if (!progress || typeof progress !== 'object') return null;
  const p = progress as Record<string, unknown>;
  const pair = PAIRS.find(([d, t]) => typeof p[d] === 'number' && typeof p[t] === 'number' && (p[t] as number) > 0);
  if (!pair) return null;
  const done = p[pair[0]] as number;
  const total = p[pair[1]] as number;
  const seconds = startedAt ? (now - Date.parse(startedAt)) / 1000 : NaN;
  const rate = done > 0 && seconds > 0 ? done / seconds : null;
  return {
    done,
    total,
    ratePerSecond: rate === null ? null : round(rate),
    etaSeconds: done >= total ? 0 : rate === null ? null : round((total - done) / rate),
  };
}

const round = (n: number) => Math.round(n * 1000) / 1000;
