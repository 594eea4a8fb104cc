import type { Services } from '../kernel/services.js';
import { PHASE_JOBS, PHASE_NAMES, type PhaseName } from './phases.js';

/** The ingest's name in `job.progress` events. */
export const INGEST_PROGRESS = 'ingest';
/** A phase's rate is measured over its latest finished jobs: at most this many, finished this recently. */
export const RATE_SAMPLE = 200;
export const RATE_WINDOW_MS = 10 * 60_000;

/** One phase's remaining work and how fast it goes. */
export interface PhaseProgress {
  /** prepare (phase 1), embed (phase 2), analyze (phase 3). */
  phase: PhaseName;
  jobType: string;
  /** Items of the organization with this phase's job queued or running. */
  remaining: number;
  /** Items per second this phase finished lately (null: none finished within the window). */
  ratePerSecond: number | null;
  /** remaining ÷ rate: 0 when nothing remains, null without a rate. */
  etaSeconds: number | null;
}

/** The ingest's progress: per phase, and overall. */
export interface IngestProgress {
  phases: PhaseProgress[];
  /** Items with some phase still queued or running. */
  remaining: number;
  /** Until every remaining item is `ready` (or failed): 0 when none remains, null while a needed rate is unknown. */
  etaSeconds: number | null;
}

/**
 * The ingest's progress for an organization. A phase's rate is items over busy time: its latest jobs
 * finished within RATE_WINDOW_MS, divided by the time at least one of them was running (the union of
 * their started → finished spans), so jobs running side by side count once and idle gaps not at all;
 * it is the server's rate (every organization's jobs). The overall ETA is a pipeline's: every item still
 * before or in a phase has to pass through it, so it is the longest of (those items ÷ that phase's rate).
 */
export async function ingestProgress(
  deps: Pick<Services, 'storage'>,
  organizationId: string,
  now = Date.now(),
): Promise<IngestProgress> {
  const phases: PhaseProgress[] = [];
  let upstream = 0;
  let eta: number | null = 0;
  for (const jobType of PHASE_JOBS) {
    const remaining = await deps.storage.media.pendingItemJobs(jobType, organizationId);
    const rate = measuredRate(await deps.storage.jobs.recentRuns(jobType, RATE_SAMPLE), now);
    phases.push({
      phase: PHASE_NAMES[jobType],
      jobType,
      remaining,
      ratePerSecond: rate === null ? null : round(rate),
      etaSeconds: remaining === 0 ? 0 : rate === null ? null : round(remaining / rate),
    });
    upstream += remaining;
    if (upstream > 0 && eta !== null) eta = rate === null ? null : Math.max(eta, upstream / rate);
  }
  return { phases, remaining: upstream, etaSeconds: eta === null ? null : round(eta) };
}

/** Items per second over the busy time of the runs that finished within the window; null when none did. */
export function measuredRate(runs: Array<{ startedAt: string; finishedAt: string }>, now: number): number | null {
  const spans = runs
    .map((r) => [Date.parse(r.startedAt), Date.parse(r.finishedAt)] as const)
    .filter(([start, end]) => end >= now - RATE_WINDOW_MS && end >= start)
    .sort((a, b) => a[0] - b[0]);
  if (spans.length === 0) return null;
  let busy = 0;
  let [from, to] = spans[0];
  for (const [start, end] of spans.slice(1)) {
    if (start > to) {
      busy += to - from;
      [from, to] = [start, end];
    } else to = Math.max(to, end);
  }
  busy += to - from;
  return spans.length / (Math.max(busy, 1) / 1000); // timestamps are to the millisecond
}

const round = (n: number) => Math.round(n * 1000) / 1000;
