/**
 * A pool of model worker threads with a bounded queue.
 *
 * - Inference never runs on the main event loop: requests go to worker threads
 *   (one by default; each worker holds its own copy of the models it loads).
 * - The queue is bounded: when `maxQueue` requests are waiting, submit() rejects
 *   with DomainError('rate_limited') and a Retry-After estimate, which the
 *   HTTP layer turns into 429.
 * - Queued requests of the same kind, model and options are merged into one batch
 *   (up to maxBatch inputs) when a worker frees up: one session run for many
 *   small requests. If a merged batch fails, its requests are retried one by one
 *   so one bad image fails only its own request.
 * - With a batch window (batchWindowMs > 0), a request that could batch waits up to that long for
 *   others of its kind to arrive before an idle worker takes it: concurrent ingest jobs then share
 *   one session run (an embedding of four frames instead of four of one).
 * - A crashed worker fails its in-flight requests with 'unavailable' and is
 *   replaced on the next dispatch.
 * - Text embeddings (a search's query) are served before waiting image work (see enqueue).
 */
import type { Worker } from 'node:worker_threads';
import { spawnWorker, stopWorker } from '../../platform/spawnWorker.js';
import { DomainError, deserializeError, type SerializedError } from '../../platform/errors.js';
import type { Logger } from '../../platform/logger.js';
import type { LoadedModel, PoolWork } from '../types.js';

export type { PoolWork } from '../types.js';
import type { RequestKind, RequestOptions, WorkerRequest, WorkerMessage, WorkerSetup } from './protocol.js';

export type Output = Float32Array | string | Uint8Array;

interface Pending {
  kind: RequestKind;
  model: string;
  inputs: (Uint8Array | string)[];
  options: RequestOptions;
  key: string;
  solo: boolean;
  /** performance.now() when queued (for the batch window). */
  queuedAt: number;
  /** Progress reports of a long request (generate); such requests are never merged. */
  onProgress?: (done: number, total: number) => void;
  resolve(outputs: Output[]): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  /** Requests of the batch in flight, with its request id. */
  inFlight: { id: number; requests: Pending[]; startedAt: number } | null;
}

export interface PoolOptions {
  setup: WorkerSetup;
  logger: Logger;
  /** Worker threads (default 1). */
  size?: number;
  /** Most requests waiting (not in flight) before rate limiting (default 32). */
  maxQueue?: number;
  /** Most inputs merged into one batch, per kind. */
  maxBatch?: Partial<Record<RequestKind, number>>;
  /** How long a batchable request may wait for company while a worker is idle (default 0: not at all). */
  batchWindowMs?: number;
  onModels?(loaded: LoadedModel[]): void;
}

const DEFAULT_MAX_BATCH: Record<RequestKind, number> = {
  embedImages: 16,
  embedTexts: 64,
  caption: 8,
  warm: 1,
  detect: 4,
  embedFaces: 1,
  modelId: 1,
  generate: 1,
  upscale: 1,
  matte: 1,
};

function spawn(setup: WorkerSetup): Worker {
  return spawnWorker(import.meta.url, 'entry', setup, ['@huggingface/transformers', 'sharp']);
}

function toError(e: SerializedError): Error {
  return deserializeError(e, (message) => new DomainError('unavailable', `model worker failed: ${message}`));
}

export class WorkerPool {
  private readonly queue: Pending[] = [];
  private readonly slots: Slot[] = [];
  private readonly size: number;
  private readonly maxQueue: number;
  private readonly maxBatch: Record<RequestKind, number>;
  private nextId = 1;
  private closed = false;
  /** Moving average of batch wall time, for Retry-After. */
  private avgBatchMs = 500;
  private batches = 0;
  private readonly batchWindowMs: number;
  private windowTimer: NodeJS.Timeout | null = null;
  private readonly work: PoolWork = { busyMs: 0, byKey: {} };
  private busySince: number | null = null;

  constructor(private readonly opts: PoolOptions) {
    this.size = Math.max(1, opts.size ?? 1);
    this.maxQueue = Math.max(1, opts.maxQueue ?? 32);
    this.maxBatch = { ...DEFAULT_MAX_BATCH, ...opts.maxBatch };
    this.batchWindowMs = Math.max(0, opts.batchWindowMs ?? 0);
  }

