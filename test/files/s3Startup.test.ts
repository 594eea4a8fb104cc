/**
 * The process itself (src/main.ts through tsx) with BLOB_STORE=s3 and a bucket that does not exist:
 * it exits 1 after printing one line that names the fix, no stack trace.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort } from '../helpers/serverProcess.js';
import { startS3 } from './s3Server.js';

const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');

test('a missing bucket: the server refuses to start with one line naming the fix', async () => {
  const s3 = await startS3();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 's3start-'));
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        NODE_NO_WARNINGS: '1',
        PORT: String(await freePort()),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        MODEL_PROFILE: 'test',
        AUTO_FETCH_MODELS: '0',
        LOG_LEVEL: 'silent',
        BLOB_STORE: 's3',
        S3_ENDPOINT: s3.endpoint,
        S3_BUCKET: 'not-created',
        S3_ACCESS_KEY_ID: 'S3RVER',
        S3_SECRET_ACCESS_KEY: 'S3RVER',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    assert.is(code, 1);
    const lines = stderr.trim().split('\n');
    assert.is(lines.length, 1, stderr);
    assert.match(
      lines[0],
      /^failed to start: S3 bucket "not-created" at http:\/\/127\.0\.0\.1:\d+ does not exist: create it/,
    );
  } finally {
    await rm(dataDir, { recursive: true, force: true });
    await s3.stop();
  }
});

test.run();
