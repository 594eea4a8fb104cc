/**
 * The server's own model download (AUTO_FETCH_MODELS): on a first start with
 * the default profile's models missing, fetch them in the background, one
 * model at a time, while the server already answers. Each file resumes where
 * an earlier attempt (or an earlier run) stopped and is checked by sha256
 * (src/models/fetch.ts). Network errors are retried with backoff; a refused
 * file (checksum mismatch, absent upstream) fails that model and the next one
 * goes on. Progress (bytes, rate, ETA) is logged every ~10 s and read by
 * `/healthz` (summary) and `GET /api/models` (report).
 *
 * Nothing is fetched with OFFLINE=1 or AUTO_FETCH_MODELS=0, nor in the test
 * profile unless AUTO_FETCH_MODELS=1 asks for it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config.js';
import type { Logger } from '../platform/logger.js';
import type { Catalog, ModelEntry, Roles } from './catalog.js';
import { lockKey, readLock, type LockFile } from './checksums.js';
import { DownloadRefused, fetchModel } from './fetch.js';
import { ModelProgress } from './fetchProgress.js';
import { modelStatus } from './inventory.js';
import { profileEntries, rolesOf } from './selection.js';

export type ModelState = 'installed' | 'downloading' | 'queued' | 'missing' | 'failed';

/** One catalog model as GET /api/models shows it. */
export interface ModelReport {
  name: string;
  task: string;
  state: ModelState;
  bytesDone: number;
  /** Null until every file's size is known. */
  bytesTotal: number | null;
  licence: string;
  approxSizeMB: number | null;
  /** The default profile's roles this model serves. */
  roles: (keyof Roles)[];
  /** Why the last attempt failed (a retried network error, or the reason the model failed). */
  error: string | null;
}

/** The short form /healthz shows. */
export interface FetchSummary {
  /**
   * off: not fetching (see reason); idle: nothing missing; queued: about to start; waiting: a retry after a
   * network error; done / failed: the fetch ended (failed: some model failed, see `failed`).
   */
  state: 'off' | 'idle' | 'queued' | 'downloading' | 'waiting' | 'done' | 'failed';
  reason?: string;
  model: string | null;
  bytesDone: number;
  bytesTotal: number | null;
  bytesPerSecond: number | null;
  etaSeconds: number | null;
  /** Models still to fetch after the current one. */
  queued: number;
  failed: string[];
}

export interface ModelProvisioner {
  /** Starts the background download (when enabled); returns at once. */
  start(): void;
  /** Stops the download (its `.part` stays for the next start to resume) and waits for it to end. */
  stop(): Promise<void>;
  summary(): FetchSummary;
  report(): ModelReport[];
  /** Called after each model finished installing. */
  onInstalled(listener: (name: string) => void): void;
  /**
   * Queues one model for download now (a failed one again, or a missing one outside the profile's roles) and
   * starts the background download if it had ended. What happened: queued (or already on its way), installed
   * already, off (downloads are off: see summary().reason), unknown, or not_fetchable (no hub or URL to fetch from).
   */
  fetch(name: string): 'queued' | 'installed' | 'off' | 'unknown' | 'not_fetchable';
}

export interface ProvisionerOptions {
  config: Pick<Config, 'modelsDir' | 'modelProfile' | 'offline' | 'autoFetchModels' | 'modelHubUrl'>;
  catalog: Catalog;
  logger: Logger;
  /** How often progress is logged while downloading (default 10 s). */
  progressIntervalMs?: number;
  /** Backoff after a network error: base delay doubling per attempt up to maxMs, at most `attempts` retries. */
  retry?: { baseMs: number; maxMs: number; attempts: number };
}

const DEFAULT_RETRY = { baseMs: 2_000, maxMs: 120_000, attempts: 10 };

/** Why the provisioner fetches nothing, or null when it runs. */
export function autoFetchOff(config: ProvisionerOptions['config']): string | null {
  if (config.offline) return 'OFFLINE=1';
  if (config.autoFetchModels === false) return 'AUTO_FETCH_MODELS=0';
  if (config.autoFetchModels === null && config.modelProfile === 'test') return 'MODEL_PROFILE=test';
  return null;
}