  /** Queues a request; resolves with one output per input. */
  submit(
    kind: RequestKind,
    model: string,
    inputs: (Uint8Array | string)[],
    options: RequestOptions = {},
    onProgress?: (done: number, total: number) => void,
  ): Promise<Output[]> {
    if (this.closed) return Promise.reject(new DomainError('unavailable', 'models are shutting down'));
    if (this.queue.length >= this.maxQueue) {
      const busyWorkers = Math.max(1, this.slots.length);
      const seconds = Math.ceil(((this.queue.length / busyWorkers + 1) * this.avgBatchMs) / 1000);
      return Promise.reject(
        new DomainError('rate_limited', `model queue is full (${this.queue.length} waiting)`, {
          retryAfterSeconds: Math.max(1, seconds),
        }),
      );
    }
    return new Promise((resolve, reject) => {
      this.enqueue({
        kind,
        model,
        inputs,
        options,
        key: `${kind}|${model}|${JSON.stringify(options)}`,
        solo: !!onProgress,
        queuedAt: performance.now(),
        onProgress,
        resolve,
        reject,
      });
      this.pump();
    });
  }

  /**
   * Text embeddings go ahead of the other waiting work (behind earlier text embeddings): they take milliseconds and
   * almost always have a person waiting (a search, a tag suggestion), while the images behind them are ingest's.
   * Measured: under the soak mix a search waited behind ingest for the worker (docs/measurements/soak.md).
   */
  private enqueue(request: Pending): void {
    if (request.kind !== 'embedTexts') {
      this.queue.push(request);
      return;
    }
    const firstOther = this.queue.findIndex((r) => r.kind !== 'embedTexts');
    this.queue.splice(firstOther === -1 ? this.queue.length : firstOther, 0, request);
  }

  /** Requests waiting, batches in flight and sent so far, for health output and tests. */
  stats(): { queued: number; inFlight: number; workers: number; batches: number } {
    return {
      queued: this.queue.length,
      inFlight: this.slots.filter((s) => s.inFlight).length,
      workers: this.slots.length,
      batches: this.batches,
    };
  }

  /** Work done so far (a copy), for the bench and health output. */
  workStats(): PoolWork {
    const open = this.busySince === null ? 0 : performance.now() - this.busySince;
    return { busyMs: this.work.busyMs + open, byKey: structuredClone(this.work.byKey) };
  }

  /**
   * Whether the head of the queue should wait for company: a batch window is set, its kind batches,
   * the batch it would form is not full, and it has waited less than the window. Arms a timer to look again.
   */
  private holdForBatch(): boolean {
    if (this.batchWindowMs <= 0) return false;
    const head = this.queue[0];
    const limit = this.maxBatch[head.kind];
    if (head.solo || limit <= 1) return false;
    const count = this.queue.reduce((n, r) => (r.key === head.key && !r.solo ? n + r.inputs.length : n), 0);
    const waitLeft = head.queuedAt + this.batchWindowMs - performance.now();
    if (count >= limit || waitLeft <= 0) return false;
    if (!this.windowTimer)
      this.windowTimer = setTimeout(() => {
        this.windowTimer = null;
        this.pump();
      }, Math.ceil(waitLeft));
    return true;
  }

