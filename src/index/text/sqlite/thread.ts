import type { Worker } from 'node:worker_threads';
import { deserializeError, type SerializedError } from '../../../platform/errors.js';
import type { TextHit, TextIndex, TextSearchQuery } from '../textIndex.js';
import { spawnWorker, stopWorker } from '../../../platform/spawnWorker.js';
import type { Db } from './db.js';
import { sqliteTextIndex } from './textIndex.js';

/**
 * The text index of a big library, searched in a worker thread with a
 * read-only connection of its own (worker.ts).
 *
 * Why: a search asks the vector index and the text index at once, and over a
 * library bigger than the OS keeps cached both mostly wait on scattered page
 * reads. better-sqlite3 is synchronous, so in one thread they wait one after
 * the other; with the text search in a worker they wait together, and the
 * event loop is free meanwhile (timings: docs/measurements/text-index.md).
 *
 * Below `threadRows` index rows a search runs in this thread (it takes a few
 * milliseconds, less than a worker costs to start). The worker starts with the
 * first search that needs it. Its connection sees what is committed: every
 * write here is committed before the search that follows it is asked. If the
 * worker dies, what it was asked is answered here, and a new one is started
 * for the next search (after MAX_CRASHES, searches stay in this thread).
 * warm() has the worker read the pages searches look up row by row into its
 * own cache (warm.ts); the server asks for it at start-up.
 */
export const THREAD_ROWS = 50_000;
const MAX_CRASHES = 3;
/**
 * The worker connection's page cache: what warm() reads (see warm.ts) and
 * the pages searches read after it.
 * Allocated as pages are read, so a smaller library takes less.
 */
export const TEXT_CACHE_MIB = 512;

/** What the worker is started with. */
export interface TextWorkerSetup {
  file: string;
  cacheMiB: number;
}
export type TextWorkerRequest = { id: number; query: TextSearchQuery } | { id: number; warm: true };
export type TextWorkerReply =
  { id: number; hits: TextHit[] } | { id: number; rows: number } | { id: number; error: SerializedError };

export interface ThreadedTextIndex extends TextIndex {
  /** Whether the next search would run in the worker (tests, diagnostics). */
  threaded(): boolean;
  /** The worker thread when one is running (tests). */
  worker(): Worker | null;
  /** Has the worker read what searches look up into its cache (a big library; else nothing to do). */
  warm(): Promise<{ rows: number }>;
  /** Stops the worker; searches still waiting on it are answered in this thread. */
  close(): Promise<void>;
}

export interface ThreadedTextIndexOptions {
  /** Index rows from which searches run in the worker (THREAD_ROWS; 0: always). */
  threadRows?: number;
  /** The worker's page cache (TEXT_CACHE_MIB). */
  cacheMiB?: number;
}

/** A search (or, query null, a warm-up) the worker was asked. */
interface Pending {
  query: TextSearchQuery | null;
  resolve(reply: TextHit[] | number): void;
  reject(err: Error): void;
}

export function threadedTextIndex(db: Db, file: string, options: ThreadedTextIndexOptions = {}): ThreadedTextIndex {
  const local = sqliteTextIndex(db);
  const threadRows = options.threadRows ?? THREAD_ROWS;
  const rowCount = db.prepare(`SELECT rows FROM text_index_rows WHERE id = 1`).pluck();
  const pending = new Map<number, Pending>();
  let worker: Worker | null = null;
  let crashes = 0;
  let closed = false;
  let nextId = 1;

  // A lost worker's search is answered here; its warm-up is just over (nothing was read).
  const answerHere = (p: Pending) => (p.query ? local.search(p.query).then(p.resolve, p.reject) : p.resolve(0));

  function start(): Worker {
    const setup: TextWorkerSetup = { file, cacheMiB: options.cacheMiB ?? TEXT_CACHE_MIB };
    const w = spawnWorker(import.meta.url, 'worker', setup);
    // Held only while a search waits on it: an idle worker never keeps the process alive.
    w.unref();
    w.on('message', (r: TextWorkerReply) => {
      const p = pending.get(r.id);
      if (!p) return;
      pending.delete(r.id);
      if (pending.size === 0) w.unref();
      if ('hits' in r) p.resolve(r.hits);
      else if ('rows' in r) p.resolve(r.rows);
      else p.reject(deserializeError(r.error, (message) => new Error(message)));
    });
    const lost = () => {
      if (worker !== w) return;
      worker = null;
      if (!closed) crashes += 1;
      for (const [id, p] of pending) {
        pending.delete(id);
        void answerHere(p);
      }
    };
    w.on('error', lost);
    w.on('exit', lost);
    return w;
  }

  /** Posts a search (or, null, a warm-up) to the worker, started if need be. */
  function ask(query: TextSearchQuery | null): Promise<TextHit[] | number> {
    const w = (worker ??= start());
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { query, resolve, reject });
      w.ref();
      w.postMessage((query ? { id, query } : { id, warm: true }) satisfies TextWorkerRequest);
    });
  }

  const threaded = () =>
    !closed && crashes < MAX_CRASHES && ((rowCount.get() as number | undefined) ?? 0) >= threadRows;

  return {
    threaded,
    worker: () => worker,
    async search(query) {
      if (!threaded()) return local.search(query);
      return (await ask(query)) as TextHit[];
    },
    async warm() {
      if (!threaded()) return { rows: 0 };
      return { rows: (await ask(null)) as number };
    },
    async close() {
      closed = true;
      const w = worker;
      if (w) await stopWorker(w);
    },
  };
}
