/**
 * ROLE=api|worker|all: `api` serves HTTP and runs no job (an upload's jobs stay queued for the workers);
 * `worker` runs jobs and answers /healthz only (the real server process); `all` (the default) both.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../src/config.js';
import { makeImage, startTestApp } from './helpers/testApp.js';
import { startServerProcess } from './helpers/serverProcess.js';

const test = suite('roles');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('ROLE is api, worker or all (the default)', () => {
  assert.is(loadConfig({}).role, 'all');
  assert.is(loadConfig({ ROLE: 'worker' }).role, 'worker');
  assert.throws(() => loadConfig({ ROLE: 'both' }), /ROLE/);
});

test('ROLE=api: requests are served, jobs are left queued for the workers', async () => {
  const app = await startTestApp({ role: 'api' });
  try {
    const ds = await app.collection();
    const up = await app.upload({ datasetId: ds }, { bytes: await makeImage(), filename: 'a.jpg' });
    assert.ok(up.status < 300, JSON.stringify(up.body));
    assert.is((await app.request('GET', '/healthz')).body.role, 'api');
    await sleep(600);
    const stats = await app.app.services.storage.jobs.stats();
    assert.ok(stats.queued > 0, 'the upload queued its jobs');
    assert.is(stats.running + stats.succeeded, 0, 'and nothing here ran them');
  } finally {
    await app.close();
  }
});

test('ROLE=worker: the process answers /healthz and nothing else', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'role-worker-'));
  const server = await startServerProcess({ dataDir, env: { ROLE: 'worker' } });
  try {
    const health = await fetch(`${server.baseUrl}/healthz`);
    assert.is(health.status, 200);
    assert.is(((await health.json()) as { role: string }).role, 'worker');
    const api = await fetch(`${server.baseUrl}/api/collections`, {
      headers: { authorization: `Bearer ${server.key}` },
    });
    assert.is(api.status, 404);
    assert.match(((await api.json()) as { message: string }).message, /worker/);
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
