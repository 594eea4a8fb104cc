import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import sharp from 'sharp';
import { JobRunner } from '../../../src/jobs/runner.js';
import type { Job } from '../../../src/jobs/types.js';
import { enqueuePhase, registerIngestJobs } from '../../../src/features/ingest/jobs.js';
import { embedMedia } from '../../../src/features/ingest/frameEmbedding.js';
import { prepareMedia } from '../../../src/features/ingest/pipeline.js';
import { ANALYZE_JOB, EMBED_JOB, INGEST_JOB } from '../../../src/features/ingest/phases.js';
import { measuredRate } from '../../../src/features/ingest/progress.js';
import type { Services } from '../../../src/features/kernel/services.js';
import { createLogger } from '../../../src/platform/logger.js';
import { engineSql, withoutVectors } from '../../helpers/engine.js';
import { startTestApp, waitForProcessing, type TestApp } from '../../helpers/testApp.js';

/**
 * Ingest in phases (src/features/ingest/phases.ts): order by priority, searchable after phase 2,
 * the progress estimate of GET /api/jobs, idempotent retries per phase. The server runs no jobs
 * (INGEST_CONCURRENCY=0): each test drives a runner of its own, one job at a time, so the order
 * is the queue's, read back from the jobs' own timestamps.
 */
const t = suite<{ app: TestApp; ds: string }>('ingest phases');
t.before(async (ctx) => {
  ctx.app = await startTestApp({ ingestConcurrency: 0 });
  ctx.ds = await ctx.app.collection('Phases');
});
t.after(async (ctx) => ctx.app.close());

const quiet = createLogger('silent');
const ctxOf = () => ({ signal: new AbortController().signal, progress: async () => {}, logger: quiet });

/** A picture of one colour with a white square (distinct items for the stand-in models). */
const picture = (r: number, g: number, b: number) =>
  sharp({ create: { width: 160, height: 120, channels: 3, background: { r, g, b } } })
    .composite([{ input: { create: { width: 40, height: 40, channels: 3, background: '#fff' } }, left: 10, top: 10 }])
    .jpeg()
    .toBuffer();

/** Runs the ingest jobs with one slot (no urgent lane) until nothing is due; `deps` may wrap the services. */
async function drain(app: TestApp, deps: Services = app.app.services) {
  const runner = new JobRunner({
    store: deps.storage.jobs,
    logger: quiet,
    concurrency: 1,
    pollMs: 10,
    backoff: () => 10,
  });
  registerIngestJobs(runner, deps);
  runner.start();
  await runner.idle();
  // A retry waits out its backoff: wait while an ingest phase is still queued.
  for (let i = 0; i < 200 && (await pendingPhases(app)) > 0; i++) {
    await new Promise((r) => setTimeout(r, 20));
    await runner.idle();
  }
  await runner.stop({ graceMs: 1000 });
}

async function pendingPhases(app: TestApp) {
  const stats = await app.app.services.storage.jobs.stats();
  return [INGEST_JOB, EMBED_JOB, ANALYZE_JOB].reduce(
    (n, type) => n + (stats.byType[type]?.queued ?? 0) + (stats.byType[type]?.running ?? 0),
    0,
  );
}

/** The jobs of an item, by type (the latest of each). */
async function jobsOf(app: TestApp, mediaId: string): Promise<Record<string, Job>> {
  const { items } = await app.app.services.storage.jobs.list({ limit: 500 });
  const out: Record<string, Job> = {};
  for (const job of items.reverse()) if ((job.payload as { mediaId?: string }).mediaId === mediaId) out[job.type] = job;
  return out;
}

async function upload(app: TestApp, ds: string, name: string, bytes: Buffer): Promise<string> {
  const up = await app.upload({ datasetId: ds, name }, { bytes, filename: name });
  assert.is(up.status, 200, JSON.stringify(up.body));
  return up.body.mediaId;
}

/** Phases 1 and 2 run by hand, phase 3 queued: an item waiting for its analysis. */
async function embedded(app: TestApp, ds: string, name: string, bytes: Buffer): Promise<string> {
  const s = app.app.services;
  const id = await upload(app, ds, name, bytes);
  await s.storage.jobs.cancelByKey(INGEST_JOB, id);
  assert.is(await prepareMedia(s, id, ctxOf()), 'done');
  assert.is(await embedMedia(s, id, ctxOf()), 'done');
  await enqueuePhase(s, ANALYZE_JOB, id);
  return id;
}

