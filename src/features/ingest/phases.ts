import type { Config } from '../../config.js';

/**
 * Ingest runs in three phases, each its own job type keyed by the item (so an item has at most one
 * queued or running job per phase), each idempotent: running one again replaces its own earlier output.
 *
 * 1. `ingest` (prepare): a video's frames sampled; every frame's renditions (thumbnails).
 * 2. `ingest-embed`: each frame's image embedding, on its whole-frame object: from then on the item is
 *    found by meaning (`q=`, /api/search).
 * 3. `ingest-analyze`: captions, objects, faces, text, moderation, description; the item becomes `ready`.
 *
 * Each phase queues the next when it is done. The type of phase 1 keeps the name of the job that once
 * did everything, so a job queued before the split runs as phase 1 and the rest follows.
 */
export const INGEST_JOB = 'ingest';
export const EMBED_JOB = 'ingest-embed';
export const ANALYZE_JOB = 'ingest-analyze';
/** The phases' job types in order. */
export const PHASE_JOBS = [INGEST_JOB, EMBED_JOB, ANALYZE_JOB] as const;
export type PhaseJob = (typeof PHASE_JOBS)[number];
/** The phases as GET /api/jobs names them. */
export const PHASE_NAMES = {
  [INGEST_JOB]: 'prepare',
  [EMBED_JOB]: 'embed',
  [ANALYZE_JOB]: 'analyze',
} as const satisfies Record<PhaseJob, string>;
export type PhaseName = (typeof PHASE_NAMES)[PhaseJob];

/** The payload of every phase's job. */
export interface IngestPayload {
  mediaId: string;
}

/**
 * Job priorities (lower runs first). Phase 1 and 2 of a fresh item come before phase 3 of anything, so an
 * upload is searchable within seconds while a big import is analysed; re-indexing and the catch-up after
 * a model install come last. Phase 1 and 2 also have a slot of their own in the runner (URGENT_JOBS), so
 * a long phase 3 (a video's frames through every model) never holds them up; that slot takes the newest
 * of them first (the general slots the oldest), so a photo uploaded while an import's first phases are
 * behind is not queued after the whole import. Phases 1 and 2 share a priority for that: the newest
 * item's phase 2 follows its phase 1 in that slot at once.
 */
export const PRIORITY_FRESH = 0;
export const PRIORITY_EMBED = 0;
export const PRIORITY_ANALYZE = 5;
export const PRIORITY_REINDEX = 10;
/** The job types the runner's urgent lane takes. */
export const URGENT_JOBS: readonly string[] = [INGEST_JOB, EMBED_JOB];

/**
 * The priority of a phase under the configured order: `fifo` puts every phase at phase 3's priority, so
 * items go through first come first served, as when one job did everything (the bench's baseline).
 */
export function phasePriority(config: Pick<Config, 'ingestOrder'>, phase: PhaseJob): number {
  if (config.ingestOrder === 'fifo') return PRIORITY_ANALYZE;
  return phase === INGEST_JOB ? PRIORITY_FRESH : phase === EMBED_JOB ? PRIORITY_EMBED : PRIORITY_ANALYZE;
}
