/**
 * The generation queue: image generations are durable jobs in the same SQLite
 * queue as ingest (src/jobs), run by a runner of their own with concurrency 1,
 * so exactly one heavy generation runs at a time in a process and ingest keeps
 * its own slots. A process that crashes mid-generation leaves the job running
 * under an expired lease; after a restart the runner claims it again and the
 * generation re-runs (same seed, same image).
 *
 * Admission: a request is refused (rate_limited → 429 with Retry-After) when
 * more than `maxQueue` generations already wait behind the running one.
 * Synchronous requests go through the same queue and wait for their job.
 *
 * The job's answer is stored in its `progress` record (`{done, total, result}`)
 * when it succeeds, and an error summary (`{error}`) when it fails for good:
 * the job store has no result column, and progress is the handler's own field.
 */
import { DomainError } from '../../platform/errors.js';
import type { Logger } from '../../platform/logger.js';
import type { JobContext } from '../../jobs/handler.js';
import { JobRunner } from '../../jobs/runner.js';
import type { Job, JobStore } from '../../jobs/types.js';

export const GENERATE_JOB = 'generate-image';

/** What a generation job's progress field holds. */
export interface GenerationProgress<R = unknown> {
  done: number;
  total: number;
  result?: R;
  error?: { code: string; message: string };
}

export interface GenerationQueueOptions<P, R> {
  store: JobStore;
  logger: Logger;
  /** Generations allowed to wait behind the running one. */
  maxQueue: number;
  leaseMs: number;
  /** Runs one job; returns the answer stored on it. Progress is (done, total). */
  run(payload: P, ctx: JobContext, progress: (done: number, total: number) => void): Promise<R>;
  /** Typical seconds per generation before any has been measured (Retry-After estimates). */
  initialSeconds?: number;
  /** Told of a job's progress as it is written, and once more when it succeeds or fails (e.g. to send events). */
  onProgress?(job: Job<P>, report: { done: number; total: number; status: 'running' | 'succeeded' | 'failed' }): void;
}

const POLL_MS = 150;
const PROGRESS_WRITE_MS = 500;

export class GenerationQueue<P, R> {
  private readonly runner: JobRunner;
  /** Wakes waiters when a job of this process settles (other processes' jobs are found by polling). */
  private readonly wakers = new Map<number, Set<() => void>>();
  private avgSeconds: number;

  constructor(private readonly opts: GenerationQueueOptions<P, R>) {
    this.avgSeconds = opts.initialSeconds ?? 60;
    this.runner = new JobRunner({ store: opts.store, logger: opts.logger, concurrency: 1, leaseMs: opts.leaseMs });
    this.runner.register<P>(GENERATE_JOB, (job, ctx) => this.execute(job, ctx));
  }

  start(): void {
    this.runner.start();
  }

  stop(graceMs: number, killMs?: number): Promise<unknown> {
    return this.runner.stop({ graceMs, killMs });
  }

  /** Queues a generation, or refuses with rate_limited when the queue is full. */
  async enqueue(payload: P): Promise<Job<P>> {
    const { store, maxQueue } = this.opts;
    const [queued, running] = await Promise.all([
      store.list({ type: GENERATE_JOB, status: 'queued', limit: 1 }),
      store.list({ type: GENERATE_JOB, status: 'running', limit: 1 }),
    ]);
    const ahead = queued.total + running.total;
    if (ahead > maxQueue) {
      const seconds = Math.max(1, Math.ceil(ahead * this.avgSeconds));
      throw new DomainError(
        'rate_limited',
        `the image generation queue is full (${ahead} generations ahead; GENERATE_MAX_QUEUE=${maxQueue})`,
        { retryAfterSeconds: seconds },
      );
    }
    const job = await store.enqueue<P>({ type: GENERATE_JOB, payload, maxAttempts: 3 });
    this.runner.notify();
    return job;
  }

  get(id: number): Promise<Job | null> {
    return this.opts.store.get(id);
  }

  /** Waits until the job settles or `timeoutMs` passes; returns the latest record. */
  async wait(id: number, timeoutMs: number): Promise<Job | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const job = await this.opts.store.get(id);
      if (!job || job.status === 'succeeded' || job.status === 'failed' || job.status === 'cancelled') return job;
      const left = deadline - Date.now();
      if (left <= 0) return job;
      await new Promise<void>((resolve) => {
        const set = this.wakers.get(id) ?? new Set();
        this.wakers.set(id, set);
        const done = () => {
          clearTimeout(timer);
          set.delete(done);
          if (set.size === 0) this.wakers.delete(id);
          resolve();
        };
        const timer = setTimeout(done, Math.min(POLL_MS, left));
        set.add(done);
      });
    }
  }

  private wake(id: number): void {
    for (const w of [...(this.wakers.get(id) ?? [])]) w();
  }

  private tell(job: Job<P>, report: { done: number; total: number; status: 'running' | 'succeeded' | 'failed' }) {
    try {
      this.opts.onProgress?.(job, report);
    } catch (err) {
      this.opts.logger.warn('generation progress report failed', { err });
    }
  }

  private async execute(job: Job<P>, ctx: JobContext): Promise<void> {
    const started = Date.now();
    let last = 0;
    let latest: GenerationProgress = { done: 0, total: 0 };
    const progress = (done: number, total: number) => {
      latest = { done, total };
      const now = Date.now();
      if (now - last < PROGRESS_WRITE_MS && done < total) return;
      last = now;
      void ctx.progress(latest).catch(() => undefined);
      this.tell(job, { ...latest, status: 'running' });
    };
    try {
      await ctx.progress(latest);
      this.tell(job, { ...latest, status: 'running' });
      const result = await this.opts.run(job.payload, ctx, progress);
      await ctx.progress({ done: latest.total, total: latest.total, result } satisfies GenerationProgress);
      this.tell(job, { done: latest.total, total: latest.total, status: 'succeeded' });
      this.avgSeconds = 0.7 * this.avgSeconds + 0.3 * ((Date.now() - started) / 1000);
    } catch (err) {
      // Keep the code for the status answer; the runner decides whether to retry.
      const code = err instanceof DomainError ? err.code : 'internal';
      await ctx
        .progress({ ...latest, error: { code, message: err instanceof Error ? err.message : String(err) } })
        .catch(() => undefined);
      this.tell(job, { ...latest, status: 'failed' });
      throw err;
    } finally {
      // The runner records the outcome right after this returns; waiters poll for it.
      setTimeout(() => this.wake(job.id), 20);
    }
  }
}
