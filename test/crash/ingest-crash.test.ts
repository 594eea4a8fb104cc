/**
 * Crash test of the ingest pipeline: runs the real server as a child process
 * (MODEL_PROFILE=test, stand-in models generated in a temp MODELS_DIR), uploads
 * a dozen images (each with a red square, so the YOLOX stand-in finds one
 * object) and, when ../shared has it, one short video; SIGKILLs the server while
 * ingest jobs run (some done, some running, some still queued; half-way through
 * the video's frames when it can catch that), restarts it over the same
 * DATA_DIR, kills it once more while a job the first kill interrupted runs
 * again, and finally lets it finish: every item must reach `ready`. Then a graceful SIGTERM
 * (exit 0), and the database is checked directly:
 *   - per item exactly the expected active frames (an image: 1; the video: the
 *     timestamps a reference sampling of the same file gives, no two alike),
 *   - per frame exactly one active model caption and exactly one `frame` object
 *     (and, for images, exactly one `object`: the red square),
 *   - no duplicate objects (same frame, type, label, polygon), nothing active on
 *     an inactive frame,
 *   - every object embedding belongs to an existing active object (same item),
 *     every active object with a similarity model has its embedding,
 *   - every phase job of every item succeeded; the attempts beyond the first are exactly
 *     the runs the kills interrupted (no failures, no retries besides),
 *   - every file an active row names is on disk, PRAGMA integrity_check is ok.
 *
 * A killed process's running jobs come back when their lease expires; the test
 * runs the server with JOB_LEASE_SECONDS=3 (CRASH_JOB_LEASE_SECONDS overrides)
 * instead of the default 60 s, and prints how long recovery took after each
 * restart: restart, reclaim of the interrupted jobs, their completion.
 */
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveFfmpeg } from '../../src/files/binaries.js';
import { formatTimestamp } from '../../src/features/ingest/pipeline.js';
import { sampleVideoFrames } from '../../src/features/ingest/videoFrames.js';
import { startServerProcess, type ServerProcess } from '../helpers/serverProcess.js';
import { sharedPath } from '../helpers/skip.js';

const IMAGES = 12;
const LEASE_SECONDS = Number(process.env.CRASH_JOB_LEASE_SECONDS ?? 3);
const CONCURRENCY = 2;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Item {
  name: string;
  type: 'image' | 'video';
  mediaId: string;
}

interface JobView {
  id: number;
  status: string;
  mediaId: string;
  processingStatus: string;
  attempts: number;
  progress: { frames?: number; done?: number } | null;
}

interface LogEntry {
  time: string;
  msg: string;
  jobId?: number;
  attempt?: number;
  [k: string]: unknown;
}

/**
 * A distinct picture: a background of one of several (non-red) colours, a red
 * square of varying size and place (the YOLOX stand-in's one object), a few
 * stripes so no two are alike; JPEG, PNG or WebP in turn.
 */
async function makeImage(i: number): Promise<{ bytes: Buffer; ext: string }> {
  const backgrounds = [
    { r: 250, g: 250, b: 250 },
    { r: 40, g: 90, b: 200 },
    { r: 30, g: 160, b: 60 },
    { r: 240, g: 220, b: 60 },
    { r: 20, g: 20, b: 20 },
    { r: 120, g: 120, b: 130 },
  ];
  const width = 240 + ((i * 37) % 200);
  const height = 200 + ((i * 53) % 160);
  const side = 56 + ((i * 13) % 48);
  const left = 10 + ((i * 29) % (width - side - 20));
  const top = 10 + ((i * 17) % (height - side - 20));
  const stripe = (k: number) => ({
    input: {
      create: {
        width: 6 + k * 3,
        height,
        channels: 3 as const,
        background: { r: 0, g: 60 + k * 40, b: 120 + ((i * 20) % 120) },
      },
    },
    left: (left + side + 10 + k * 25 + i) % (width - 20),
    top: 0,
  });
  const img = sharp({
    create: { width, height, channels: 3, background: backgrounds[i % backgrounds.length] },
  }).composite([
    stripe(0),
    stripe(1),
    { input: { create: { width: side, height: side, channels: 3, background: { r: 230, g: 10, b: 10 } } }, left, top },
  ]);
  const pick = i % 3;
  if (pick === 0) return { bytes: await img.jpeg({ quality: 90 }).toBuffer(), ext: 'jpg' };
  if (pick === 1) return { bytes: await img.png().toBuffer(), ext: 'png' };
  return { bytes: await img.webp({ quality: 90 }).toBuffer(), ext: 'webp' };
}