  private pump(): void {
    if (this.closed) return;
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.ready && !slot.inFlight) {
        if (this.holdForBatch()) break;
        this.dispatch(slot);
      }
    }
    // Still waiting and every worker busy: add one (never two starting at once), up to size.
    if (this.queue.length > 0 && this.slots.length < this.size && this.slots.every((s) => s.ready)) this.start();
  }

  private takeBatch(): Pending[] {
    const first = this.queue.shift()!;
    const batch = [first];
    if (first.solo) return batch;
    let count = first.inputs.length;
    for (let i = 0; i < this.queue.length && count < this.maxBatch[first.kind];) {
      const request = this.queue[i];
      if (!request.solo && request.key === first.key && count + request.inputs.length <= this.maxBatch[first.kind]) {
        batch.push(request);
        count += request.inputs.length;
        this.queue.splice(i, 1);
      } else i++;
    }
    return batch;
  }

  private dispatch(slot: Slot): void {
    const requests = this.takeBatch();
    const id = this.nextId++;
    this.batches++;
    this.busySince ??= performance.now();
    slot.inFlight = { id, requests, startedAt: performance.now() };
    slot.worker.ref();
    const request: WorkerRequest = {
      type: 'request',
      id,
      kind: requests[0].kind,
      model: requests[0].model,
      inputs: requests.flatMap((pending) => pending.inputs),
      options: requests[0].options,
    };
    slot.worker.postMessage(request);
  }

  private start(): void {
    const worker = spawn(this.opts.setup);
    const slot: Slot = { worker, ready: false, inFlight: null };
    this.slots.push(slot);
    worker.on('message', (msg: WorkerMessage) => this.onMessage(slot, msg));
    worker.on('error', (err) => this.onExit(slot, err.message));
    worker.on('exit', (code) => this.onExit(slot, `exited with code ${code}`));
  }

  private onMessage(slot: Slot, msg: WorkerMessage): void {
    switch (msg.type) {
      case 'ready':
        slot.ready = true;
        slot.worker.unref();
        break;
      case 'log':
        this.opts.logger[msg.level](msg.msg, msg.fields);
        return;
      case 'models':
        this.opts.onModels?.(msg.loaded);
        return;
      case 'progress':
        if (slot.inFlight?.id === msg.id) slot.inFlight.requests[0].onProgress?.(msg.done, msg.total);
        return;
      case 'result':
      case 'error': {
        const flight = slot.inFlight;
        if (!flight || flight.id !== msg.id) return;
        slot.inFlight = null;
        slot.worker.unref();
        this.account(flight);
        this.avgBatchMs = 0.8 * this.avgBatchMs + 0.2 * (performance.now() - flight.startedAt);
        if (msg.type === 'result') {
          let offset = 0;
          for (const request of flight.requests) {
            request.resolve(msg.outputs.slice(offset, offset + request.inputs.length));
            offset += request.inputs.length;
          }
        } else if (flight.requests.length > 1) {
          // Retry each merged request alone, at the front, in order.
          for (const request of flight.requests) request.solo = true;
          this.queue.unshift(...flight.requests);
        } else {
          flight.requests[0].reject(toError(msg.error));
        }
        break;
      }
    }
    this.pump();
  }

  /** Adds a finished batch to the work done. */
  private account(flight: NonNullable<Slot['inFlight']>): void {
    const first = flight.requests[0];
    const key = `${first.kind}|${first.model}`;
    const entry = (this.work.byKey[key] ??= { batches: 0, inputs: 0, ms: 0 });
    entry.batches++;
    entry.inputs += flight.requests.reduce((n, r) => n + r.inputs.length, 0);
    entry.ms += performance.now() - flight.startedAt;
    if (this.busySince !== null && this.slots.every((s) => !s.inFlight)) {
      this.work.busyMs += performance.now() - this.busySince;
      this.busySince = null;
    }
  }

  private onExit(slot: Slot, why: string): void {
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    this.slots.splice(index, 1);
    const flight = slot.inFlight;
    slot.inFlight = null;
    if (!this.closed) this.opts.logger.error('model worker stopped', { why });
    for (const request of flight?.requests ?? [])
      request.reject(new DomainError('unavailable', `model worker stopped: ${why}`));
    this.opts.onModels?.([]);
    if (!slot.ready && !this.closed) {
      // It died while starting: fail what waits rather than respawn in a loop.
      for (const request of this.queue.splice(0))
        request.reject(new DomainError('unavailable', `model worker failed to start: ${why}`));
      return;
    }
    this.pump();
  }

  /** Fails queued requests, lets in-flight batches finish (up to graceMs), then stops the workers. */
  async close(graceMs = 10_000): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.windowTimer) clearTimeout(this.windowTimer);
    for (const request of this.queue.splice(0))
      request.reject(new DomainError('unavailable', 'models are shutting down'));
    const deadline = Date.now() + graceMs;
    while (this.slots.some((s) => s.inFlight) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await Promise.all(
      this.slots.splice(0).map(async (slot) => {
        for (const request of slot.inFlight?.requests ?? [])
          request.reject(new DomainError('unavailable', 'models are shutting down'));
        await stopWorker(slot.worker);
      }),
    );
  }
}
