/**
 * Watched folders when several processes share one database (PostgreSQL): each would otherwise import every new
 * file once per process. The process holding the `watched-folders` lock runs the watch service; the others try to
 * take the lock again every `retryMs`, so when the holder stops or dies (its connection, and so its lock, goes
 * with it) another takes over within that time. With one process per database (SQLite) the service just runs.
 */
import type { Logger } from '../../platform/logger.js';
import type { ExclusiveLock } from '../../storage/exclusiveLock.js';
import type { WatchDeps } from './importFile.js';
import { startWatchService, type WatchService } from './watcher.js';

const LOCK_NAME = 'watched-folders';

export function startWatchLeadership(deps: WatchDeps, logger: Logger, retryMs = 15_000): WatchService {
  const tryLock = deps.storage.tryExclusiveLock?.bind(deps.storage);
  if (!tryLock) return startWatchService(deps, logger);
  return new WatchLeader(deps, logger, tryLock, retryMs);
}

class WatchLeader implements WatchService {
  private service: WatchService | null = null;
  private lock: ExclusiveLock | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** The first try: rescan() and idle() wait for it, so a caller right after start sees a holder's service. */
  private readonly first: Promise<void>;

  constructor(
    private readonly deps: WatchDeps,
    private readonly logger: Logger,
    private readonly tryLock: (name: string) => Promise<ExclusiveLock | null>,
    private readonly retryMs: number,
  ) {
    this.first = this.attempt();
  }

  private async attempt(): Promise<void> {
    this.timer = null;
    if (this.stopped) return;
    const lock = await this.tryLock(LOCK_NAME).catch((err: unknown) => {
      this.logger.warn('could not try the watched-folder lock; trying again later', { err });
      return null;
    });
    if (!lock) return this.retryLater();
    if (this.stopped) return void (await lock.release());
    this.lock = lock;
    this.service = startWatchService(this.deps, this.logger);
    this.logger.info('this process serves the watched folders');
    void lock.lost.then(() => this.onLost(lock));
  }

  private async onLost(lock: ExclusiveLock): Promise<void> {
    if (this.stopped || this.lock !== lock) return;
    this.logger.warn('lost the watched-folder lock (database connection broke); stopping until it is taken again');
    const service = this.service;
    this.service = null;
    this.lock = null;
    await service?.stop();
    this.retryLater();
  }

  private retryLater(): void {
    if (!this.stopped) this.timer = setTimeout(() => void this.attempt(), this.retryMs);
  }

  reload(): void {
    this.service?.reload();
  }

  async rescan(): Promise<void> {
    await this.first;
    await this.service?.rescan();
  }

  async idle(): Promise<void> {
    await this.first;
    await this.service?.idle();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.service?.stop();
    await this.lock?.release();
  }
}

/** What a process that serves no watched folders (ROLE=api: the workers do) holds in the watch service's place. */
export const noWatchService: WatchService = {
  reload() {},
  rescan: async () => {},
  idle: async () => {},
  stop: async () => {},
};
