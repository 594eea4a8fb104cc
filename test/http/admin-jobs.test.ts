/**
 * Issue #28, the job queue through the real HTTP app: GET /api/jobs says whether background work is paused;
 * retry one failed ingest job (another organization's answers 404), retry every failed job, pause and resume
 * (admins only). The queue's own contract (both engines): test/jobs/storeSuite.ts; the runner's pause:
 * test/jobs/runner.test.ts.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeImage, startTestApp, type TestApp } from '../helpers/testApp.js';

interface Ctx {
  app: TestApp;
  dataset: string;
}
const t = suite<Ctx>('admin: jobs');

t.before(async (ctx) => {
  // No runner: the test settles the jobs itself, as a worker that failed would.
  ctx.app = await startTestApp({ ingestConcurrency: 0 });
  ctx.dataset = await ctx.app.collection('Jobs');
});
t.after(async (ctx) => ctx.app.close());

/** Uploads an image and fails its first ingest job for good; returns the job's id and the item's. */
async function failedItem(app: TestApp, dataset: string, key = app.key) {
  const up = await app.upload({ datasetId: dataset }, { bytes: await makeImage(), filename: 'a.jpg' }, key);
  assert.is(up.status, 200, JSON.stringify(up.body));
  const jobs = app.app.services.storage.jobs;
  const job = await jobs.claim('worker', ['ingest'], 60_000);
  assert.ok(job, 'the upload queued its ingest job');
  await jobs.fail(job.id, 'worker', 'the decoder broke', null);
  return { jobId: job.id, mediaId: up.body.id ?? up.body.media?.id };
}

t('retry one failed job: listed with its reason, queued again; another organization’s answers 404', async (ctx) => {
  const { app } = ctx;
  const { jobId } = await failedItem(app, ctx.dataset);
  const failed = await app.request('GET', '/api/jobs?status=failed');
  assert.is(failed.status, 200);
  const listed = failed.body.jobs.find((j: any) => j.id === jobId);
  assert.is(listed.lastError, 'the decoder broke');
  assert.is(failed.body.paused, null);
  const retried = await app.request('POST', `/api/jobs/${jobId}/retry`);
  assert.equal(retried.body, { id: jobId, status: 'queued', retried: true });
  assert.is((await app.app.services.storage.jobs.get(jobId))?.attempts, 0);
  const again = await app.request('POST', `/api/jobs/${jobId}/retry`);
  assert.equal(again.body, { id: jobId, status: 'queued', retried: false }, 'a queued job is left as it is');
  assert.is((await app.request('POST', '/api/jobs/999999/retry')).status, 404);
  assert.is((await app.request('POST', '/api/jobs/abc/retry')).status, 404);

  // Another organization, with its own key: it cannot touch this organization's job.
  const org = await app.request('POST', '/api/auth/organization/create', { body: { name: 'Other' } });
  const key = await app.request('POST', '/api/keys', { body: { organizationId: org.body.organization.id } });
  const r = await app.request('POST', `/api/jobs/${jobId}/retry`, { key: key.body.key });
  assert.is(r.status, 404, JSON.stringify(r.body));
  // Nor may a member of this one.
  const member = await app.request('POST', '/api/keys', { body: { role: 'member' } });
  assert.is((await app.request('POST', `/api/jobs/${jobId}/retry`, { key: member.body.key })).status, 403);
  await app.app.services.storage.jobs.cancel(jobId);
});

/** Enqueues a job of its own type, claims it and fails it for good (or only claims it); its id. */
async function jobOf(app: TestApp, type: string, payload: object, fail: string | null) {
  const jobs = app.app.services.storage.jobs;
  await jobs.enqueue({ type, payload });
  const job = await jobs.claim('worker', [type], 60_000);
  assert.ok(job, type);
  if (fail) await jobs.fail(job.id, 'worker', fail, null);
  return job.id;
}

