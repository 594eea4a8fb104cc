import type { Services } from '../kernel/services.js';
import type { JobContext } from '../../jobs/handler.js';
import type { Logger } from '../../platform/logger.js';
import { analyzeItem, type IngestDeps } from './pipeline.js';
import { enqueuePerItem } from './enqueuePerItem.js';
import { installedAmongWaiting, installedStageModels } from './stages.js';

/**
 * The catch-up after a model is installed: an item that became `ready` with
 * stages waiting for a model is analysed again, in the background, once that
 * model is there (fetched, imported, or a folder dropped into MODELS_DIR).
 * The analysis runs every stage whose model is installed and replaces only
 * model-made rows, so nothing is duplicated and the user's edits stay.
 */
export const CATCH_UP_JOB = 'ingest-catch-up';
/** Below fresh uploads (0), beside re-indexing. */
export const PRIORITY_CATCH_UP = 10;
/** How often the model watcher looks for models that appeared. */
export const MODEL_WATCH_MS = 5000;

type CatchUpDeps = IngestDeps & Pick<Services, 'wakeJobs'>;

/** Analyses a ready item again while some of its stages wait for a model that is installed now. */
export async function catchUpMedia(
  deps: IngestDeps,
  mediaId: string,
  ctx: Pick<JobContext, 'signal' | 'progress'>,
): Promise<'done' | 'nothing'> {
  const media = await deps.storage.media.get(mediaId);
  if (!media || media.status !== 'active' || media.type === 'folder' || media.processingStatus !== 'ready')
    return 'nothing'; // gone, or an ingest of its own is under way (it uses every installed model)
  const frames = await deps.storage.analysis.framesOf(mediaId);
  let stages = (await deps.storage.analysis.stagesOf([mediaId])).get(mediaId) ?? [];
  // A model installed while the item was being analysed: go round again (bounded).
  for (let round = 0; round < 3; round++) {
    if (frames.length === 0 || installedAmongWaiting(deps.models, stages).length === 0)
      return round ? 'done' : 'nothing';
    stages = await analyzeItem(deps, media, frames, ctx);
  }
  return 'done';
}

/** Queues the catch-up of the ready items waiting for one of these models; returns how many. */
export async function enqueueCatchUp(deps: CatchUpDeps, models: string[]): Promise<number> {
  return enqueuePerItem(deps, { type: CATCH_UP_JOB, priority: PRIORITY_CATCH_UP }, (after) =>
    deps.storage.analysis.waitingFor(models, 500, after),
  );
}

export interface ModelWatcher {
  /** Looks now (a fetch or an import that just finished may call it); the next poll comes as usual. */
  check(): void;
  /** Stops polling; resolves when a look under way has finished. */
  stop(): Promise<void>;
}

/**
 * Watches which of the ingest stages' models are installed: at start and
 * every `intervalMs`, and when asked. The first look queues every item
 * waiting for a model installed by then (say, while the server was down);
 * later looks, the items waiting for a model that appeared since.
 */
export function startModelWatcher(deps: CatchUpDeps, logger: Logger, intervalMs = MODEL_WATCH_MS): ModelWatcher {
  let known: Set<string> | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  const look = async () => {
    const installed = installedStageModels(deps.models);
    const appeared = installed.filter((name) => !known?.has(name));
    const count = appeared.length ? await enqueueCatchUp(deps, appeared) : 0;
    known = new Set(installed); // only once queued: a failed look is tried again at the next
    if (count) logger.info('models installed: analysing the items that waited for them', { models: appeared, count });
  };
  const check = () => {
    if (running) {
      again = true;
      return;
    }
    running = look()
      .catch((err) => logger.warn('model watcher failed', { err }))
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          check();
        }
      });
  };
  const timer = setInterval(check, intervalMs);
  timer.unref();
  check();
  return {
    check,
    stop: async () => {
      clearInterval(timer);
      again = false;
      await running;
    },
  };
}

/**
 * After an item's analysis: when a model it waits for was installed meanwhile
 * (after the analysis looked, before the watcher saw the item), queue its catch-up.
 */
export async function catchUpIfInstalled(deps: CatchUpDeps, mediaId: string): Promise<void> {
  const stages = (await deps.storage.analysis.stagesOf([mediaId])).get(mediaId) ?? [];
  const installed = installedAmongWaiting(deps.models, stages);
  if (installed.length === 0) return;
  await deps.storage.jobs.enqueue({
    type: CATCH_UP_JOB,
    payload: { mediaId },
    key: mediaId,
    priority: PRIORITY_CATCH_UP,
  });
  deps.wakeJobs();
}