t(
  "a fresh item's embedding runs before older items' analysis; its own analysis comes after theirs",
  async ({ app, ds }) => {
    const older = [];
    for (let i = 0; i < 3; i++) older.push(await embedded(app, ds, `older-${i}.jpg`, await picture(40 * i, 90, 200)));
    const fresh = await upload(app, ds, 'fresh.jpg', await picture(200, 40, 40));
    await drain(app);
    const mine = await jobsOf(app, fresh);
    for (const type of [INGEST_JOB, EMBED_JOB, ANALYZE_JOB]) assert.is(mine[type]?.status, 'succeeded', type);
    for (const id of older) {
      const theirs = (await jobsOf(app, id))[ANALYZE_JOB];
      assert.is(theirs.status, 'succeeded');
      assert.ok(mine[EMBED_JOB].finishedAt! <= theirs.startedAt!, 'the fresh embedding finished before their analysis');
      assert.ok(theirs.finishedAt! <= mine[ANALYZE_JOB].startedAt!, 'their analysis before the fresh one (first come)');
    }
    assert.is((await waitForProcessing(app, fresh)).processingStatus, 'ready');
  },
);

t(
  'with INGEST_ORDER=fifo every phase waits its turn: the fresh embedding comes after the older analysis',
  async ({ app, ds }) => {
    const older = await embedded(app, ds, 'fifo-older.jpg', await picture(10, 200, 10));
    const fresh = await upload(app, ds, 'fifo-fresh.jpg', await picture(10, 10, 10));
    // The fifo order is the config's: a copy of the services with it (the queue is the same).
    const s = app.app.services;
    await s.storage.jobs.cancelByKey(INGEST_JOB, fresh);
    const fifo = { ...s, config: { ...s.config, ingestOrder: 'fifo' as const } };
    await enqueuePhase(fifo, INGEST_JOB, fresh);
    await drain(app, fifo);
    const theirs = (await jobsOf(app, older))[ANALYZE_JOB];
    assert.ok((await jobsOf(app, fresh))[EMBED_JOB].startedAt! >= theirs.finishedAt!);
  },
);

t(
  'after phase 2 the item is found by meaning while its analysis is pending; it is `processing`',
  async ({ app, ds }) => {
    const s = app.app.services;
    const id = await upload(app, ds, 'p2.jpg', await picture(230, 20, 20));
    const found = async () => {
      const r = await app.request('GET', `/api/search?q=red&organizationId=${app.orgId}&limit=100`);
      assert.is(r.status, 200, JSON.stringify(r.body));
      const browse = await app.request('GET', `/api/dataset/${ds}/media?q=red&limit=100`);
      assert.is(browse.status, 200);
      return [
        r.body.results.some((x: { media: { id: string } }) => x.media.id === id),
        browse.body.media.some((m: { id: string }) => m.id === id),
      ];
    };
    await s.storage.jobs.cancelByKey(INGEST_JOB, id);
    await prepareMedia(s, id, ctxOf());
    assert.equal(await found(), [false, false], 'not by meaning before its embedding (its name says nothing)');
    await embedMedia(s, id, ctxOf());
    await enqueuePhase(s, ANALYZE_JOB, id);
    if (!withoutVectors('the embedded item is not searched by meaning; its phases still run'))
      assert.equal(await found(), [true, true], 'found by /api/search and by browse with q=');
    const m = (await app.request('GET', `/api/media/${id}`)).body.media;
    assert.is(m.processingStatus, 'processing');
    assert.is(m.analysis.embeddings, 'done');
    assert.equal(
      m.frames[0].objects.map((o: { type: string }) => o.type),
      ['frame'],
    );
    await drain(app);
    const ready = await waitForProcessing(app, id);
    assert.is(ready.processingStatus, 'ready');
    assert.is(
      ready.frames[0].objects.filter((o: { type: string }) => o.type === 'frame').length,
      1,
      'one frame object',
    );
    assert.equal(await found(), [true, true]);
  },
);

