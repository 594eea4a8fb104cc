/**
 * The blob store in an S3-compatible bucket (`BLOB_STORE=s3`): one object per blob, named by its key at the
 * bucket's root. Scratch files stay on the local disk (`DATA_DIR/tmp`); `putFile` uploads the finished temp
 * file (lib-storage's `Upload`: a PutObject, or a multipart upload in 5 MiB parts above that) and removes it.
 *
 * Crash safety: an object becomes visible only once its upload completed, whole; the caller writes the row
 * after. A failed multipart upload is aborted by lib-storage; one a crash left is aborted by sweepOrphans
 * after INCOMPLETE_UPLOAD_MAX_AGE_MS where the store can list them (incompleteUploads.ts).
 *
 * Several servers may share a bucket. The per-key lock that keeps a dedupe hit and the orphan sweep apart
 * holds inside one process only: across processes a sweep's re-check (HeadObject) and its DeleteObject leave
 * a window of one round trip in which another server's dedupe of that very orphan could be lost. The sweep
 * runs at start-up, on blobs older than a minute that no row references, so this needs a re-upload of an
 * orphan's exact bytes within that round trip.
 */
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createHash } from 'node:crypto';
import type { S3Settings } from '../../config.js';
import { notFound } from '../../platform/errors.js';
import type { Logger } from '../../platform/logger.js';
import type {
  BlobStat,
  BlobStore,
  ByteRange,
  LocalBlobFile,
  OpenedBlob,
  PresignOptions,
  StoredBlob,
} from '../blobStore.js';
import { clearDir, isBlobKey, KeyLocks, keyForPut, scratchPath } from '../blobStore.js';
import { abortStaleUploads } from './incompleteUploads.js';
import { checkBucket, isNotFound } from './s3Client.js';

/** lib-storage's smallest part (S3's minimum); it buffers PART_SIZE × QUEUE_SIZE of a file at most. */
export const PART_SIZE = 5 * 1024 * 1024;
const QUEUE_SIZE = 4;
/** Multipart uploads older than this are a crash's leftovers: no upload of ours runs for a day. */
export const INCOMPLETE_UPLOAD_MAX_AGE_MS = 24 * 3_600_000;
/** A presigned GET is signed for this window's start and lives two windows: one URL per window, cacheable. */
const PRESIGN_WINDOW_S = 3600;

export interface S3BlobStoreOptions {
  /** DATA_DIR: scratch files go to `<dataDir>/tmp`. */
  dataDir: string;
  settings: S3Settings;
  client: S3Client;
  logger?: Logger;
}

export class S3BlobStore implements BlobStore {
  readonly tmpDir: string;
  readonly bucket: string;
  private readonly client: S3Client;
  private readonly locks = new KeyLocks();

  constructor(private readonly options: S3BlobStoreOptions) {
    this.tmpDir = path.join(options.dataDir, 'tmp');
    this.bucket = options.settings.bucket;
    this.client = options.client;
  }

  /** Creates the scratch folder, then HeadBucket: throws BlobStoreUnavailableError naming the fix. */
  async init(): Promise<void> {
    await mkdir(this.tmpDir, { recursive: true });
    await checkBucket(this.client, this.options.settings);
  }

  tempPath(prefix = 'tmp'): string {
    return scratchPath(this.tmpDir, prefix);
  }

  clearTemp(): Promise<number> {
    return clearDir(this.tmpDir);
  }

  async putFile(tempFile: string, ext: string, sha256?: string): Promise<StoredBlob> {
    const { key, hash } = await keyForPut(tempFile, ext, sha256);
    return this.locks.with(key, async () => {
      const existing = await this.stat(key);
      if (existing && (await this.freshen(key))) {
        await unlink(tempFile).catch(() => undefined);
        return { key, sizeBytes: existing.size, sha256: hash };
      }
      const sizeBytes = (await stat(tempFile)).size;
      await this.upload(key, tempFile);
      await unlink(tempFile).catch(() => undefined);
      return { key, sizeBytes, sha256: hash };
    });
  }