async function api(
  srv: ServerProcess,
  method: string,
  url: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(srv.baseUrl + url, {
    method,
    headers: { 'x-api-key': srv.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed };
}

async function upload(srv: ServerProcess, datasetId: string, name: string, bytes: Buffer): Promise<string> {
  const form = new FormData();
  form.append('datasetId', datasetId);
  form.append('name', name);
  form.append('file', new Blob([bytes]), name);
  const res = await fetch(`${srv.baseUrl}/api/upload/multipart`, {
    method: 'POST',
    headers: { 'x-api-key': srv.key },
    body: form,
  });
  const text = await res.text();
  assert.is(res.status, 200, `upload of ${name}: ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { mediaId: string }).mediaId;
}

/** The ingest jobs of our items (GET /api/jobs as the owner, who is an admin), newest first. */
async function jobsOf(srv: ServerProcess, items: Item[]): Promise<JobView[]> {
  const got = await api(srv, 'GET', '/api/jobs?limit=500');
  assert.is(got.status, 200, JSON.stringify(got.body));
  const ids = new Set(items.map((i) => i.mediaId));
  return (got.body.jobs as JobView[]).filter((j) => ids.has(j.mediaId));
}

interface Snapshot {
  jobs: JobView[];
  running: JobView[];
  queued: JobView[];
  succeeded: JobView[];
  ready: number;
}

async function snapshot(srv: ServerProcess, items: Item[]): Promise<Snapshot> {
  const jobs = await jobsOf(srv, items);
  // The newest job per item (a reprocess would add one; this test makes none).
  const latest = new Map<string, JobView>();
  for (const j of jobs) if (!latest.has(j.mediaId) || latest.get(j.mediaId)!.id < j.id) latest.set(j.mediaId, j);
  const cur = [...latest.values()];
  return {
    jobs: cur,
    running: cur.filter((j) => j.status === 'running'),
    queued: cur.filter((j) => j.status === 'queued'),
    succeeded: cur.filter((j) => j.status === 'succeeded'),
    ready: cur.filter((j) => j.processingStatus === 'ready').length,
  };
}

/** Polls until `pred` holds; returns that snapshot, or throws after `ms`. */
async function waitFor(
  srv: ServerProcess,
  items: Item[],
  what: string,
  ms: number,
  pred: (s: Snapshot) => boolean,
): Promise<Snapshot> {
  const deadline = Date.now() + ms;
  let last: Snapshot | null = null;
  for (;;) {
    last = await snapshot(srv, items);
    if (pred(last)) return last;
    if (Date.now() > deadline) {
      const summary = last.jobs
        .map((j) => `${j.mediaId.slice(0, 6)}:${j.status}/${j.processingStatus}#${j.attempts}`)
        .join(' ');
      throw new Error(`timed out after ${ms} ms waiting for ${what}; jobs: ${summary}`);
    }
    await sleep(20);
  }
}

function parseLogs(srv: ServerProcess): LogEntry[] {
  const out: LogEntry[] = [];
  for (const line of srv.logs) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as LogEntry);
    } catch {
      /* a line cut by the kill */
    }
  }
  return out;
}

/**
 * The job runs a killed process left unfinished: started in its log and never
 * settled there (stdout is a pipe, written synchronously on Linux, so the log
 * is complete up to the kill).
 */
