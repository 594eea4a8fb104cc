import { z } from 'zod';
import type { Services } from '../kernel/services.js';
import type { JobRunner } from '../../jobs/runner.js';
import { needsWebVideo } from '../../files/webPlayable.js';
import { makeWebVideo } from './webVideo.js';

/**
 * The `web-video` job: the web-playable copy of one video (webVideo.ts), queued when its analysis is
 * done. It runs below everything else (a transcode takes minutes of CPU that uploads, search and analysis
 * should not wait for), keyed by the item so never twice; retried with backoff like every job.
 */
export const WEB_VIDEO_JOB = 'web-video';
/** Below the rendition backfill (20): a viewer can still download the original meanwhile. */
export const PRIORITY_WEB_VIDEO = 30;

const payload = z.object({ mediaId: z.string().regex(/^[0-9a-f]{32}$/) });

type WebVideoJobDeps = Pick<Services, 'config' | 'storage' | 'blobs'>;

export function registerWebVideoJob(runner: JobRunner, deps: WebVideoJobDeps): void {
  runner.register<{ mediaId: string }>(
    WEB_VIDEO_JOB,
    async (job, ctx) => {
      await makeWebVideo(deps, job.payload.mediaId, ctx.signal);
    },
    { parse: (p) => payload.parse(p) },
  );
}

/** Queues the copy of a video a browser cannot play as stored; nothing for anything else. */
export async function enqueueWebVideo(
  deps: Pick<Services, 'storage' | 'wakeJobs'>,
  media: Parameters<typeof needsWebVideo>[0] & { id: string },
): Promise<void> {
  if (!needsWebVideo(media)) return;
  await deps.storage.jobs.enqueue({
    type: WEB_VIDEO_JOB,
    payload: { mediaId: media.id },
    key: media.id,
    priority: PRIORITY_WEB_VIDEO,
  });
  deps.wakeJobs();
}
