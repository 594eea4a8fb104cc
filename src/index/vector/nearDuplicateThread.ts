/**
 * NearDuplicateScanner (nearDuplicates.ts) in a worker thread, for the duplicates scan job that runs in the
 * server process: quantising 100,000 vectors and grouping them is seconds of work that, sliced on the event
 * loop, still held it up to 0.87 s under load (docs/measurements/duplicates.md). The caller feeds pages of
 * vectors (copied into one buffer a page and transferred), then asks for the groups once; `close()` ends the
 * thread (so does an abort).
 */
import type { Worker } from 'node:worker_threads';
import { spawnWorker, stopWorker } from '../../platform/spawnWorker.js';
import type { NearDuplicateGroup } from './nearDuplicates.js';

export type NearDuplicateRequest =
  { type: 'add'; dims: number; vectors: Float32Array } | { type: 'groups'; threshold: number };
export type NearDuplicateReply = { type: 'groups'; groups: NearDuplicateGroup[] } | { type: 'error'; message: string };

export class NearDuplicateThread {
  private readonly worker: Worker;
  private count = 0;
  private failure: Error | null = null;
  private waiting: ((reply: NearDuplicateReply) => void) | null = null;

  constructor(readonly dims: number) {
    this.worker = spawnWorker(import.meta.url, 'nearDuplicateWorker', null);
    this.worker.on('message', (r: NearDuplicateReply) => {
      if (r.type === 'error') this.failure = new Error(r.message);
      this.waiting?.(r);
    });
    const lost = (err?: Error) => {
      this.failure ??= err ?? new Error('the near-duplicate worker stopped');
      this.waiting?.({ type: 'error', message: this.failure.message });
    };
    this.worker.on('error', lost);
    this.worker.on('exit', () => lost());
  }

  /** Vectors added so far. */
  get size(): number {
    return this.count;
  }

  /** Adds vectors of `dims` numbers each; their indexes follow the ones added before, in order. */
  add(vectors: Float32Array[]): void {
    if (this.failure) throw this.failure;
    if (vectors.length === 0) return;
    const packed = new Float32Array(vectors.length * this.dims);
    vectors.forEach((v, i) => packed.set(v, i * this.dims));
    this.count += vectors.length;
    const message: NearDuplicateRequest = { type: 'add', dims: this.dims, vectors: packed };
    this.worker.postMessage(message, [packed.buffer]);
  }

  /** The groups of everything added (as NearDuplicateScanner.groups); an abort stops the thread. */
  async groups(threshold: number, signal?: AbortSignal): Promise<NearDuplicateGroup[]> {
    if (this.failure) throw this.failure;
    const reply = await new Promise<NearDuplicateReply>((resolve, reject) => {
      const onAbort = () => reject(signal?.reason ?? new Error('aborted'));
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting = (r) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(r);
      };
      this.worker.postMessage({ type: 'groups', threshold } satisfies NearDuplicateRequest);
    });
    this.waiting = null;
    if (reply.type === 'error') throw new Error(reply.message);
    return reply.groups;
  }

  async close(): Promise<void> {
    this.worker.removeAllListeners('exit');
    await stopWorker(this.worker);
  }
}
