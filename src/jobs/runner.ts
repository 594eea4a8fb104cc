/**
 * The worker loop of the durable job queue (the queue itself: ./types.ts).
 *
 * A JobRunner claims jobs of the types registered on it, runs up to
 * `concurrency` handlers at once, keeps each job's lease alive while its handler
 * runs, and settles the job: succeeded, queued again after a backoff, or failed
 * for good. Several runners (in one process or several, each with its own
 * database connection) can share one queue: a claim hands a job to one of them.
 *
 * Delivery is at-least-once. A job runs again when its worker crashes, stalls
 * past its lease or loses its lease, and a handler may also be interrupted
 * half-way (shutdown, cancellation). Handlers must therefore be idempotent:
 * re-running one replaces its own earlier output and never duplicates it.
 *
 * Crash resume: a crashed process's jobs stay `running` until their lease
 * expires, then any runner reclaims them (attempts + 1). A starting runner
 * ends at once the leases of a dead process on this host (./deadOwners.ts), so
 * a restart after a crash does not wait them out; other hosts' leases run out.
 * Owner ids are random per process, and fresh per claim, so no runner ever
 * mistakes an old lease for its own.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Logger } from '../platform/logger.js';
import { ownerIsDead, PROCESS_TOKEN } from './deadOwners.js';
import { executeJob, type Claimed, type Registered } from './execution.js';
import { backoffDelay, JobAbort, type BackoffOptions } from './failures.js';
import type { HandlerOptions, JobHandler } from './handler.js';
import type { Job, JobStore } from './types.js';

export interface JobRunnerOptions {
  store: JobStore;
  logger: Logger;
  /** Handlers running at once. Default 1. */
  concurrency?: number;
  /** Lease length; renewed every leaseMs / 3 while a handler runs. Default 60 s. */
  leaseMs?: number;
  /** Idle poll interval; notify() wakes the runner sooner. Default 500 ms. */
  pollMs?: number;
  /** Exponential backoff, or a function of the attempt that failed (1-based) giving the delay in ms. */
  backoff?: BackoffOptions | ((attempt: number) => number);
  /** Extra slots beside `concurrency` for these types only (which use the general ones too), so they never wait
   * for a long job of another type (a fresh upload's first phases while an import is analysed); they claim the
   * newest job first, the general slots the oldest, so a backlog is worked from both ends. Default none. */
  lane?: { types: readonly string[]; slots: number };
  /**
   * Honour the queue's pause (JobStore.setPaused): while paused, claim only the `keep` types (the first phases of
   * ingest, so a fresh upload still becomes searchable). Read once per pass of the loop. Default: not pausable.
   */
  pausable?: { keep: readonly string[] };
  /** Free space (platform/diskSpace.ts): nothing is claimed while the disk is full; a job that hits it is released. */
  diskSpace?: { readonly full: boolean; reportFull(err: unknown): void };
  /** A fixed prefix for lease owners (default host:pid:processToken.random); a fresh suffix is added per claim. */
  ownerId?: string;
}

interface Running extends Claimed {
  lane: 'general' | 'urgent'; // which slots it holds
  done: Promise<void>;
}

export class JobRunner {
  readonly ownerId: string;
  private readonly store: JobStore;
  private readonly logger: Logger;
  private readonly concurrency: number;
  private readonly lane: { types: readonly string[]; slots: number };
  private readonly pausable: { keep: readonly string[] } | null;
  private readonly diskSpace: JobRunnerOptions['diskSpace'];
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly backoff: (attempt: number) => number;
  private readonly handlers = new Map<string, Registered>();
  private readonly running = new Map<number, Running>();
  private claimSeq = 0;
  private state: 'idle' | 'running' | 'stopping' | 'stopped' = 'idle';
  private loopDone: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private woken = false;
  private idleWaiters: Array<() => void> = [];
  private lastClaimEmpty = false;
  /** Claims failed in a row (only the first of a run is logged). */
  private claimFailures = 0;

