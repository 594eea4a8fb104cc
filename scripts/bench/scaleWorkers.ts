/**
 * The scale bench's ingest rows (issue 25): one API process (ROLE=api) and one, then two, worker processes
 * (ROLE=worker) of the real server on one PostgreSQL (Debian's server, started here on loopback: no pgvector,
 * so VECTOR_SEARCH=off) and one files directory (the processes share DATA_DIR, whose files/ is the local
 * blob store). The same fixture photos are uploaded through the API one after the other and the clock stops
 * when the last is `ready` (all three ingest phases); items/s with two workers beside one.
 *
 * Models: the ingest bench's (MODEL_PROFILE=test, the real YOLOX-Nano and UltraFace, PP-OCRv4, the test
 * profile's stand-in captioner and embedders), each worker process with the default settings (one ingest job
 * at a time, one model worker thread). A few photos are ingested first so both workers have their models
 * loaded before the clock starts.
 *
 * Skips, with a message, where Debian's PostgreSQL binaries or the fixture photos are missing.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openPgDb, type PgDb } from '../../src/platform/pgDb.js';
import { freshSchema } from '../../test/helpers/pglite.js';
import { postgresServer, postgresServerMissing } from '../../test/helpers/postgresServer.js';
import { SERVER_KEY, startServerProcess, type ServerProcess } from '../../test/helpers/serverProcess.js';
import { now, stats, type BenchOptions, type BenchRow, type Stats } from './harness.js';
import { pickPhotos, realDetectorsModelsDir, REAL_DETECTOR_FILES } from './ingest.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const IMAGES = path.resolve(ROOT, '..', 'shared', 'fixtures', 'images');
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface Run {
  workers: number;
  itemsPerS: number;
  wallMs: number;
  latency: Stats;
  /** Ingest jobs each worker process ran (the process id in the lease owner), most first. */
  share: number[];
  failed: number;
}