  async putBuffer(buf: Buffer, ext: string): Promise<StoredBlob> {
    const tmp = this.tempPath('buf');
    await writeFile(tmp, buf, { flag: 'wx' });
    try {
      return await this.putFile(tmp, ext, createHash('sha256').update(buf).digest('hex'));
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
  }

  /**
   * Streams a file into the object: one PutObject up to PART_SIZE, a multipart upload above. On a failed part
   * or completion lib-storage aborts the upload (leavePartsOnError false); on a store without
   * AbortMultipartUpload (s3rver: 405) that abort's error is what is thrown, and the parts stay for the
   * store's own clean-up.
   */
  private async upload(key: string, file: string): Promise<void> {
    const body = createReadStream(file);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: body },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } finally {
      body.destroy(); // a failed upload may stop reading half-way: close the file
    }
  }

  /**
   * Makes a dedupe hit new again, so the orphan sweep (LastModified) spares it: a copy of the object onto
   * itself. False when the store refused or kept the old LastModified (the caller then uploads the bytes
   * again, which freshens too).
   */
  private async freshen(key: string): Promise<boolean> {
    const before = Date.now() - 1000; // LastModified has whole seconds
    try {
      await this.client.send(
        new CopyObjectCommand({
          Bucket: this.bucket,
          Key: key,
          CopySource: `${this.bucket}/${key}`,
          MetadataDirective: 'REPLACE',
          Metadata: { freshened: new Date().toISOString() },
        }),
      );
    } catch (err) {
      this.options.logger?.debug('S3 copy onto itself refused; uploading again', { key, err });
      return false;
    }
    // Not every store gives a copy onto itself a new LastModified (s3rver keeps the old one): check.
    const after = await this.stat(key);
    return after !== null && after.mtimeMs >= before;
  }

  async stat(key: string): Promise<BlobStat | null> {
    if (!isBlobKey(key)) return null;
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: head.ContentLength ?? 0, mtimeMs: head.LastModified?.getTime() ?? Date.now() };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async exists(key: string): Promise<boolean> {
    return (await this.stat(key)) !== null;
  }
  /** HeadObject now (size, 404), GetObject with a Range once the bytes are wanted. */
  async open(key: string): Promise<OpenedBlob | null> {
    const st = await this.stat(key);
    if (!st) return null;
    return {
      size: st.size,
      read: (range?: ByteRange) => this.getStream(key, range),
      close: async () => undefined,
    };
  }

  private async getStream(key: string, range?: ByteRange): Promise<Readable> {
    try {
      const got = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      if (!got.Body) throw notFound('file not found');
      return got.Body as Readable;
    } catch (err) {
      if (isNotFound(err)) throw notFound('file not found');
      throw err;
    }
  }

  async readBuffer(key: string): Promise<Buffer> {
    if (!isBlobKey(key)) throw notFound('file not found');
    const chunks: Buffer[] = [];
    for await (const chunk of await this.getStream(key)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  /** Downloads the blob to a temp file under tmpDir; release() removes it. */
  async materialize(key: string): Promise<LocalBlobFile> {
    if (!isBlobKey(key)) throw notFound('file not found');
    const file = this.tempPath('blob');
    try {
      await pipeline(await this.getStream(key), createWriteStream(file, { flags: 'wx' }));
    } catch (err) {
      await rm(file, { force: true });
      throw err;
    }
    return { path: file, release: () => rm(file, { force: true }) };
  }

  async remove(key: string): Promise<boolean> {
    if (!(await this.exists(key))) return false;
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    return true;
  }

  /**
   * Lists the bucket (LastModified as the age), removes unreferenced blob objects as the
   * local store does, then aborts multipart uploads older than INCOMPLETE_UPLOAD_MAX_AGE_MS where the store
   * supports it. Objects whose name is not a blob key are not ours to judge. The age is this server's clock
   * against the store's LastModified: the two must agree to well within `minAgeMs` (NTP).
   */
  async sweepOrphans(
    isReferenced: (keys: string[]) => Promise<Set<string>>,
    minAgeMs: number,
    batchSize = 500,
  ): Promise<number> {
    let removed = 0;
    let after: string | undefined;
    do {
      // ListObjects (v1) paged by Marker, the last key seen: every store has it, while s3rver's v2 makes
      // continuation tokens with DES, which OpenSSL 3 (Node >= 17) no longer offers (a 500 on page one).
      const page = await this.client.send(
        new ListObjectsCommand({ Bucket: this.bucket, Marker: after, MaxKeys: batchSize }),
      );
      const old = (page.Contents ?? []).filter(
        (o) => o.Key && isBlobKey(o.Key) && Date.now() - (o.LastModified?.getTime() ?? Date.now()) >= minAgeMs,
      );
      const keys = old.map((o) => o.Key!);
      const referenced = keys.length ? await isReferenced(keys) : new Set<string>();
      for (const key of keys.filter((k) => !referenced.has(k))) {
        // Check the age again just before deleting: a dedupe hit meanwhile has freshened the object.
        const gone = await this.locks.with(key, async () => {
          const st = await this.stat(key);
          return st !== null && Date.now() - st.mtimeMs >= minAgeMs && this.remove(key);
        });
        if (gone) removed++;
      }
      after = page.IsTruncated ? (page.NextMarker ?? page.Contents?.at(-1)?.Key) : undefined;
    } while (after);
    await this.sweepIncompleteUploads();
    return removed;
  }

  /** Aborts stale multipart uploads; a store that cannot list them is told once in the log, not an error. */
  async sweepIncompleteUploads(maxAgeMs = INCOMPLETE_UPLOAD_MAX_AGE_MS) {
    const result = await abortStaleUploads(this.client, this.bucket, maxAgeMs);
    const log = this.options.logger;
    if (result.unsupported)
      log?.info('the S3 store cannot list multipart uploads; incomplete ones are left to its own clean-up');
    else if (result.aborted) log?.info('aborted incomplete multipart uploads', { count: result.aborted });
    return result;
  }

  /**
   * A presigned GET (S3_PRESIGNED_GETS=1), or null when they are off. Signed at the start of the current
   * hour and valid for two, so one blob has one URL per hour and browsers can cache what it answers.
   */
  async presignedGetUrl(key: string, options: PresignOptions): Promise<string | null> {
    if (!this.options.settings.presignedGets || !isBlobKey(key)) return null;
    const now = Math.floor(Date.now() / 1000);
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ResponseContentType: options.contentType,
      ResponseContentDisposition: options.contentDisposition,
      ResponseCacheControl: 'public, max-age=31536000, immutable',
    });
    return getSignedUrl(this.client, command, {
      expiresIn: 2 * PRESIGN_WINDOW_S,
      signingDate: new Date((now - (now % PRESIGN_WINDOW_S)) * 1000),
    });
  }
}
