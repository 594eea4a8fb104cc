/**
 * Aborting multipart uploads that never completed (a process killed mid-upload leaves its parts stored and
 * billed, invisible to ListObjects). lib-storage aborts its own upload when a part or the completion fails;
 * this sweep is for the uploads a crash left behind.
 *
 * Not every S3-compatible store can do this: s3rver answers ListMultipartUploads with 501 and
 * AbortMultipartUpload with 405. Such an answer is not an error here: the sweep reports `unsupported` and
 * the store's own clean-up has to do (an AbortIncompleteMultipartUpload lifecycle rule on AWS, Ceph RGW
 * and Garage; MinIO purges stale uploads after 24 h by itself).
 */
import { AbortMultipartUploadCommand, ListMultipartUploadsCommand, type S3Client } from '@aws-sdk/client-s3';
import { httpStatusOf } from './s3Client.js';

export interface IncompleteUploadSweep {
  /** Uploads aborted. */
  aborted: number;
  /** The store cannot list or abort multipart uploads (501, 405, 400 NotImplemented). */
  unsupported: boolean;
}

/** True for a store's "I do not implement this operation". */
export function isUnsupported(err: unknown): boolean {
  const status = httpStatusOf(err);
  const name = err instanceof Error ? err.name : '';
  return status === 501 || status === 405 || name === 'NotImplemented' || name === 'MethodNotAllowed';
}

/** Aborts the bucket's multipart uploads started more than `maxAgeMs` ago (under `prefix`). */
export async function abortStaleUploads(
  client: S3Client,
  bucket: string,
  maxAgeMs: number,
  prefix?: string,
): Promise<IncompleteUploadSweep> {
  let aborted = 0;
  let keyMarker: string | undefined;
  let uploadIdMarker: string | undefined;
  try {
    for (;;) {
      const page = await client.send(
        new ListMultipartUploadsCommand({
          Bucket: bucket,
          Prefix: prefix,
          KeyMarker: keyMarker,
          UploadIdMarker: uploadIdMarker,
        }),
      );
      for (const upload of page.Uploads ?? []) {
        const started = upload.Initiated?.getTime() ?? Date.now();
        if (!upload.Key || !upload.UploadId || Date.now() - started < maxAgeMs) continue;
        await client.send(
          new AbortMultipartUploadCommand({ Bucket: bucket, Key: upload.Key, UploadId: upload.UploadId }),
        );
        aborted++;
      }
      if (!page.IsTruncated) break;
      keyMarker = page.NextKeyMarker;
      uploadIdMarker = page.NextUploadIdMarker;
    }
  } catch (err) {
    if (isUnsupported(err)) return { aborted, unsupported: true };
    throw err;
  }
  return { aborted, unsupported: false };
}