async function call(p: ServerProcess, method: string, url: string, body?: unknown): Promise<any> {
  const res = await fetch(p.baseUrl + url, {
    method,
    headers: { 'x-api-key': SERVER_KEY, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return JSON.parse(text);
}

async function upload(p: ServerProcess, datasetId: string, file: string, name: string): Promise<string> {
  const form = new FormData();
  form.set('datasetId', datasetId);
  form.set('file', new Blob([await readFile(file)]), name);
  const res = await fetch(`${p.baseUrl}/api/upload/multipart`, {
    method: 'POST',
    headers: { 'x-api-key': SERVER_KEY },
    body: form,
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`upload ${name}: ${res.status} ${text}`);
  return (JSON.parse(text) as { media: { id: string } }).media.id;
}

/** Polls the database until every item settled (ready or failed); each item's time of settling. */
async function settle(db: PgDb, ids: string[], timeoutMs: number): Promise<Map<string, { at: number; ok: boolean }>> {
  const done = new Map<string, { at: number; ok: boolean }>();
  const until = now() + timeoutMs;
  while (done.size < ids.length) {
    const rows = await db.many<{ id: string; processing_status: string }>(
      `SELECT id, processing_status FROM media WHERE id = ANY($1) AND processing_status IN ('ready', 'failed')`,
      [ids.filter((id) => !done.has(id))],
    );
    for (const r of rows) done.set(r.id, { at: now(), ok: r.processing_status === 'ready' });
    if (done.size === ids.length) break;
    if (now() > until) throw new Error(`${ids.length - done.size} of ${ids.length} items not ready in time`);
    await sleep(50);
  }
  return done;
}

/** One API process and `workers` worker processes on a fresh schema and DATA_DIR; the photos ingested. */
async function runWith(
  workers: number,
  url: string,
  modelsDir: string | null,
  photos: string[],
  warmup: number,
  log: (l: string) => void,
): Promise<Run> {
  const schema = freshSchema('scaleingest');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-scale-ingest-'));
  const env = (role: string) => ({
    ...{ ROLE: role, DATABASE_URL: url, DATABASE_SCHEMA: schema, VECTOR_SEARCH: 'off' },
    ...{ RATE_LIMIT_PER_MINUTE: '100000000', ...(modelsDir ? { MODELS_DIR: modelsDir } : {}) },
  });
  const procs: ServerProcess[] = [];
  const db = openPgDb(url, { schema });
  try {
    // The API process first: it migrates and makes the first organization and the bootstrap key.
    const api = await startServerProcess({ dataDir, env: env('api'), startTimeoutMs: 180_000 });
    procs.push(api);
    const started = await Promise.all(
      Array.from({ length: workers }, () =>
        startServerProcess({ dataDir, env: env('worker'), startTimeoutMs: 180_000 }),
      ),
    );
    procs.push(...started);
    const me = await call(api, 'GET', '/api/me');
    const created = await call(api, 'POST', `/api/organization/${me.organizationId}/datasets`, { name: 'Ingest' });
    const datasetId = created.dataset.id as string;
    // Warm-up, all at once so that every worker claims some: models loaded, code paths compiled.
    const warm = await Promise.all(
      photos.slice(0, warmup).map((f, i) => upload(api, datasetId, f, `warm-${i}${path.extname(f)}`)),
    );
    await settle(db, warm, 600_000);
    log(`scale: ${workers} worker(s) warm; ingesting ${photos.length - warmup} photos`);
    const measured = photos.slice(warmup);
    const t0 = now();
    const sent = new Map<string, number>();
    for (const [i, f] of measured.entries()) {
      const at = now();
      sent.set(await upload(api, datasetId, f, `photo-${i}${path.extname(f)}`), at);
    }
    const done = await settle(db, [...sent.keys()], 1_200_000);
    const last = Math.max(...[...done.values()].map((d) => d.at));
    const share = await db.many<{ n: number }>(
      `SELECT count(*)::int AS n FROM jobs WHERE status = 'succeeded' AND type LIKE 'ingest%'
         AND payload->>'mediaId' = ANY($1) GROUP BY split_part(lease_owner, ':', 2) ORDER BY 1 DESC`,
      [[...sent.keys()]],
    );
    return {
      workers,
      wallMs: last - t0,
      itemsPerS: measured.length / ((last - t0) / 1000),
      latency: stats([...sent].map(([id, at]) => done.get(id)!.at - at)),
      share: share.map((r) => r.n),
      failed: [...done.values()].filter((d) => !d.ok).length,
    };
  } finally {
    await Promise.all(procs.map((p) => p.stop(20_000).catch(() => p.kill())));
    await db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function workerRows(
  opts: BenchOptions,
): Promise<{ rows: BenchRow[]; findings: string[]; setup: Record<string, unknown> }> {
  const missing =
    postgresServerMissing() ?? (existsSync(IMAGES) && pickPhotos(1).length ? null : `no fixture photos at ${IMAGES}`);
  if (missing) {
    opts.log(`SKIP scale ingest with worker processes: ${missing}`);
    return {
      rows: [],
      findings: [`ingest with 1 and 2 worker processes skipped: ${missing}`],
      setup: { skipped: missing },
    };
  }
  const count = Number(process.env.BENCH_SCALE_PHOTOS ?? (opts.quick ? 4 : 24));
  const warmup = 4;
  const photos = pickPhotos(count + warmup).map((f) => path.join(IMAGES, f));
  const temp = mkdtempSync(path.join(os.tmpdir(), 'bench-scale-models-'));
  const realModels = REAL_DETECTOR_FILES.every((f) => existsSync(f));
  const modelsDir = realModels ? realDetectorsModelsDir(temp) : null;
  const server = await postgresServer();
  const runs: Run[] = [];
  try {
    for (const workers of [1, 2]) runs.push(await runWith(workers, server.url, modelsDir, photos, warmup, opts.log));
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
  const [one, two] = runs;
  const row: BenchRow = {
    id: 'ingest-workers',
    label: `ingest ${count} photos, upload to ready, 2 worker processes (per item)`,
    ours: two.latency,
    baseline: { label: '1 worker', stats: one.latency },
    rate: { unit: 'items/s', ours: two.itemsPerS, baseline: one.itemsPerS },
    check: { ok: one.failed + two.failed === 0, text: `${one.failed + two.failed} items failed` },
    note: `2 workers / 1 worker: ${(two.itemsPerS / one.itemsPerS).toFixed(2)}× items/s; jobs per worker ${two.share.join(' + ')}`,
  };
  const cores = os.availableParallelism();
  return {
    rows: [row],
    findings: [
      `ingest on Debian's PostgreSQL, ${count} photos: 1 worker ${one.itemsPerS.toFixed(2)} items/s ` +
        `(${(one.wallMs / 1000).toFixed(1)} s), 2 workers ${two.itemsPerS.toFixed(2)} items/s ` +
        `(${(two.wallMs / 1000).toFixed(1)} s): ${(two.itemsPerS / one.itemsPerS).toFixed(2)}× on ${cores} cores ` +
        `shared by the API process, both workers and the database`,
    ],
    setup: { photos: count, warmup, cores, models: realModels ? 'real detectors + test stand-ins' : 'test stand-ins' },
  };
}
