import type { Services } from '../kernel/services.js';
import { conflict, DomainError } from '../../platform/errors.js';
import type { Logger } from '../../platform/logger.js';
import { createBackup } from './createBackup.js';
import { listBackupDirs } from './manifest.js';
import type { ProgressReport } from './progress.js';
import { pruneBackups } from './prune.js';

/** The backup under way in the server: who asked, since when, how far. */
export interface RunningBackup {
  trigger: 'api' | 'schedule';
  startedAt: string;
  progress: ProgressReport | null;
}

/** The server's backups into BACKUP_DIR: one at a time, in the background, asked for or on a schedule. */
export interface BackupService {
  readonly dir: string | null;
  running(): RunningBackup | null;
  /** The last run's failure, null when it succeeded (or none ran). */
  lastError(): string | null;
  /** When the schedule runs the next one; null without a schedule. */
  nextAt(): string | null;
  /** Starts a backup now, in the background: conflict when one runs or BACKUP_DIR is unset. */
  start(trigger: RunningBackup['trigger']): RunningBackup;
  /** Stops the schedule and the running backup, between two files (an unfinished one leaves no folder behind). */
  stop(): Promise<void>;
}

type Deps = Pick<Services, 'storage' | 'blobs' | 'config'> & { logger: Logger };

/** A server's stores → its backup service (one server, one service; set by startBackupService). */
const byStorage = new WeakMap<object, BackupService>();

/** The backup service of these services (the routes'); null before startBackupService. */
export const backupServiceOf = (deps: Pick<Services, 'storage'>): BackupService | null =>
  byStorage.get(deps.storage) ?? null;

/**
 * Starts the server's backup service: with BACKUP_DIR set and BACKUP_INTERVAL_HOURS above 0, a backup every
 * interval after the newest one in the folder (the first a minute after start when one is due), then all
 * but the BACKUP_KEEP newest are removed. Without BACKUP_DIR nothing is scheduled: where backups go is the
 * operator's choice (a backup on the library's own disk does not survive that disk).
 */
export function startBackupService(deps: Deps): BackupService {
  const dir = deps.config.backupDir ?? null;
  const intervalMs = deps.config.backupIntervalHours * 3_600_000;
  let current: RunningBackup | null = null;
  let done: Promise<void> = Promise.resolve();
  let error: string | null = null;
  let timer: NodeJS.Timeout | null = null;
  let next: number | null = null;
  let stopped = false;
  const stopping = new AbortController();

  const schedule = (latest: number | null) => {
    if (!dir || intervalMs <= 0 || stopped) return;
    next = Math.max(Date.now() + 60_000, (latest ?? 0) + intervalMs);
    arm(next);
  };
  // A timer waits at most about 24 days (2^31 - 1 ms): a longer interval is waited out in several.
  const arm = (at: number) => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(
      () => {
        if (Date.now() < at) arm(at);
        else if (!current) service.start('schedule');
        else schedule(Date.now());
      },
      Math.min(at - Date.now(), 2 ** 31 - 1),
    );
    timer.unref();
  };

  const run = async (target: string, trigger: RunningBackup['trigger']): Promise<void> => {
    try {
      const manifest = await createBackup(deps, {
        to: target,
        signal: stopping.signal,
        onProgress: (p) => current && (current.progress = p),
      });
      error = null;
      if (trigger === 'schedule') await pruneBackups(target, deps.config.backupKeep);
      deps.logger.info('backup done', { id: manifest.id, files: manifest.files.length, copied: manifest.copied });
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
      if (stopping.signal.aborted) deps.logger.info('backup stopped by the shutdown; its folder removed');
      else deps.logger.error('backup failed', { err });
    } finally {
      current = null;
      schedule(Date.now());
    }
  };

  const service: BackupService = {
    dir,
    running: () => current,
    lastError: () => error,
    nextAt: () => (next === null ? null : new Date(next).toISOString()),
    start(trigger) {
      if (!dir) throw new DomainError('conflict', 'backups are off: set BACKUP_DIR to the folder they go to');
      if (current) throw conflict(`a backup is already running (since ${current.startedAt})`);
      if (timer) clearTimeout(timer);
      current = { trigger, startedAt: new Date().toISOString(), progress: null };
      const started = current;
      done = run(dir, trigger);
      return started;
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      stopping.abort();
      await done;
    },
  };
  byStorage.set(deps.storage, service);
  void latestBackupTime(dir)
    .then(schedule)
    .catch((err) => deps.logger.warn('could not read BACKUP_DIR; no backup scheduled', { err }));
  return service;
}

async function latestBackupTime(dir: string | null): Promise<number | null> {
  if (!dir) return null;
  const whole = (await listBackupDirs(dir)).filter((b) => b.manifest);
  const newest = whole[whole.length - 1]?.manifest;
  return newest ? Date.parse(newest.createdAt) : null;
}
