/**
 * Keeps the vector index fast without anyone asking:
 * - at start-up, loads the int8 copies into memory (a cold query in a big
 *   library reads them from disk, several times slower; numbers:
 *   docs/measurements/features.md) and builds
 *   an index for any model that has stored embeddings but none (a database
 *   from before the index, or one whose index generation was lost);
 * - then at start-up and every 15 minutes (a cheap look at the stats), rebuilds an index whose deletes left many holes
 *   or that was quantised before its model's mean was known, or whose big
 *   collections have no coarse lists (IVF) or outgrew theirs (`needsRebuild`).
 * All of it runs in batches that give the event loop a turn between them, so
 * requests keep being answered meanwhile.
 */
import type { Services } from '../kernel/services.js';

export interface SearchMaintenance {
  /** Resolves when the start-up pass (warm-up and missing indexes) is over. */
  ready: Promise<void>;
  /** Stops the checks and any rebuild in progress; resolves once nothing runs. */
  stop(): Promise<void>;
}

/** A big import gets its coarse lists within this long (the check itself reads a few counters). */
const CHECK_EVERY_MS = 15 * 60_000;

export function startSearchMaintenance(
  deps: Pick<Services, 'storage' | 'indexes' | 'logger'>,
  opts: { checkEveryMs?: number } = {},
): SearchMaintenance {
  const log = deps.logger.child({ component: 'search-maintenance' });
  const abort = new AbortController();
  let busy: Promise<void> = Promise.resolve();

  const rebuild = async (modelId: string, why: string) => {
    const t0 = Date.now();
    log.info('rebuilding vector index', { modelId, why });
    const { rows } = await deps.indexes.vectors.rebuild(modelId, { signal: abort.signal });
    log.info('vector index rebuilt', { modelId, rows, ms: Date.now() - t0 });
  };

  const startUp = async () => {
    // The text index warms up in its worker thread meanwhile (a big library; nothing to do for a small one).
    void deps.indexes.text.warm?.().then(
      ({ rows }) => rows && log.info('text index warmed', { rows }),
      (err: unknown) => log.warn('text index warm-up failed', { err }),
    );
    for (const modelId of await deps.indexes.vectors.unindexedModels()) {
      if (abort.signal.aborted) return;
      await rebuild(modelId, 'no index');
    }
    if (abort.signal.aborted) return;
    const { rows } = await deps.indexes.vectors.warm();
    if (rows) log.info('vector cache warmed', { rows });
    await check();
  };

  const check = async () => {
    for (const stat of await deps.indexes.vectors.stats()) {
      if (abort.signal.aborted) return;
      if (stat.state === 'live' && stat.needsRebuild)
        await rebuild(
          stat.modelId,
          `${stat.reclaimable} holes of ${stat.slots} slots, centred: ${stat.centered}, rows wanting coarse lists: ${stat.unlistedRows}`,
        );
    }
  };

  const guarded = (what: string, fn: () => Promise<void>) => {
    busy = busy.then(fn).catch((err) => {
      if (!abort.signal.aborted) log.warn(`${what} failed`, { err });
    });
    return busy;
  };

  const ready = guarded('vector index start-up', startUp);
  const timer = setInterval(() => void guarded('vector index check', check), opts.checkEveryMs ?? CHECK_EVERY_MS);
  timer.unref();
  return {
    ready,
    stop: async () => {
      clearInterval(timer);
      abort.abort();
      await busy;
    },
  };
}
