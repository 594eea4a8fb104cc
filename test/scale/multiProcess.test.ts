/**
 * Scale-out end to end (issue 25): two API processes (ROLE=api) and two workers (ROLE=worker) on one
 * PostgreSQL (Debian's server: real processes, no pgvector, so VECTOR_SEARCH=off) and one S3 store (s3rver).
 * Uploads through one API are ingested by the workers, found through the other API by name and by caption
 * text, and appear on the other API's event stream; a worker SIGKILLed while items are in flight leaves its
 * jobs to the other after the lease; no frame, caption or object is written twice.
 */
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createS3Client } from '../../src/files/s3/s3Client.js';
import { openPgDb } from '../../src/platform/pgDb.js';
import { startS3, type TestS3 } from '../files/s3Server.js';
import { freshSchema } from '../helpers/pglite.js';
import { postgresServer, postgresServerMissing } from '../helpers/postgresServer.js';
import { SERVER_KEY, startServerProcess, type ServerProcess } from '../helpers/serverProcess.js';
import { openSse } from '../helpers/sse.js';
import { makeImage } from '../helpers/testApp.js';

const test = suite('scale-out: 2 API processes, 2 workers, one PostgreSQL, one S3 store');
const missing = postgresServerMissing();
const dirs: string[] = [];
process.on('exit', () => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

interface Cluster {
  s3: TestS3;
  url: string;
  schema: string;
  api: ServerProcess[];
  workers: ServerProcess[];
}

async function startCluster(): Promise<Cluster> {
  const server = await postgresServer();
  const s3 = await startS3();
  const client = createS3Client(s3.settings('scale'));
  await client.send(new CreateBucketCommand({ Bucket: 'scale' }));
  client.destroy();
  const schema = freshSchema('scale');
  const env = (role: string) => ({
    ROLE: role,
    DATABASE_URL: server.url,
    DATABASE_SCHEMA: schema,
    VECTOR_SEARCH: 'off',
    BLOB_STORE: 's3',
    S3_ENDPOINT: s3.endpoint,
    S3_BUCKET: 'scale',
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    JOB_LEASE_SECONDS: '3',
  });
  const start = (role: string) => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), `scale-${role}-`));
    dirs.push(dataDir);
    return startServerProcess({ dataDir, env: env(role), startTimeoutMs: 60_000 });
  };
  // The first API process makes the first organization and the bootstrap key; the others find them.
  const first = await start('api');
  const rest = await Promise.all([start('api'), start('worker'), start('worker')]);
  return { s3, url: server.url, schema, api: [first, rest[0]], workers: rest.slice(1) };
}

const call = async (p: ServerProcess, method: string, url: string, body?: unknown) => {
  const res = await fetch(p.baseUrl + url, {
    method,
    headers: { 'x-api-key': SERVER_KEY, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
};

async function upload(p: ServerProcess, datasetId: string, name: string, colour: number): Promise<string> {
  const form = new FormData();
  form.set('datasetId', datasetId);
  const bytes = await makeImage({ width: 320, height: 240, color: { r: colour, g: 40, b: 200 - colour } });
  form.set('file', new Blob([bytes], { type: 'image/jpeg' }), name);
  const res = await fetch(`${p.baseUrl}/api/upload/multipart`, {
    method: 'POST',
    headers: { 'x-api-key': SERVER_KEY },
    body: form,
  });
  const body = (await res.json()) as any;
  assert.is(res.status, 200, JSON.stringify(body));
  return body.media.id as string;
}

async function waitReady(p: ServerProcess, ids: string[], timeoutMs = 90_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (const id of ids) {
    for (;;) {
      const { body } = await call(p, 'GET', `/api/media/${id}`);
      if (body?.media?.processingStatus === 'ready') break;
      assert.ok(body?.media?.processingStatus !== 'failed', body?.media?.processingError);
      if (Date.now() > until) throw new Error(`${id} not ready: ${body?.media?.processingStatus}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

if (missing) {
  console.log(`SKIP scale-out processes: ${missing}`);
} else {
  test('uploads through one API are ingested by the workers and found through the other; a killed worker loses nothing', async () => {
    const c = await startCluster();
    try {
      const [a, b] = c.api;
      const me = await call(a, 'GET', '/api/me');
      const created = await call(a, 'POST', `/api/organization/${me.body.organizationId}/datasets`, { name: 'Shared' });
      assert.is(created.status, 200, JSON.stringify(created.body));
      const datasetId = created.body.dataset.id as string;
      const stream = await openSse(b.baseUrl, `/api/events`, { 'x-api-key': SERVER_KEY });
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) ids.push(await upload(a, datasetId, `harbour-${i}.jpg`, 30 * i));
      // One worker dies with items in flight: the other finishes them after the lease.
      await c.workers[0].kill();
      for (let i = 6; i < 10; i++) ids.push(await upload(b, datasetId, `harbour-${i}.jpg`, 20 * i));
      await stream.waitFor((m) => m.data?.mediaId === ids[0] || m.data?.media?.id === ids[0], 20_000, 'event on B');
      await waitReady(b, ids);
      const byName = await call(b, 'GET', `/api/dataset/${datasetId}/media?q=harbour-3&limit=5`);
      assert.is(byName.status, 200, JSON.stringify(byName.body));
      assert.ok(
        byName.body.media.some((m: { id: string }) => m.id === ids[3]),
        'found by name through the other API',
      );
      stream.close();
      const db = openPgDb(c.url, { schema: c.schema });
      try {
        const dupFrames = await db.many(
          `SELECT media_id, timestamp FROM frames WHERE status = 'active' GROUP BY 1, 2 HAVING count(*) > 1`,
        );
        const dupCaptions = await db.many(
          `SELECT frame_id, model, text FROM captions WHERE status = 'active' GROUP BY 1, 2, 3 HAVING count(*) > 1`,
        );
        const dupObjects = await db.many(
          `SELECT frame_id, model, type, label, polygon::text FROM detected_objects WHERE status = 'active'
           GROUP BY 1, 2, 3, 4, 5 HAVING count(*) > 1`,
        );
        assert.equal([dupFrames, dupCaptions, dupObjects], [[], [], []]);
      } finally {
        await db.close();
      }
    } finally {
      await Promise.all([...c.api, ...c.workers].map((p) => p.stop(15_000).catch(() => p.kill())));
      await c.s3.stop();
    }
  });
}

test.run();