function safeLock(modelsDir: string): LockFile {
  try {
    return readLock(modelsDir);
  } catch {
    return { version: 1, files: {} };
  }
}

const fetchable = (e: ModelEntry) => !e.package && (!!e.repo || e.files.every((f) => !!f.url));

function knownSizes(entry: ModelEntry, lock: LockFile): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const f of entry.files) {
    const rec = lock.files[lockKey(entry, f)];
    if (rec) sizes.set(f.path, rec.bytes);
  }
  return sizes;
}

/** A model of the background download. */
interface LiveModel {
  entry: ModelEntry;
  state: ModelState;
  error: string | null;
  progress: ModelProgress;
}

class Provisioner implements ModelProvisioner {
  private readonly log: Logger;
  private readonly off: string | null;
  private readonly live = new Map<string, LiveModel>();
  private readonly listeners: ((name: string) => void)[] = [];
  private readonly controller = new AbortController();
  private current: LiveModel | null = null;
  private waiting = false;
  private running: Promise<void> | null = null;
  private finished = false;
  private ticker: NodeJS.Timeout | null = null;

  constructor(private readonly opts: ProvisionerOptions) {
    this.log = opts.logger.child({ component: 'model-fetch' });
    this.off = autoFetchOff(opts.config);
    if (this.off) return;
    const { modelsDir } = opts.config;
    const lock = safeLock(modelsDir);
    for (const entry of profileEntries(opts.catalog, 'default')) {
      if (!fetchable(entry) || modelStatus(entry, modelsDir, lock).presence === 'installed') continue;
      const progress = new ModelProgress(entry, knownSizes(entry, lock));
      this.live.set(entry.name, { entry, state: 'queued', error: null, progress });
    }
  }

