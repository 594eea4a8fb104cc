/**
 * An S3 server for tests: s3rver on 127.0.0.1 (a free port, a temp folder), reached by the real AWS SDK
 * client that the server uses (createS3Client), path-style with s3rver's built-in key pair.
 */
import { CreateBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { mkdtemp, rm, utimes } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import type { S3Settings } from '../../src/config.js';
import { createS3Client } from '../../src/files/s3/s3Client.js';
import { S3BlobStore } from '../../src/files/s3/s3BlobStore.js';
import type { BlobStoreHarness } from './blobStoreSuite.js';

export interface TestS3 {
  endpoint: string;
  /** s3rver's folder: `<dir>/<bucket>/<key>._S3rver_object` holds an object, its mtime is LastModified. */
  dir: string;
  settings(bucket: string, extra?: Partial<S3Settings>): S3Settings;
  /** A new bucket (created) and an S3BlobStore over it with its own data folder. */
  harness(
    extra?: Partial<S3Settings>,
  ): Promise<BlobStoreHarness & { store: S3BlobStore; client: S3Client; bucket: string }>;
  stop(): Promise<void>;
}

let buckets = 0;

export async function startS3(): Promise<TestS3> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 's3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory: dir, silent: true });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const settings = (bucket: string, extra: Partial<S3Settings> = {}): S3Settings => ({
    endpoint,
    bucket,
    region: 'us-east-1',
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    forcePathStyle: true,
    presignedGets: false,
    ...extra,
  });
  return {
    endpoint,
    dir,
    settings,
    async harness(extra = {}) {
      const bucket = `blobs-${process.pid}-${++buckets}`;
      const s = settings(bucket, extra);
      const client = createS3Client(s);
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
      const dataDir = await mkdtemp(path.join(os.tmpdir(), 's3blobs-'));
      const store = new S3BlobStore({ dataDir, settings: s, client });
      return {
        store,
        client,
        bucket,
        backdate: async (key, ms) => {
          const then = new Date(Date.now() - ms);
          await utimes(path.join(dir, bucket, `${key}._S3rver_object`), then, then);
        },
        close: async () => {
          client.destroy();
          await rm(dataDir, { recursive: true, force: true });
        },
      };
    },
    async stop() {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
