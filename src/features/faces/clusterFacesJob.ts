/**
 * The `cluster-faces` job: clusters a collection's new faces in the
 * background, after ingest (queued by src/ingest/jobs.ts).
 */
import type { ThresholdTable } from '../../index/faces/thresholds.js';
import type { AssignResult, ClusterStore } from '../../index/faces/types.js';

export const CLUSTER_FACES_JOB = 'cluster-faces';

export interface ClusterFacesPayload {
  /** The collection whose new faces to cluster; null: every collection. */
  collectionId: string | null;
}

/**
 * The `cluster-faces` job's body: assigns every pending face of the collection
 * in rounds of `round` faces, checking the signal and reporting progress
 * between rounds. Idempotent: a rerun finds only what is still pending.
 */
export async function clusterFacesJob(
  store: Pick<ClusterStore, 'assignPending'>,
  payload: ClusterFacesPayload,
  ctx: {
    signal?: AbortSignal;
    progress?: (p: unknown) => Promise<void>;
    /** Overrides of the declared thresholds (the FACE_CLUSTER_THRESHOLDS setting). */
    thresholds?: ThresholdTable;
    /** The thresholds the face models declare (declaredThresholds). */
    declaredThresholds?: ThresholdTable;
    round?: number;
  } = {},
): Promise<AssignResult> {
  const total: AssignResult = { assigned: 0, created: 0, merged: 0, skipped: 0, refreshed: 0, dropped: 0, more: false };
  for (;;) {
    if (ctx.signal?.aborted) throw ctx.signal.reason ?? new Error('aborted');
    const r = await store.assignPending(payload.collectionId, ctx.round ?? 2000, {
      thresholds: ctx.thresholds,
      declaredThresholds: ctx.declaredThresholds,
      signal: ctx.signal,
    });
    total.assigned += r.assigned;
    total.created += r.created;
    total.merged += r.merged;
    total.skipped += r.skipped;
    total.refreshed += r.refreshed;
    total.dropped += r.dropped;
    total.more = r.more;
    if (!r.more) return total;
    await ctx.progress?.({ assigned: total.assigned, clustersCreated: total.created, merged: total.merged });
  }
}