function interruptedRuns(killed: ServerProcess): Array<{ jobId: number; attempt: number }> {
  const open = new Map<number, number>();
  for (const e of parseLogs(killed)) {
    if (typeof e.jobId !== 'number') continue;
    if (e.msg === 'job started') open.set(e.jobId, e.attempt ?? 0);
    else if (/^job (succeeded|failed|interrupted|stopped|finished)/.test(e.msg)) open.delete(e.jobId);
  }
  return [...open].map(([jobId, attempt]) => ({ jobId, attempt }));
}

type Run = { jobId: number; attempt: number };
interface Recovery extends Run {
  /** The attempt number of the run that took the job up again (attempt + 1), null while not yet. */
  reattempt: number | null;
  /** ms after the kill: the job's next attempt started (lease expired, reclaimed) / it succeeded. */
  reclaimedMs: number | null;
  doneMs: number | null;
}

/** After a restart: when each interrupted job was taken up again and when it succeeded (from the new process's log). */
function recoveryOf(srv: ServerProcess, runs: Run[], killedAt: number): Recovery[] {
  const logs = parseLogs(srv);
  return runs.map((r) => {
    const started = logs.find((e) => e.msg === 'job started' && e.jobId === r.jobId);
    const done = logs.find((e) => e.msg === 'job succeeded' && e.jobId === r.jobId);
    return {
      ...r,
      reattempt: started?.attempt ?? null,
      reclaimedMs: started ? Date.parse(started.time) - killedAt : null,
      doneMs: done ? Date.parse(done.time) - killedAt : null,
    };
  });
}

/** Waits up to `ms` until every interrupted job succeeded in the new process. */
async function awaitRecovery(srv: ServerProcess, runs: Run[], killedAt: number, ms: number): Promise<Recovery[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const result = recoveryOf(srv, runs, killedAt);
    if (result.every((r) => r.doneMs !== null)) return result;
    if (Date.now() > deadline) {
      throw new Error(
        `interrupted jobs not finished within ${ms} ms: ${JSON.stringify(result)}\n${srv.logs.slice(-20).join('\n')}`,
      );
    }
    await sleep(50);
  }
}

const fmt = (r: Recovery[], k: 'reclaimedMs' | 'doneMs') => r.map((x) => `${x[k] ?? '—'}`).join(', ');

const t = suite('crash safety of ingest jobs (real server process, SIGKILL)');