  constructor(opts: JobRunnerOptions) {
    this.store = opts.store;
    this.logger = opts.logger;
    this.concurrency = Math.max(1, Math.floor(opts.concurrency ?? 1));
    this.lane = { types: opts.lane?.types ?? [], slots: Math.max(0, Math.floor(opts.lane?.slots ?? 0)) };
    this.leaseMs = opts.leaseMs ?? 60_000;
    this.pausable = opts.pausable ?? null;
    this.diskSpace = opts.diskSpace;
    this.pollMs = opts.pollMs ?? 500;
    const backoff = opts.backoff;
    this.backoff = typeof backoff === 'function' ? backoff : (attempt) => backoffDelay(attempt, backoff);
    this.ownerId = opts.ownerId ?? `${os.hostname()}:${process.pid}:${PROCESS_TOKEN}.${randomBytes(4).toString('hex')}`;
  }

  /** Registers the handler of one job type; the runner claims only registered types. */
  register<T>(type: string, handler: JobHandler<T>, opts: HandlerOptions<T> = {}): this {
    if (this.handlers.has(type)) throw new Error(`a handler for job type ${type} is already registered`);
    this.handlers.set(type, { handler: handler as JobHandler<unknown>, opts: opts as HandlerOptions<unknown> });
    return this;
  }

  /** Starts claiming. Idempotent while running. */
  start(): void {
    if (this.state === 'running') return;
    if (this.state !== 'idle') throw new Error('a stopped JobRunner cannot be restarted; create a new one');
    this.state = 'running';
    this.logger.info('job runner started', {
      owner: this.ownerId,
      types: [...this.handlers.keys()],
      concurrency: this.concurrency,
      ...(this.lane.slots ? { lane: this.lane } : {}),
      leaseMs: this.leaseMs,
    });
    this.loopDone = this.loop();
  }

  /** Wakes the idle loop now (call after an enqueue). */
  notify(): void {
    this.woken = true;
    this.wake?.();
  }

  /** Jobs in flight. */
  get activeCount(): number {
    return this.running.size;
  }

  /**
   * Resolves once nothing is in flight and the latest claim found nothing due
   * (for scripts and tests; jobs delayed by backoff are not waited for).
   */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Stops claiming, lets in-flight handlers finish for `graceMs` (default 10 s),
   * then aborts their signals and waits for them to settle, at most `killMs`
   * more (default 5 s). A job interrupted by shutdown goes back to the queue
   * without spending an attempt; one whose handler never settles keeps its
   * lease, which expires so that another runner picks it up.
   */
  async stop(opts: { graceMs?: number; killMs?: number } = {}): Promise<{ abandoned: number }> {
    if (this.state === 'idle') {
      this.state = 'stopped';
      return { abandoned: 0 };
    }
    if (this.state === 'stopped') return { abandoned: 0 };
    this.state = 'stopping';
    this.notify();
    await this.loopDone;
    const settled = () => Promise.all([...this.running.values()].map((r) => r.done));
    if (this.running.size > 0) {
      this.logger.info('job runner stopping: waiting for running jobs', {
        count: this.running.size,
        graceMs: opts.graceMs ?? 10_000,
      });
      if (!(await within(settled(), opts.graceMs ?? 10_000))) {
        for (const r of this.running.values()) {
          r.controller.abort(new JobAbort('shutdown', 'the job runner is shutting down'));
        }
        await within(settled(), opts.killMs ?? 5_000);
      }
    }
    const abandoned = this.running.size;
    if (abandoned > 0) this.logger.warn('job runner stopped with handlers still running', { count: abandoned });
    this.state = 'stopped';
    this.logger.info('job runner stopped', { owner: this.ownerId });
    this.flushIdle(true);
    return { abandoned };
  }

  private isIdle(): boolean {
    return this.running.size === 0 && (this.lastClaimEmpty || this.state !== 'running');
  }

