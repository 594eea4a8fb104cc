/**
 * The AWS SDK v3 client for an S3-compatible store, the start-up check of its bucket, and how its errors
 * are told apart.
 */
import { HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import type { S3Settings } from '../../config.js';
import { StartupError } from '../../platform/startupError.js';

/** The store cannot be used: unreachable, no such bucket, access refused. The message names the fix. */
export class BlobStoreUnavailableError extends StartupError {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'BlobStoreUnavailableError';
  }
}

/** How long the start-up check waits for the store before calling it unreachable. */
const START_CHECK_TIMEOUT_MS = 15_000;

/**
 * A client for the settings. Checksums only when an operation requires them: since client-s3 3.729 uploads
 * send CRC32 and GETs validate it by default, which S3-compatible stores (s3rver, older MinIO, Ceph, …)
 * reject or do not answer (shared/notes/postgres.md §6).
 */
export function createS3Client(settings: S3Settings): S3Client {
  return new S3Client({
    endpoint: settings.endpoint,
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    credentials:
      settings.accessKeyId && settings.secretAccessKey
        ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey }
        : undefined,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // A store that does not answer must fail the request, not hang it; large transfers are not limited.
    requestHandler: { connectionTimeout: 10_000 },
  });
}

/** HeadBucket at start-up: throws BlobStoreUnavailableError with one line naming the fix. */
export async function checkBucket(client: S3Client, settings: S3Settings): Promise<void> {
  try {
    await client.send(new HeadBucketCommand({ Bucket: settings.bucket }), {
      abortSignal: AbortSignal.timeout(START_CHECK_TIMEOUT_MS),
    });
  } catch (err) {
    throw new BlobStoreUnavailableError(describeBucketFailure(err, settings), err);
  }
}

const UNREACHABLE_FIX = 'check S3_ENDPOINT and that the store is running';

function describeBucketFailure(err: unknown, settings: S3Settings): string {
  const where = settings.endpoint ?? `AWS S3 (${settings.region})`;
  const bucket = `S3 bucket "${settings.bucket}" at ${where}`;
  const status = httpStatusOf(err);
  const code = networkCodeOf(err);
  if (status === 404 || errorName(err) === 'NotFound' || errorName(err) === 'NoSuchBucket')
    return `${bucket} does not exist: create it (e.g. aws s3 mb s3://${settings.bucket}) or set S3_BUCKET to an existing bucket`;
  if (status === 401 || status === 403)
    return `${bucket} refused access (${status}): check S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY and the key's rights on the bucket`;
  if (status === 301)
    return `${bucket} is in another region: set S3_REGION to the bucket's region (or S3_FORCE_PATH_STYLE=1 for a non-AWS store)`;
  if (code || status === undefined)
    return `cannot reach the S3 store at ${where} (${code ?? errorName(err) ?? 'no answer'}): ${UNREACHABLE_FIX}`;
  return `${bucket} cannot be used (HTTP ${status}${errorName(err) ? ` ${errorName(err)}` : ''}): check the S3_* settings`;
}

/** The HTTP status of an SDK error, when the store answered. */
export function httpStatusOf(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
}

/** True for "no such object" however the store says it (HEAD has no body, so only a 404). */
export function isNotFound(err: unknown): boolean {
  const name = errorName(err);
  return name === 'NotFound' || name === 'NoSuchKey' || httpStatusOf(err) === 404;
}

function errorName(err: unknown): string | undefined {
  return err instanceof Error ? err.name : undefined;
}

/** A network error's code (ECONNREFUSED, ENOTFOUND, …) on the error or its cause, or a timeout. */
function networkCodeOf(err: unknown): string | undefined {
  for (let e = err as { code?: unknown; cause?: unknown; name?: unknown } | undefined, i = 0; e && i < 4; i++) {
    if (typeof e.code === 'string' && /^E[A-Z]+/.test(e.code)) return e.code;
    if (e.name === 'TimeoutError' || e.name === 'AbortError') return 'timed out';
    e = e.cause as typeof e;
  }
  return undefined;
}