t('ingest survives SIGKILL twice: every item ready, no duplicate frames, captions or objects', async () => {
  const testStarted = Date.now();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mlib-ingest-crash-'));
  const modelsDir = mkdtempSync(path.join(os.tmpdir(), 'mlib-ingest-crash-models-'));
  const env = {
    MODEL_PROFILE: 'test',
    MODELS_DIR: modelsDir,
    JOB_LEASE_SECONDS: String(LEASE_SECONDS),
    INGEST_CONCURRENCY: String(CONCURRENCY),
  };
  console.log(
    `DATA_DIR ${dataDir}, MODELS_DIR ${modelsDir}, job lease ${LEASE_SECONDS} s, ingest concurrency ${CONCURRENCY}`,
  );
  const servers: ServerProcess[] = [];
  let srv: ServerProcess | null = null;
  const start = async () => {
    const s = await startServerProcess({ dataDir, env, startTimeoutMs: 60_000 });
    servers.push(s);
    return s;
  };
  try {
    srv = await start();
    const me = await api(srv, 'GET', '/api/me');
    assert.is(me.status, 200, JSON.stringify(me.body));
    const created = await api(srv, 'POST', `/api/organization/${me.body.organizationId}/datasets`, {
      name: 'Ingest crash',
    });
    assert.is(created.status, 200, JSON.stringify(created.body));
    const datasetId = created.body.dataset.id as string;

    // Upload: the images, with the video (when present) third, so that the first
    // kill can catch it half-way through its frames.
    const videoFile = sharedPath('fixtures/videos/asl_eat.mkv', 'the video part of the ingest crash test');
    const items: Item[] = [];
    const uploadsStarted = Date.now();
    for (let i = 0; i < IMAGES; i++) {
      if (videoFile && i === 2) {
        items.push({
          name: 'clip.mkv',
          type: 'video',
          mediaId: await upload(srv, datasetId, 'clip.mkv', readFileSync(videoFile)),
        });
      }
      const img = await makeImage(i);
      const name = `square-${i}.${img.ext}`;
      items.push({ name, type: 'image', mediaId: await upload(srv, datasetId, name, img.bytes) });
    }
    const video = items.find((i) => i.type === 'video') ?? null;
    console.log(
      `uploaded ${items.length} items (${IMAGES} images${video ? ', 1 video' : ''}) in ${Date.now() - uploadsStarted} ms`,
    );

    // Kill 1: some items done, some running, several still queued; mid-video
    // (some of its frames analysed, not all) when it can be caught there.
    const midVideo = (s: Snapshot) => {
      const v = video && s.running.find((j) => j.mediaId === video.mediaId);
      const done = v?.progress?.done ?? 0;
      return !!v && done >= 1 && done < (v.progress?.frames ?? 0);
    };
    const videoGone = (s: Snapshot) => !video || s.succeeded.some((j) => j.mediaId === video.mediaId);
    const before1 = await waitFor(
      srv,
      items,
      'kill 1 conditions (≥1 done, mid-video or running, ≥3 queued)',
      60_000,
      (s) => s.succeeded.length >= 1 && s.running.length >= 1 && s.queued.length >= 3 && (midVideo(s) || videoGone(s)),
    );
    const caughtVideo = midVideo(before1);
    let killedAt = Date.now();
    let exit = await srv.kill();
    assert.is(exit.signal, 'SIGKILL');
    const runs1 = interruptedRuns(srv);
    const vjob = video ? before1.jobs.find((j) => j.mediaId === video.mediaId) : null;
    console.log(
      `kill 1: ${before1.ready} ready, ${before1.running.length} running, ${before1.queued.length} queued when polled; ` +
        `${caughtVideo ? `mid-video (${vjob!.progress!.done}/${vjob!.progress!.frames} frames analysed)` : 'not mid-video'}; ` +
        `${runs1.length} run(s) interrupted per the log: ${JSON.stringify(runs1)}`,
    );
    assert.ok(runs1.length >= 1, 'kill 1 interrupted at least one running job');

    // Restart. Kill 2: while a job interrupted by kill 1 runs again (its second
    // interruption), else, when those all finished first, while anything runs
    // and something is still queued.
    srv = await start();
    const up1 = Date.now() - killedAt;
    const killed1At = killedAt;
    const runs1Ids = new Map(runs1.map((r) => [r.jobId, r.attempt]));
    const rerunning = (s: Snapshot) =>
      s.running.some((j) => runs1Ids.get(j.id) !== undefined && j.attempts === runs1Ids.get(j.id)! + 1);
    const before2 = await waitFor(
      srv,
      items,
      'kill 2 conditions (a reclaimed job running, or anything running with work queued)',
      60_000,
      (s) =>
        rerunning(s) ||
        (recoveryOf(srv!, runs1, killed1At).every((r) => r.doneMs !== null) &&
          s.running.length >= 1 &&
          s.queued.length >= 1),
    );
    const caughtRerun = rerunning(before2);
    killedAt = Date.now();
    exit = await srv.kill();
    assert.is(exit.signal, 'SIGKILL');
    const rec1 = recoveryOf(srv, runs1, killed1At);
    console.log(
      `recovery 1: restart (kill → healthy) ${up1} ms; interrupted jobs reclaimed ${fmt(rec1, 'reclaimedMs')} ms ` +
        `and done ${fmt(rec1, 'doneMs')} ms after the kill (lease ${LEASE_SECONDS} s; — = killed again first)`,
    );
    for (const r of rec1) {
      if (r.reattempt !== null)
        assert.is(r.reattempt, r.attempt + 1, `job ${r.jobId} reclaimed as attempt ${r.attempt + 1} after kill 1`);
    }
    // Kill 1's jobs whose lease had not been reclaimed before kill 2: the third process must take them up.
    const carried: Run[] = rec1
      .filter((r) => r.reattempt === null)
      .map((r) => ({ jobId: r.jobId, attempt: r.attempt }));
    assert.ok(rec1.some((r) => r.reattempt !== null) || !caughtRerun, 'a reclaimed job was running at kill 2');
    const runs2 = interruptedRuns(srv);
    console.log(
      `kill 2: ${before2.ready} ready, ${before2.running.length} running, ${before2.queued.length} queued when polled; ` +
        `${caughtRerun ? 'a job reclaimed after kill 1 was running again' : 'no reclaimed job running'}; ` +
        `${runs2.length} run(s) interrupted per the log: ${JSON.stringify(runs2)}` +
        (carried.length
          ? `; kill 1's job(s) ${carried.map((r) => r.jobId).join(', ')} not yet reclaimed (carried over)`
          : ''),
    );
    assert.ok(runs2.length >= 1, 'kill 2 interrupted at least one running job');

    // Restart, and let it finish.
    srv = await start();
    const up2 = Date.now() - killedAt;
    const rec2 = await awaitRecovery(srv, [...runs2, ...carried], killedAt, 60_000);
    for (const r of rec2)
      assert.is(r.reattempt, r.attempt + 1, `job ${r.jobId} reclaimed as attempt ${r.attempt + 1} after kill 2`);
    const all = await waitFor(
      srv,
      items,
      'every item ready',
      90_000,
      (s) => s.jobs.length === items.length && s.ready === items.length && s.succeeded.length === items.length,
    );
    const allReadyMs = Date.now() - killedAt;
    console.log(
      `recovery 2: restart (kill → healthy) ${up2} ms; interrupted jobs reclaimed ${fmt(rec2, 'reclaimedMs')} ms ` +
        `and done ${fmt(rec2, 'doneMs')} ms after the kill; all ${all.ready} items ready ${allReadyMs} ms after the kill`,
    );

    // Through the API: every item ready, one caption and one frame object per frame.
    for (const item of items) {
      const got = await api(srv, 'GET', `/api/media/${item.mediaId}`);
      assert.is(got.status, 200);
      const m = got.body.media;
      assert.is(m.processingStatus, 'ready', `${item.name}: ${m.processingError ?? ''}`);
      if (item.type === 'image') assert.is(m.frames.length, 1, `${item.name}: one frame`);
      else assert.ok(m.frames.length >= 2, `${item.name}: ${m.frames.length} frames`);
      for (const f of m.frames) {
        assert.is(f.captions.length, 1, `${item.name} @${f.timestamp}: one caption`);
        assert.is(
          f.objects.filter((o: { type: string }) => o.type === 'frame').length,
          1,
          `${item.name} @${f.timestamp}: one frame object`,
        );
      }
    }

    exit = await srv.stop();
    assert.equal(exit, { code: 0, signal: null }, 'SIGTERM: graceful exit 0');
    srv = null;

    // Nothing failed or retried on its own: the only extra attempts are the kills'.
    const allLogs = servers.flatMap(parseLogs);
    const failures = allLogs.filter((e) => /^job failed/.test(e.msg));
    assert.equal(
      failures.map((e) => `${e.msg}: ${JSON.stringify(e.err ?? '')}`),
      [],
      'no job failed',
    );
    const leaseLost = allLogs.filter((e) => e.msg === 'job lease lost; aborting its handler').length;

    // The reference sampling of the video: what its frames must be.
    let expectedTimestamps: string[] | null = null;
    const db = new Database(path.join(dataDir, 'library.db'), { readonly: true, fileMustExist: true });
    try {
      if (video) {
        const { duration } = db.prepare(`SELECT duration FROM media WHERE id = ?`).get(video.mediaId) as {
          duration: number | null;
        };
        const work = mkdtempSync(path.join(os.tmpdir(), 'mlib-ingest-crash-ref-'));
        try {
          const ref = await sampleVideoFrames(videoFile!, {
            ffmpegPath: resolveFfmpeg(process.env.FFMPEG_PATH),
            duration,
            workDir: work,
          });
          expectedTimestamps = ref.map((f) => formatTimestamp(f.timestamp));
        } finally {
          rmSync(work, { recursive: true, force: true });
        }
      }

      assert.equal(db.pragma('integrity_check', { simple: false }), [{ integrity_check: 'ok' }]);
      assert.equal(db.pragma('foreign_key_check'), []);

      const framesOf = db.prepare(
        `SELECT id, timestamp, blob_key FROM frames WHERE media_id = ? AND status = 'active' ORDER BY seconds, id`,
      );
      const countCaptions = db
        .prepare(`SELECT count(*) FROM captions WHERE frame_id = ? AND status = 'active' AND source = 'model'`)
        .pluck();
      const countObjects = db
        .prepare(`SELECT count(*) FROM detected_objects WHERE frame_id = ? AND status = 'active' AND type = ?`)
        .pluck();
      let frameTotal = 0;
      for (const item of items) {
        const row = db
          .prepare(`SELECT processing_status, processing_error FROM media WHERE id = ?`)
          .get(item.mediaId) as {
          processing_status: string;
          processing_error: string | null;
        };
        assert.is(row.processing_status, 'ready', `${item.name} ready in the database`);
        const frames = framesOf.all(item.mediaId) as Array<{ id: string; timestamp: string; blob_key: string }>;
        const stamps = frames.map((f) => f.timestamp);
        assert.is(
          new Set(stamps).size,
          stamps.length,
          `${item.name}: no two active frames share a timestamp (${stamps})`,
        );
        if (item.type === 'image') assert.equal(stamps, ['0'], `${item.name}: exactly one active frame`);
        else assert.equal(stamps, expectedTimestamps, `${item.name}: the active frames are the reference sampling's`);
        for (const f of frames) {
          frameTotal++;
          const where = `${item.name} @${f.timestamp}`;
          assert.is(countCaptions.get(f.id), 1, `${where}: exactly one active model caption`);
          assert.is(countObjects.get(f.id, 'frame'), 1, `${where}: exactly one frame object`);
          if (item.type === 'image')
            assert.is(countObjects.get(f.id, 'object'), 1, `${where}: exactly one detected object (the red square)`);
        }
      }

      // No duplicate objects anywhere; nothing active hangs off an inactive frame.
      const dupes = db
        .prepare(
          `SELECT frame_id, type, label, polygon, count(*) AS n FROM detected_objects WHERE status = 'active'
           GROUP BY frame_id, type, label, polygon HAVING n > 1`,
        )
        .all();
      assert.equal(dupes, [], 'no duplicate objects (same frame, type, label, polygon)');
      const dupCaptions = db
        .prepare(
          `SELECT frame_id, count(*) AS n FROM captions WHERE status = 'active' AND source = 'model' GROUP BY frame_id HAVING n > 1`,
        )
        .all();
      assert.equal(dupCaptions, [], 'no frame has two active model captions');
      const strays = db
        .prepare(
          `SELECT 'caption' AS kind, c.id FROM captions c JOIN frames f ON f.id = c.frame_id WHERE c.status = 'active' AND f.status <> 'active'
           UNION ALL
           SELECT 'object', o.id FROM detected_objects o JOIN frames f ON f.id = o.frame_id WHERE o.status = 'active' AND f.status <> 'active'`,
        )
        .all();
      assert.equal(strays, [], 'no active caption or object on an inactive frame');

      // Embeddings: each belongs to an active object of the same item; each active object with a similarity model has one.
      const orphanVectors = db
        .prepare(
          `SELECT e.object_id, e.model_id FROM object_embeddings e
           LEFT JOIN detected_objects o ON o.id = e.object_id AND o.status = 'active' AND o.media_id = e.media_id
           WHERE o.id IS NULL`,
        )
        .all();
      assert.equal(orphanVectors, [], 'every object embedding belongs to an existing active object');
      const missingVectors = db
        .prepare(
          `SELECT o.id, o.type FROM detected_objects o WHERE o.status = 'active' AND o.similarity_model IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM object_embeddings e WHERE e.object_id = o.id)`,
        )
        .all();
      assert.equal(missingVectors, [], 'every active object with a similarity model has its embedding');
      const vectorsPerObject = db
        .prepare(`SELECT object_id, count(*) AS n FROM object_embeddings GROUP BY object_id HAVING n > 1`)
        .all();
      assert.equal(vectorsPerObject, [], 'one embedding per object');

      // Files named by active rows are on disk (the start-up sweep took none of them).
      const keys = db
        .prepare(
          `SELECT blob_key FROM frames WHERE status = 'active'
           UNION SELECT blob_key FROM detected_objects WHERE status = 'active' AND blob_key IS NOT NULL
           UNION SELECT blob_key FROM media WHERE status = 'active' AND blob_key IS NOT NULL`,
        )
        .pluck()
        .all() as string[];
      const missing = keys.filter((k) => !existsSync(path.join(dataDir, 'files', k.slice(0, 2), k.slice(2, 4), k)));
      assert.equal(missing, [], 'every file an active row names is on disk');

      // Jobs: one per item, succeeded; extra attempts = the runs the kills interrupted.
      const jobs = db
        .prepare(
          `SELECT id, type, dedupe_key, status, attempts, last_error FROM jobs
           WHERE type IN ('ingest', 'ingest-embed', 'ingest-analyze') ORDER BY id`,
        )
        .all() as Array<{
        id: number;
        type: string;
        dedupe_key: string;
        status: string;
        attempts: number;
        last_error: string | null;
      }>;
      for (const item of items) {
        const mine = jobs.filter((j) => j.dedupe_key === item.mediaId);
        for (const phase of ['ingest', 'ingest-embed', 'ingest-analyze'])
          assert.ok(
            mine.some((j) => j.type === phase && j.status === 'succeeded'),
            `${item.name}: its ${phase} job succeeded (${JSON.stringify(mine)})`,
          );
        // A job replaced by a later one (a reprocess) may be cancelled; nothing is left queued, running or failed.
        for (const j of mine)
          assert.ok(['succeeded', 'cancelled'].includes(j.status), `${item.name}: job ${j.id} is ${j.status}`);
      }
      const extra = new Map(jobs.filter((j) => j.attempts > 1).map((j) => [j.id, j.attempts - 1]));
      const interrupted = new Map<number, number>();
      for (const r of [...runs1, ...runs2]) interrupted.set(r.jobId, (interrupted.get(r.jobId) ?? 0) + 1);
      assert.equal(
        Object.fromEntries(extra),
        Object.fromEntries(interrupted),
        'extra attempts (by job) are exactly the interrupted runs',
      );

      const objectTotal = db
        .prepare(`SELECT count(*) FROM detected_objects WHERE status = 'active'`)
        .pluck()
        .get() as number;
      const vectorTotal = db.prepare(`SELECT count(*) FROM object_embeddings`).pluck().get() as number;
      console.log(
        `final: ${items.length} items ready, ${frameTotal} active frames${video ? ` (video: ${expectedTimestamps!.length}, ts ${expectedTimestamps!.join(',')})` : ''}, ` +
          `${objectTotal} active objects, ${vectorTotal} embeddings, ${jobs.length} ingest jobs; ` +
          `${interrupted.size} job(s) interrupted by the kills, ${leaseLost} lease(s) lost; ` +
          `test took ${((Date.now() - testStarted) / 1000).toFixed(1)} s`,
      );
    } finally {
      db.close();
    }
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(modelsDir, { recursive: true, force: true });
  } catch (err) {
    if (srv) {
      console.log(`server log tail:\n${srv.logs.slice(-30).join('\n')}`);
      await srv.kill();
    }
    console.log(`DATA_DIR kept for inspection: ${dataDir}`);
    rmSync(modelsDir, { recursive: true, force: true });
    throw err;
  }
});

t.run();