t(
  'every job type: depth per type, failed with reasons and running with progress, scoped to the organization',
  async (ctx) => {
    const { app } = ctx;
    const up = await app.upload({ datasetId: ctx.dataset }, { bytes: await makeImage(), filename: 'clip.jpg' });
    const org = await app.request('POST', '/api/auth/organization/create', { body: { name: 'Elsewhere' } });
    const otherKey = (await app.request('POST', '/api/keys', { body: { organizationId: org.body.organization.id } }))
      .body.key;
    const theirs = await app.request('POST', `/api/organization/${org.body.organization.id}/datasets`, {
      body: { name: 'Theirs' },
      key: otherKey,
    });
    assert.is(theirs.status, 200, JSON.stringify(theirs.body));
    const ids = {
      item: await jobOf(app, 'x-web-video', { mediaId: up.body.mediaId }, 'ffmpeg gave up'),
      collection: await jobOf(app, 'x-duplicates-scan', { collectionId: ctx.dataset }, 'the scan broke'),
      organization: await jobOf(app, 'x-generate', { organizationId: app.orgId }, 'the model is missing'),
      server: await jobOf(app, 'x-trash-purge', { before: new Date().toISOString() }, 'the disk is read-only'),
      theirs: await jobOf(app, 'x-duplicates-scan', { collectionId: theirs.body.dataset.id }, 'theirs broke'),
      running: await jobOf(app, 'x-generate', { organizationId: app.orgId }, null),
    };
    await app.app.services.storage.jobs.setProgress(ids.running, 'worker', { done: 5, total: 20 });

    const failed = (await app.request('GET', '/api/jobs?status=failed&limit=500')).body;
    const byId = new Map(failed.jobs.map((j: any) => [j.id, j]));
    assert.equal((byId.get(ids.item) as any).scope.name, 'clip.jpg');
    assert.is((byId.get(ids.item) as any).lastError, 'ffmpeg gave up');
    assert.equal((byId.get(ids.collection) as any).scope, {
      kind: 'collection',
      id: ctx.dataset,
      name: 'Jobs',
      processingStatus: null,
    });
    assert.is((byId.get(ids.organization) as any).lastError, 'the model is missing');
    assert.is((byId.get(ids.server) as any).scope.kind, 'server');
    assert.not.ok(byId.has(ids.theirs), 'another organization’s job is not listed');
    const depth = failed.types.find((d: any) => d.type === 'x-duplicates-scan');
    assert.is(depth.failed, 2, 'the depth per type is the server’s');

    const running = (await app.request('GET', '/api/jobs?status=running&type=x-generate')).body.jobs;
    assert.is(running.length, 1);
    assert.is(running[0].figures.done, 5);
    assert.is(running[0].figures.total, 20);
    assert.ok(running[0].figures.ratePerSecond > 0 && running[0].figures.etaSeconds > 0, JSON.stringify(running[0]));

    const retried = await app.request('POST', `/api/jobs/${ids.collection}/retry`);
    assert.equal(retried.body, { id: ids.collection, status: 'queued', retried: true }, 'any type is retried');
    assert.is((await app.request('POST', `/api/jobs/${ids.theirs}/retry`)).status, 404, 'not another organization’s');
    assert.is((await app.request('POST', `/api/jobs/${ids.collection}/retry`, { key: otherKey })).status, 404);
    assert.is((await app.request('POST', `/api/jobs/${ids.theirs}/retry`, { key: otherKey })).status, 200);
    for (const id of Object.values(ids)) await app.app.services.storage.jobs.cancel(id);
  },
);

t('retry every failed job at once', async (ctx) => {
  const { app } = ctx;
  const a = await failedItem(app, ctx.dataset);
  const b = await failedItem(app, ctx.dataset);
  const r = await app.request('POST', '/api/jobs/retry-failed');
  assert.is(r.status, 200);
  assert.ok(r.body.queued >= 2, JSON.stringify(r.body));
  for (const { jobId } of [a, b]) assert.is((await app.app.services.storage.jobs.get(jobId))?.status, 'queued');
  assert.is((await app.request('GET', '/api/jobs')).body.stats.failed, 0);
  for (const { jobId } of [a, b]) await app.app.services.storage.jobs.cancel(jobId);
});

t('pause and resume: GET /api/jobs says since when; admins only', async (ctx) => {
  const { app } = ctx;
  const member = await app.request('POST', '/api/keys', { body: { role: 'member' } });
  assert.is((await app.request('POST', '/api/jobs/pause', { key: member.body.key })).status, 403);
  const paused = await app.request('POST', '/api/jobs/pause');
  assert.is(paused.status, 200);
  assert.ok(paused.body.paused);
  assert.is((await app.request('GET', '/api/jobs')).body.paused, paused.body.paused);
  const resumed = await app.request('POST', '/api/jobs/resume');
  assert.equal(resumed.body, { paused: null });
  assert.is((await app.request('GET', '/api/jobs')).body.paused, null);
});

t.run();