  private flushIdle(force = false): void {
    if (!force && !this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  /** Ends the leases held by dead processes on this host, so the claims below take their jobs at once. */
  private async reclaimDead(): Promise<void> {
    try {
      const dead = (await this.store.runningLeaseOwners()).filter((owner) => ownerIsDead(owner));
      const jobs = await this.store.expireLeases(dead);
      if (jobs > 0) this.logger.info('reclaiming the jobs of a dead process on this host', { jobs, owners: dead });
    } catch (err) {
      this.logger.error('could not check for dead lease holders; their jobs wait for their leases', { err });
    }
  }

  private async loop(): Promise<void> {
    await this.reclaimDead();
    while (this.state === 'running') {
      const keep = await this.pausedKeep();
      // Handlers registered after start() count too; while paused, only the kept types.
      const types = [...this.handlers.keys()].filter((t) => !keep || keep.includes(t));
      this.woken = false;
      let failed = false;
      const held = this.diskSpace?.full === true; // a full disk: claim nothing, look again after a poll interval
      for (let lane = held ? null : this.freeLane(); this.state === 'running' && lane; lane = this.freeLane()) {
        const owner = `${this.ownerId}:${++this.claimSeq}`;
        let job: Job | null;
        try {
          const claimable = lane === 'general' ? types : this.lane.types.filter((t) => types.includes(t));
          job = await this.store.claim(
            owner,
            claimable,
            this.leaseMs,
            new Date(),
            lane === 'urgent' ? 'newest' : 'oldest',
          );
        } catch (err) {
          // E.g. the database is busy beyond its timeout or away: try again after a poll interval, logging
          // the first failure of a run of them only (an outage would otherwise log once per poll).
          if (this.claimFailures++ === 0)
            this.logger.error('job claim failed; retrying quietly until it works', { err });
          failed = true;
          break;
        }
        if (this.claimFailures > 0) {
          this.logger.info('job claims work again', { failedTries: this.claimFailures });
          this.claimFailures = 0;
        }
        if (!job) {
          this.lastClaimEmpty = true;
          this.flushIdle();
          break;
        }
        this.lastClaimEmpty = false;
        this.launch(job, owner, lane);
      }
      if (this.state !== 'running') break;
      // Sleep until notified, a slot frees up, or the poll interval passes. With
      // every slot busy there is nothing to poll for: only a finishing job wakes us.
      if (this.woken && !failed) continue;
      const full = this.freeLane() === null;
      await new Promise<void>((resolve) => {
        const timer = full ? null : setTimeout(done, this.pollMs);
        function done() {
          if (timer) clearTimeout(timer);
          resolve();
        }
        this.wake = done;
      });
      this.wake = null;
    }
  }

  /** The types kept running while the queue is paused; null when it is not paused (or not pausable here). */
  private async pausedKeep(): Promise<readonly string[] | null> {
    if (!this.pausable) return null;
    try {
      return (await this.store.isPaused()) ? this.pausable.keep : null;
    } catch (err) {
      this.logger.error('could not read whether the queue is paused; running everything', { err });
      return null;
    }
  }

  /** The slots a claim may fill now: a general one, else the urgent lane's; null when every slot is busy. */
  private freeLane(): 'general' | 'urgent' | null {
    let general = 0;
    for (const r of this.running.values()) if (r.lane === 'general') general++;
    if (general < this.concurrency) return 'general';
    return this.running.size - general < this.lane.slots ? 'urgent' : null;
  }

  private launch(job: Job, owner: string, lane: 'general' | 'urgent'): void {
    const controller = new AbortController();
    const entry: Running = { job, lane, owner, controller, done: Promise.resolve() };
    this.running.set(job.id, entry);
    entry.done = executeJob(
      {
        store: this.store,
        logger: this.logger,
        leaseMs: this.leaseMs,
        backoff: this.backoff,
        onDiskFull: this.diskSpace && ((err) => this.diskSpace?.reportFull(err)),
      },
      this.handlers.get(job.type),
      entry,
    ).finally(() => {
      this.running.delete(job.id);
      // A slot is free: only a fresh empty claim proves the queue drained (the job may have enqueued more).
      this.lastClaimEmpty = false;
      this.notify();
      this.flushIdle();
    });
  }
}

/** True when `p` settled within `ms`. */
async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([p.then(() => true as const), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