  start(): void {
    if (this.off || this.live.size === 0 || this.running) return;
    // Start serving first: the download begins once the current start-up work has run.
    this.running = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.run())
      .catch((err) => this.log.error('model fetch stopped', { err }));
  }

  async stop(): Promise<void> {
    this.controller.abort();
    if (this.ticker) clearInterval(this.ticker);
    await this.running;
  }

  onInstalled(listener: (name: string) => void): void {
    this.listeners.push(listener);
  }

  private async run(): Promise<void> {
    const queue = [...this.live.values()].filter((m) => m.state === 'queued');
    const names = queue.map((m) => m.entry.name);
    this.log.info(`fetching ${names.length} missing model(s) in the background: ${names.join(', ')}`, {
      models: names,
    });
    this.ticker = setInterval(() => {
      const m = this.current;
      if (m?.state === 'downloading' && !this.waiting)
        this.log.info(`model download: ${m.progress.describe()}`, progressFields(m));
    }, this.opts.progressIntervalMs ?? 10_000);
    this.ticker.unref();
    // Every queued model, those queued by fetch() meanwhile too (in the order they were added).
    for (let m = this.nextQueued(); m && !this.controller.signal.aborted; m = this.nextQueued()) await this.fetchOne(m);
    this.current = null;
    this.finished = true;
    clearInterval(this.ticker);
    if (!this.controller.signal.aborted) {
      const failed = this.failed();
      this.log.info(failed.length ? `model fetch ended; failed: ${failed.join(', ')}` : 'model fetch done', { failed });
    }
  }

  /** One model, retried with backoff after network errors; ends installed, failed, or queued when stopped. */
  private async fetchOne(m: LiveModel): Promise<void> {
    const { config } = this.opts;
    const retry = this.opts.retry ?? DEFAULT_RETRY;
    const signal = this.controller.signal;
    this.current = m;
    for (let attempt = 1; ; attempt++) {
      m.state = 'downloading';
      try {
        await fetchModel(m.entry, {
          modelsDir: config.modelsDir,
          hubUrl: config.modelHubUrl,
          signal,
          log: (line) => this.log.debug(line),
          onProgress: (file, done, total) => m.progress.update(file, done, total),
        });
        Object.assign(m, { state: 'installed', error: null });
        this.log.info(`model installed: ${m.entry.name}`, { model: m.entry.name, bytes: m.progress.bytesDone });
        for (const listener of this.listeners) listener(m.entry.name);
        return;
      } catch (err) {
        m.progress.restart();
        if (signal.aborted) return void (m.state = 'queued');
        m.error = err instanceof Error ? err.message : String(err);
        if (err instanceof DownloadRefused || attempt > retry.attempts) {
          m.state = 'failed';
          this.log.warn(`model download failed: ${m.entry.name}: ${m.error}`, { model: m.entry.name });
          return;
        }
        const delayMs = Math.min(retry.maxMs, retry.baseMs * 2 ** (attempt - 1));
        const again = `retrying in ${Math.round(delayMs / 1000)} s`;
        this.log.warn(`model download interrupted: ${m.entry.name}: ${m.error}; ${again}`, {
          model: m.entry.name,
          attempt,
        });
        this.waiting = true;
        await sleep(delayMs, undefined, { signal }).catch(() => undefined);
        this.waiting = false;
        if (signal.aborted) return void (m.state = 'queued');
      }
    }
  }

  private nextQueued(): LiveModel | undefined {
    return [...this.live.values()].find((m) => m.state === 'queued');
  }

  fetch(name: string): 'queued' | 'installed' | 'off' | 'unknown' | 'not_fetchable' {
    const { catalog, config } = this.opts;
    const entry = catalog.models.get(name);
    if (!entry) return 'unknown';
    if (this.off) return 'off';
    if (!fetchable(entry)) return 'not_fetchable';
    const m = this.live.get(name);
    if (m?.state === 'queued' || m?.state === 'downloading') return 'queued';
    const lock = safeLock(config.modelsDir);
    if ((!m || m.state === 'installed') && modelStatus(entry, config.modelsDir, lock).presence === 'installed')
      return 'installed';
    if (m) Object.assign(m, { state: 'queued', error: null });
    else
      this.live.set(name, {
        entry,
        state: 'queued',
        error: null,
        progress: new ModelProgress(entry, knownSizes(entry, lock)),
      });
    if (this.finished) {
      this.finished = false;
      this.running = null;
      this.start();
    }
    return 'queued';
  }

  private failed(): string[] {
    return [...this.live.values()].filter((m) => m.state === 'failed').map((m) => m.entry.name);
  }

  summary(): FetchSummary {
    const queued = [...this.live.values()].filter((m) => m.state === 'queued').length;
    const base = {
      model: null,
      bytesDone: 0,
      bytesTotal: null,
      bytesPerSecond: null,
      etaSeconds: null,
      queued,
      failed: this.failed(),
    };
    if (this.off) return { ...base, state: 'off', reason: this.off };
    if (this.live.size === 0) return { ...base, state: 'idle' };
    if (this.current)
      return { ...base, ...progressFields(this.current), state: this.waiting ? 'waiting' : 'downloading' };
    if (!this.finished) return { ...base, state: 'queued' };
    return { ...base, state: base.failed.length ? 'failed' : 'done' };
  }

  report(): ModelReport[] {
    const { catalog, config } = this.opts;
    const lock = safeLock(config.modelsDir);
    return [...catalog.models.values()].map((entry) => {
      const base = {
        name: entry.name,
        task: entry.task,
        licence: entry.licence,
        approxSizeMB: entry.approxSizeMB,
        roles: rolesOf(catalog, 'default', entry.name),
      };
      const m = this.live.get(entry.name);
      if (m && m.state !== 'installed') {
        const { bytesDone, bytesTotal } = m.progress;
        return { ...base, state: m.state, bytesDone, bytesTotal, error: m.error };
      }
      const status = modelStatus(entry, config.modelsDir, lock);
      const bytes = status.files.reduce((s, f) => s + (f.bytes ?? 0), 0);
      const installed = !!entry.package || status.presence === 'installed';
      const state: ModelState = installed ? 'installed' : 'missing';
      return { ...base, state, bytesDone: bytes, bytesTotal: installed ? bytes : null, error: null };
    });
  }
}

function progressFields(m: LiveModel) {
  const p = m.progress;
  return {
    model: m.entry.name,
    bytesDone: p.bytesDone,
    bytesTotal: p.bytesTotal,
    bytesPerSecond: p.rate(),
    etaSeconds: p.etaSeconds(),
  };
}

export function createModelProvisioner(opts: ProvisionerOptions): ModelProvisioner {
  return new Provisioner(opts);
}
