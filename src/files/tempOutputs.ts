/**
 * The temporary output area: where edited and generated images live.
 *
 * The spec says edited images "are stored temporarily and may be deleted
 * later", so these files are not library items: no database row, no version,
 * no quota. They sit in their own content-addressed store under
 * `<dataDir>/outputs` (same crash-safe write as library blobs: temp file,
 * fsync, rename) and are served at `/files/out/<sig>/<key>`, signed under a
 * namespace of their own so a library URL and an output URL never collide.
 *
 * Retention: a file is removed once it has not been written for
 * OUTPUT_RETENTION_HOURS (default 24). Writing the same bytes again (the same
 * edit asked twice) freshens it. The sweep runs at start-up and hourly.
 */
import path from 'node:path';
import type { Logger } from '../platform/logger.js';
import { isBlobKey } from './blobStore.js';
import { LocalBlobStore } from './localBlobStore.js';
import type { FileUrls } from './fileUrls.js';

/** URL path prefix of outputs, after `/files/`. */
export const OUTPUT_URL_SEGMENT = 'out';
export type OutputFormat = 'jpg' | 'png' | 'webp';

export interface SavedOutput {
  /** Content-addressed key, `<sha256>.<ext>`: same bytes, same key, same URL. */
  key: string;
  /** Public, signed URL (no API key needed, like library file URLs). */
  url: string;
}

export class TempOutputs {
  /**
   * The underlying content-addressed store (`<dataDir>/outputs/files`): always on the local disk, even with
   * BLOB_STORE=s3 (outputs are short-lived and not library items).
   */
  readonly store: LocalBlobStore;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    dataDir: string,
    private readonly urls: FileUrls,
    readonly retentionMs: number,
    private readonly logger?: Logger,
  ) {
    this.store = new LocalBlobStore(path.join(dataDir, 'outputs'));
  }

  async init(): Promise<void> {
    await this.store.init();
    await this.store.clearTemp();
  }

  /** Stores an output and returns its URL. */
  async save(bytes: Buffer, ext: OutputFormat): Promise<SavedOutput> {
    const { key } = await this.store.putBuffer(bytes, ext);
    return { key, url: this.urlFor(key) };
  }

  urlFor(key: string): string {
    return this.urls.urlIn(OUTPUT_URL_SEGMENT, key);
  }

  /** Whether `sig` signs the output `key` (constant time). */
  verify(sig: string, key: string): boolean {
    return isBlobKey(key) && this.urls.verify(sig, `${OUTPUT_URL_SEGMENT}/${key}`);
  }

  /** The file of a stored output, or null when it is absent or expired. */
  async pathOf(key: string): Promise<string | null> {
    return (await this.store.exists(key)) ? this.store.pathFor(key) : null;
  }

  /** Removes outputs older than the retention period; returns how many. */
  sweep(): Promise<number> {
    return this.store.sweepOrphans(async () => new Set<string>(), this.retentionMs);
  }

  /** Sweeps now and then every hour (or every retention period, if shorter) until stop(). */
  startSweeping(): void {
    const run = () =>
      void this.sweep()
        .then((n) => n && this.logger?.info('removed expired outputs', { count: n }))
        .catch((err) => this.logger?.warn('output sweep failed', { err }));
    run();
    this.timer = setInterval(run, Math.max(1000, Math.min(3_600_000, this.retentionMs)));
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
