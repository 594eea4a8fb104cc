import type { Worker } from 'node:worker_threads';
import { DomainError, type ErrorCode, type SerializedError } from '../../errors.js';
import type { TextHit, TextIndex, TextSearchQuery } from '../../search/textIndex.js';
import { spawnWorker, stopWorker } from '../../spawnWorker.js';
import type { Db } from './database.js';
import { sqliteTextIndex } from './textIndex.js';

/**
 * The text index of a big library, searched in a worker thread with a
 * read-only connection of its own (textIndexWorker.ts).
 *
 * Why: a search asks the vector index and the text index at once, and over a
 * library bigger than the OS keeps cached both mostly wait on scattered page
 * reads. better-sqlite3 is synchronous, so in one thread they wait one after
 * the other; with the text search in a worker they wait together, and the
 * event loop is free meanwhile. Measured over a 1M-frame library here:
 * vector search ~23 ms, text search ~31 ms, one after the other ~55.
 *
 * Below `threadRows` index rows a search runs in this thread (it takes a few
 * milliseconds, less than a worker costs to start). The worker starts with the
 * first search that needs it. Its connection sees what is committed: every
 * write here is committed before the search that follows it is asked. If the
 * worker dies, what it was asked is answered here, and a new one is started
 * for the next search (after MAX_CRASHES, searches stay in this thread).
 */
export const THREAD_ROWS = 50_000;
const MAX_CRASHES = 3;

/** What the worker is started with. */
export interface TextWorkerSetup {
  file: string;
}
export interface TextWorkerRequest {
  id: number;
  query: TextSearchQuery;
}
export type TextWorkerReply = { id: number; hits: TextHit[] } | { id: number; error: SerializedError };

export interface ThreadedTextIndex extends TextIndex {
  /** Whether the next search would run in the worker (tests, diagnostics). */
  threaded(): boolean;
  /** The worker thread when one is running (tests). */
  worker(): Worker | null;
  /** Stops the worker; searches still waiting on it are answered in this thread. */
  close(): Promise<void>;
}

export interface ThreadedTextIndexOptions {
  /** Index rows from which searches run in the worker (THREAD_ROWS; 0: always). */
  threadRows?: number;
}

interface Pending {
  query: TextSearchQuery;
  resolve(hits: TextHit[]): void;
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

  const answerHere = (p: Pending) => local.search(p.query).then(p.resolve, p.reject);

  function start(): Worker {
    const w = spawnWorker(import.meta.url, 'textIndexWorker', { file } satisfies TextWorkerSetup);
    // Held only while a search waits on it: an idle worker never keeps the process alive.
    w.unref();
    w.on('message', (r: TextWorkerReply) => {
      const p = pending.get(r.id);
      if (!p) return;
      pending.delete(r.id);
      if (pending.size === 0) w.unref();
      if ('hits' in r) p.resolve(r.hits);
      else p.reject(r.error.code ? new DomainError(r.error.code as ErrorCode, r.error.message, r.error.details ?? {}) : new Error(r.error.message));
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

  const threaded = () => !closed && crashes < MAX_CRASHES && ((rowCount.get() as number | undefined) ?? 0) >= threadRows;

  return {
    threaded,
    worker: () => worker,
    async search(query) {
      if (!threaded()) return local.search(query);
      const w = (worker ??= start());
      const id = nextId++;
      return new Promise<TextHit[]>((resolve, reject) => {
        pending.set(id, { query, resolve, reject });
        w.ref();
        w.postMessage({ id, query } satisfies TextWorkerRequest);
      });
    },
    async close() {
      closed = true;
      const w = worker;
      if (w) await stopWorker(w);
    },
  };
}