t('GET /api/jobs: remaining items per phase, rates and ETAs (null without a rate, numbers after jobs)', async () => {
  const fresh = await startTestApp({ ingestConcurrency: 0 });
  try {
    const ds = await fresh.collection('Eta');
    for (let i = 0; i < 3; i++) await upload(fresh, ds, `eta-${i}.jpg`, await picture(20 * i, 20, 20));
    let r = await fresh.request('GET', '/api/jobs');
    assert.is(r.status, 200);
    const names = r.body.ingest.phases.map((p: { phase: string }) => p.phase);
    assert.equal(names, ['prepare', 'embed', 'analyze']);
    assert.equal(
      r.body.ingest.phases.map((p: { remaining: number }) => p.remaining),
      [3, 0, 0],
    );
    for (const p of r.body.ingest.phases) assert.is(p.ratePerSecond, null);
    assert.is(r.body.ingest.phases[0].etaSeconds, null, 'remaining work without a rate: no ETA');
    assert.is(r.body.ingest.phases[1].etaSeconds, 0, 'nothing remaining: 0');
    assert.is(r.body.ingest.remaining, 3);
    assert.is(r.body.ingest.etaSeconds, null);
    assert.equal(
      r.body.jobs.map((j: { phase: string }) => j.phase),
      ['prepare', 'prepare', 'prepare'],
    );

    await drain(fresh);
    r = await fresh.request('GET', '/api/jobs');
    for (const p of r.body.ingest.phases) {
      assert.is(p.remaining, 0);
      assert.ok(typeof p.ratePerSecond === 'number' && p.ratePerSecond > 0, JSON.stringify(p));
      assert.is(p.etaSeconds, 0);
    }
    assert.is(r.body.ingest.etaSeconds, 0);
    // Other job types are listed too (e.g. the places sweep at start): count the ingest phases' jobs.
    const phaseJobs = r.body.jobs.filter((j: { phase: string }) => ['prepare', 'embed', 'analyze'].includes(j.phase));
    assert.is(phaseJobs.length, 9, 'every phase of every item is listed');
    // The event stream's job.progress events named `ingest` carry the same summary, down to `done` at 0.
    let progress: Array<{ data: any }> = [];
    for (let i = 0; i < 100; i++) {
      const events = await fresh.app.services.storage.events.after({
        organizationId: fresh.orgId,
        afterId: 0,
        limit: 500,
      });
      progress = events.filter((e) => e.type === 'job.progress' && (e.data as { job?: string }).job === 'ingest');
      if (progress.at(-1)?.data.status === 'done') break;
      await new Promise((res) => setTimeout(res, 100));
    }
    assert.ok(progress.length >= 2, JSON.stringify(progress));
    assert.is(progress[0].data.status, 'running');
    assert.is(progress[0].data.phases.length, 3);
    assert.is(progress.at(-1)!.data.remaining, 0);
    assert.is(progress.at(-1)!.data.status, 'done');
    assert.is(progress.at(-1)!.data.etaSeconds, 0);

    await upload(fresh, ds, 'eta-next.jpg', await picture(1, 2, 3));
    r = await fresh.request('GET', '/api/jobs');
    const [prepare] = r.body.ingest.phases;
    assert.is(prepare.remaining, 1);
    assert.is(prepare.etaSeconds, Math.round((1 / prepare.ratePerSecond) * 1000) / 1000);
    assert.ok(r.body.ingest.etaSeconds > 0, 'it still has to pass through every phase');
    const doc = await fresh.request('GET', '/api/openapi.json');
    const ok = doc.body.paths['/api/jobs'].get.responses['200'];
    assert.ok(ok.content['application/json'].schema.properties.ingest, 'the answer is in the OpenAPI document');
  } finally {
    await fresh.close();
  }
});

t('measuredRate: items over busy time, spans side by side counted once, old runs left out', () => {
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
  const now = Date.UTC(2026, 0, 1, 0, 0, 30);
  assert.is(measuredRate([], now), null);
  // Two side by side over 0..2 s, one alone 10..11 s: busy 3 s, 3 items.
  const runs = [
    { startedAt: at(0), finishedAt: at(2) },
    { startedAt: at(1), finishedAt: at(2) },
    { startedAt: at(10), finishedAt: at(11) },
  ];
  assert.is(measuredRate(runs, now), 1);
  assert.is(measuredRate(runs, now + 11 * 60_000), null, 'nothing finished within the window');
});

