/**
 * `docker stop` during a long job (issue #29), as the real server meets it: src/main.ts in a child process with
 * the default SHUTDOWN_GRACE_SECONDS, a video (../shared car-detection.mp4: 5 frames) whose phase 3 takes 2.5 s
 * a frame (test/helpers/slowAnalyze.ts), SIGTERM after its second frame. The process must exit 0 well inside
 * Docker's 10 s; the job goes back to the queue without spending an attempt; a second process over the same
 * DATA_DIR analyses only the frames the first did not (counted from the preload's lines), and the item ends
 * `ready` with each frame once: one model caption and one whole-frame object per frame, no frame twice.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServerProcess, type ServerProcess } from '../helpers/serverProcess.js';
import { sharedPath } from '../helpers/skip.js';

const FRAME_MS = 2500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function api(srv: ServerProcess, method: string, url: string, body?: unknown) {
  const res = await fetch(srv.baseUrl + url, {
    method,
    headers: { 'x-api-key': srv.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

interface JobView {
  id: number;
  phase: string;
  status: string;
  mediaId: string;
  attempts: number;
  processingStatus: string;
}

async function analyzeJob(srv: ServerProcess, mediaId: string): Promise<JobView | undefined> {
  const got = await api(srv, 'GET', '/api/jobs?limit=100');
  assert.is(got.status, 200, JSON.stringify(got.body));
  return (got.body.jobs as JobView[]).find((j) => j.mediaId === mediaId && j.phase === 'analyze');
}

/** The `done` counts the preload printed in this process, in order. */
const framesAnalysed = (srv: ServerProcess) =>
  srv.logs
    .filter((l) => l.startsWith('slow-analyze '))
    .map((l) => (JSON.parse(l.slice('slow-analyze '.length)) as { progress: { done: number } }).progress.done);

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await probe();
    if (got) return got;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(50);
  }
}

const t = suite('shutdown during a long job');
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'shutdown-'));
const servers: ServerProcess[] = [];
t.after(async () => {
  for (const s of servers) await s.kill();
  rmSync(dataDir, { recursive: true, force: true });
});

t('SIGTERM mid-video: exit 0 inside 10 s, the job requeued with its attempt, the rest analysed once', async () => {
  const video = sharedPath('fixtures/videos/car-detection.mp4', 'the shutdown-during-a-long-job test');
  if (!video) return;
  const start = async () => {
    const srv = await startServerProcess({
      dataDir,
      env: { SHUTDOWN_GRACE_SECONDS: '7', TEST_ANALYZE_FRAME_MS: String(FRAME_MS), LOG_LEVEL: 'info' },
      preload: ['./test/helpers/slowAnalyze.ts'],
      startTimeoutMs: 60_000,
    });
    servers.push(srv);
    return srv;
  };
  let srv = await start();
  const me = await api(srv, 'GET', '/api/me');
  const created = await api(srv, 'POST', `/api/organization/${me.body.organizationId}/datasets`, { name: 'Stop' });
  assert.is(created.status, 200, JSON.stringify(created.body));
  const form = new FormData();
  form.append('datasetId', created.body.dataset.id);
  form.append('name', 'car.mp4');
  form.append('file', new Blob([readFileSync(video)]), 'car.mp4');
  const up = await fetch(`${srv.baseUrl}/api/upload/multipart`, {
    method: 'POST',
    headers: { 'x-api-key': srv.key },
    body: form,
  });
  const mediaId = ((await up.json()) as { mediaId: string }).mediaId;
  assert.is(up.status, 200);

  await until('two frames analysed', 120_000, async () => framesAnalysed(srv).includes(2));
  const sent = Date.now();
  const exit = await srv.stop(15_000);
  const stopMs = Date.now() - sent;
  console.log(`stopped in ${stopMs} ms after SIGTERM (deadline 7 s, Docker's 10 s)`);
  if (process.env.SHUTDOWN_TEST_LOGS)
    console.log(
      srv.logs
        .filter((l) => !l.startsWith('{"level":"debug'))
        .slice(-25)
        .join('\n'),
    );
  assert.equal(exit, { code: 0, signal: null }, srv.logs.slice(-15).join('\n'));
  assert.ok(stopMs < 9_000, `took ${stopMs} ms`);
  const first = framesAnalysed(srv);
  assert.ok(first.length >= 2 && first.length < 5, `first process analysed ${first.join(',')}`);
  assert.ok(
    srv.logs.some((l) => l.includes('job interrupted by shutdown; queued again')),
    'the job was released, not abandoned',
  );

  srv = await start();
  const done = await until('the analyze job succeeded', 120_000, async () => {
    const job = await analyzeJob(srv, mediaId);
    return job?.status === 'succeeded' && job;
  });
  assert.is(done.attempts, 1, 'the interrupted attempt was refunded');
  const second = framesAnalysed(srv);
  // Resumed after the last frame the first process finished: none of those again.
  assert.equal(
    second,
    Array.from({ length: 5 - first.length }, (_, i) => first.length + 1 + i),
  );

  const media = await until('the item ready', 30_000, async () => {
    const got = await api(srv, 'GET', `/api/media/${mediaId}`);
    return got.body.media?.processingStatus === 'ready' && got.body.media;
  });
  const frames = media.frames as Array<{ timestamp: string; captions: unknown[]; objects: { type: string }[] }>;
  assert.is(frames.length, 5);
  assert.is(new Set(frames.map((f) => f.timestamp)).size, 5, 'no frame twice');
  for (const f of frames) {
    assert.is(f.captions.length, 1, `frame ${f.timestamp}: one caption`);
    assert.is(f.objects.filter((o) => o.type === 'frame').length, 1, `frame ${f.timestamp}: one frame object`);
  }
  const description = media.metadata?.description ?? media.description;
  assert.ok(typeof description === 'string' && description.length > 0, `no description: ${JSON.stringify(media)}`);
  await srv.stop(15_000);
});

t.run();