t('a phase retried after failing half-way leaves no duplicate objects, captions or embeddings', async ({ app, ds }) => {
  const s = app.app.services;
  const id = await upload(app, ds, 'flaky.jpg', await picture(240, 10, 10));
  let failures = 0;
  // Phase 3 fails once after it wrote the frame's analysis (the description is written after it).
  const flaky: Services = {
    ...s,
    storage: {
      ...s.storage,
      media: {
        ...s.storage.media,
        mutateMetadata: async (...args: Parameters<Services['storage']['media']['mutateMetadata']>) => {
          if (failures++ === 0) throw new Error('disk hiccup');
          return s.storage.media.mutateMetadata(...args);
        },
      },
    },
  };
  // Phase 2 twice by hand, as a retry would: one frame object, one embedding.
  await s.storage.jobs.cancelByKey(INGEST_JOB, id);
  await prepareMedia(s, id, ctxOf());
  await embedMedia(s, id, ctxOf());
  await embedMedia(s, id, ctxOf());
  const count = async (sql: string) => (await engineSql(s.storage).value(sql, id)) as number;
  assert.is(await count(`SELECT count(*) FROM detected_objects WHERE media_id = ? AND status = 'active'`), 1);
  assert.is(await count(`SELECT count(*) FROM object_embeddings WHERE media_id = ?`), 1);
  await enqueuePhase(s, ANALYZE_JOB, id);
  await drain(app, flaky);
  const job = (await jobsOf(app, id))[ANALYZE_JOB];
  assert.is(job.status, 'succeeded');
  assert.is(job.attempts, 2, 'phase 3 ran again after its failure');
  const m = await waitForProcessing(app, id);
  assert.is(m.processingStatus, 'ready');
  const objects = await count(`SELECT count(*) FROM detected_objects WHERE media_id = ? AND status = 'active'`);
  const captions = await count(`SELECT count(*) FROM captions WHERE media_id = ? AND status = 'active'`);
  const vectors = await count(`SELECT count(*) FROM object_embeddings WHERE media_id = ?`);
  assert.is(captions, 1);
  assert.is(m.frames[0].objects.filter((o: { type: string }) => o.type === 'frame').length, 1);
  assert.is(objects, m.frames[0].objects.length);
  // Reprocessed: the same rows again, not more.
  assert.is((await app.request('POST', `/api/media/${id}/reprocess`)).status, 202);
  await drain(app);
  assert.is((await waitForProcessing(app, id)).processingStatus, 'ready');
  assert.is(await count(`SELECT count(*) FROM detected_objects WHERE media_id = ? AND status = 'active'`), objects);
  assert.is(await count(`SELECT count(*) FROM captions WHERE media_id = ? AND status = 'active'`), captions);
  assert.is(await count(`SELECT count(*) FROM object_embeddings WHERE media_id = ?`), vectors);
});

t('a reprocess cancels the later phases queued for the item and starts again from phase 1', async ({ app, ds }) => {
  const s = app.app.services;
  const id = await embedded(app, ds, 'again.jpg', await picture(90, 90, 250));
  const queued = (await jobsOf(app, id))[ANALYZE_JOB];
  assert.is(queued.status, 'queued');
  assert.is((await app.request('POST', `/api/media/${id}/reprocess`)).status, 202);
  assert.is((await s.storage.jobs.get(queued.id))!.status, 'cancelled');
  assert.is((await app.request('GET', `/api/media/${id}`)).body.media.processingStatus, 'pending');
  await drain(app);
  const m = await waitForProcessing(app, id);
  assert.is(m.processingStatus, 'ready');
  const mine = await jobsOf(app, id);
  for (const type of [INGEST_JOB, EMBED_JOB, ANALYZE_JOB]) assert.is(mine[type].status, 'succeeded', type);
});

t('phase 3 reads the frame vector phase 2 stored: the frame is not embedded again', async ({ app, ds }) => {
  const bytes = await picture(30, 160, 90);
  const id = await embedded(app, ds, 'once.jpg', bytes);
  const services = app.app.services;
  const [frame] = await services.storage.analysis.framesOf(id);
  const frameBytes = await services.blobs.readBuffer(frame.blobKey);
  const seen: Buffer[] = [];
  const models: Services['models'] = Object.create(services.models);
  models.embedImages = async (name, images) => {
    seen.push(...images);
    return services.models.embedImages(name, images);
  };
  await drain(app, { ...services, models });
  const phases = await jobsOf(app, id);
  assert.is(phases[ANALYZE_JOB].status, 'succeeded');
  assert.is(seen.filter((b) => b.equals(frameBytes)).length, 0, 'phase 3 embedded the whole frame again');
  const detail = (await services.storage.media.frames([id])).get(id)![0];
  assert.ok(
    detail.objects.some((o) => o.type === 'frame'),
    'the whole-frame object is kept, with its vector',
  );
});

t.run();
