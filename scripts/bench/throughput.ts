/**
 * Throughput section of `npm run bench` (issue 18): photos per hour and video seconds per hour of the
 * default pipeline at the real default models' cost, on this machine, and what each change buys.
 *
 * Models (scripts/bench/standins/benchModels.ts): SigLIP-B/16 and Florence-2-base stand-ins that cost
 * what the real ones cost (random-weight work added to the test stand-ins' graphs), the real YOLOX-Nano,
 * UltraFace and PP-OCRv4; loaded by the production code path (MODEL_PROFILE=default, a user's
 * catalog.local.json naming them in roles.default).
 *
 * Variants run one after the other, each in a fresh app and data folder over the same photos, each
 * adding one change to the one before; ratios are against the first ("today": the settings as shipped
 * before issue 18 on a 2-core machine). Per variant: photos per hour from the first upload to the last
 * `ready` (warm models: one photo is ingested first), browse p99 (GET the collection's media) while idle
 * and while the photos are analysed, and for some variants the fixture videos' seconds per hour. For the
 * first variant also the work per stage (the model pool's busy time per model, which includes the
 * worker's own decode and resize) and the share of wall time no model was running.
 *
 * Full: 12 photos spread over ../shared/fixtures/images, both fixture videos. --quick: 3 photos, the
 * 1.6 s clip, three variants. BENCH_THROUGHPUT_VARIANTS=today,cores,… runs only the variants named.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PoolWork } from '../../src/models/worker/pool.js';
import type { Services } from '../../src/features/kernel/services.js';
import { fmtMs, now, stats, type BenchOptions, type BenchRow, type SectionResult, type Stats } from './harness.js';
import { pickPhotos, startApp, type Running } from './ingest.js';
import {
  BENCH_CAPTION,
  BENCH_CAPTION_Q8,
  BENCH_EMBED,
  benchModelsDir,
  withCatalogChoice,
} from './standins/benchModels.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SHARED = path.resolve(ROOT, '..', 'shared');
const IMAGES = path.join(SHARED, 'fixtures/images');
const VIDEOS = path.join(SHARED, 'fixtures/videos');
const REAL = {
  yolox: path.join(SHARED, 'models/yolox-nano/yolox_nano.onnx'),
  ultraface: path.join(SHARED, 'models/ultraface/version-RFB-320.onnx'),
};
const ITEM_TIMEOUT_MS = 20 * 60_000;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface Variant {
  id: string;
  label: string;
  env: Record<string, string>;
  /** Also ingest the videos. */
  video: boolean;
  /** Near-duplicate caption skip for video frames (the catalog's threshold); off unless set. */
  dedup?: boolean;
  /** The catalog's q8 captioner in the caption role (a documented speed/quality choice, not the default). */
  q8Caption?: boolean;
}

const TODAY = {
  INGEST_CONCURRENCY: '1',
  MODEL_WORKERS: '1',
  MODEL_THREADS: String(Math.max(1, os.availableParallelism() - 1)),
  MODEL_BATCH_WINDOW_MS: '0',
  MODEL_EMBED_CACHE: '0',
  INGEST_TEXT_VECTORS: 'eager',
};
const CACHE = { ...TODAY, MODEL_EMBED_CACHE: '256' };
const BATCH = { ...CACHE, INGEST_CONCURRENCY: '3', MODEL_BATCH_WINDOW_MS: '5' };
const CORES = { ...BATCH, MODEL_THREADS: String(os.availableParallelism()) };
const OVERLAP = { ...BATCH, MODEL_WORKERS: String(os.availableParallelism()), MODEL_THREADS: '1' };

const VARIANTS: Variant[] = [
  { id: 'today', label: 'today (1 job, 1 worker, cores−1 threads)', env: TODAY, video: true },
  { id: 'cache', label: '+ frame vector reused by moderation', env: CACHE, video: false },
  { id: 'batch', label: '+ 3 jobs, batch window 5 ms (batches across items)', env: BATCH, video: false },
  { id: 'cores', label: '+ all cores (threads = cores, nice 10)', env: CORES, video: true },
  { id: 'overlap', label: '+ one worker per core (decode overlaps inference)', env: OVERLAP, video: true },
  { id: 'dedup', label: '+ near-duplicate video frames keep the last caption', env: OVERLAP, video: true, dedup: true },
  {
    id: 'text',
    label: '+ text crops embedded on first use, not at analysis',
    env: { ...OVERLAP, INGEST_TEXT_VECTORS: 'on-demand' },
    video: true,
    dedup: true,
  },
  // What an install gets with no setting: the defaults (1 job + the searchable lane, threads = cores, the cache).
  { id: 'shipped', label: 'the defaults (no MODEL_*/INGEST_* set)', env: {}, video: true, dedup: true },
  // The defaults with the captioner at q8 (catalog: florence-2-base-q8), chosen in catalog.local.json's roles.
  {
    id: 'q8',
    label: 'the defaults + the q8 captioner (a choice in catalog.local.json)',
    env: {},
    video: true,
    dedup: true,
    q8Caption: true,
  },
];
const QUICK_VARIANTS = ['today', 'cores', 'text'];
/** The settings the variants turn. */
const KNOBS = [
  'INGEST_CONCURRENCY',
  'MODEL_WORKERS',
  'MODEL_THREADS',
  'MODEL_BATCH_WINDOW_MS',
  'MODEL_EMBED_CACHE',
  'INGEST_TEXT_VECTORS',
];

interface Outcome {
  variant: Variant;
  photos: number;
  wallMs: number;
  perItemMs: number[];
  work: PoolWork;
  browseIdle: Stats;
  browseLoad: Stats;
  video: { seconds: number; wallMs: number; frames: number; captions: number } | null;
}

/** Waits until every item is ready or failed; returns when each settled. */
async function settle(s: Services, ids: string[]): Promise<Map<string, number>> {
  const done = new Map<string, number>();
  const until = now() + ITEM_TIMEOUT_MS;
  while (done.size < ids.length) {
    for (const id of ids) {
      if (done.has(id)) continue;
      const m = await s.storage.media.get(id);
      if (m?.processingStatus === 'failed') throw new Error(`item ${m.name} failed: ${m.processingError}`);
      if (m?.processingStatus === 'ready') done.set(id, now());
    }
    if (now() > until) throw new Error(`${ids.length - done.size} items not ready after ${fmtMs(ITEM_TIMEOUT_MS)}`);
    await sleep(25);
  }
  return done;
}

/** GET the collection's first page, one request at a time, until `stop()`; latencies in ms. */
async function browseLoop(run: Running, ds: string, stop: () => boolean, minCount = 0): Promise<number[]> {
  const out: number[] = [];
  while (!stop() || out.length < minCount) {
    const t = now();
    await run.api('GET', `/api/dataset/${ds}/media?limit=50`);
    out.push(now() - t);
    await sleep(50);
  }
  return out;
}

function workDelta(a: PoolWork, b: PoolWork): PoolWork {
  const byKey: PoolWork['byKey'] = {};
  for (const [k, v] of Object.entries(b.byKey)) {
    const o = a.byKey[k] ?? { batches: 0, inputs: 0, ms: 0 };
    byKey[k] = { batches: v.batches - o.batches, inputs: v.inputs - o.inputs, ms: v.ms - o.ms };
  }
  return { busyMs: b.busyMs - a.busyMs, byKey };
}

async function runVariant(v: Variant, photos: string[], videos: string[], modelsDir: string, log: (l: string) => void) {
  const temp = mkdtempSync(path.join(os.tmpdir(), `lumen-bench-throughput-${v.id}-`));
  // The model knobs are read from the environment by the pool and by the worker threads it spawns.
  // A variant sets its knobs over none: what it leaves unset is the default (the 'shipped' variant sets none).
  for (const k of KNOBS) delete process.env[k];
  for (const [k, value] of Object.entries(v.env)) process.env[k] = value;
  const models = withCatalogChoice(modelsDir, { dedup: v.dedup, q8Caption: v.q8Caption });
  const run = await startApp(path.join(temp, 'data'), models, {
    MODEL_PROFILE: 'default',
    // The settings loadConfig reads (the MODEL_* knobs above are read from the environment).
    ...(v.env.INGEST_CONCURRENCY ? { INGEST_CONCURRENCY: v.env.INGEST_CONCURRENCY } : {}),
    ...(v.env.INGEST_TEXT_VECTORS ? { INGEST_TEXT_VECTORS: v.env.INGEST_TEXT_VECTORS } : {}),
  });
  try {
    const s = run.app.services;
    const me = await run.api('GET', '/api/me');
    const ds: string = (await run.api('POST', `/api/organization/${me.organizationId}/datasets`, { name: v.id }))
      .dataset.id;
    const warm = await run.upload(ds, path.join(IMAGES, 'ulf_5.jpg'));
    await settle(s, [warm.mediaId]);
    const browseIdle = await browseLoop(run, ds, () => true, 40);

    const work0 = s.models.workStats!();
    const t0 = now();
    let done = false;
    const loadLatencies = browseLoop(run, ds, () => done, 5);
    const starts = new Map<string, number>();
    for (const file of photos) {
      const t = now();
      const { mediaId } = await run.upload(ds, path.join(IMAGES, file));
      starts.set(mediaId, t);
    }
    const settled = await settle(s, [...starts.keys()]);
    done = true;
    const wallMs = Math.max(...settled.values()) - t0;
    const work = workDelta(work0, s.models.workStats!());
    const perItemMs = [...settled].map(([id, at]) => at - starts.get(id)!);
    const browseLoad = await loadLatencies;
    log(`${v.id}: ${photos.length} photos in ${fmtMs(wallMs)} (${((photos.length / wallMs) * 3.6e6).toFixed(0)}/h)`);

    let video: Outcome['video'] = null;
    if (v.video && videos.length) {
      const w0 = s.models.workStats!();
      const tv = now();
      const ids: string[] = [];
      for (const f of videos) ids.push((await run.upload(ds, path.join(VIDEOS, f))).mediaId);
      const at = await settle(s, ids);
      const w = workDelta(w0, s.models.workStats!());
      let seconds = 0;
      let frames = 0;
      for (const id of ids) {
        seconds += (await s.storage.media.get(id))!.duration ?? 0;
        frames += (await s.storage.analysis.framesOf(id)).length;
      }
      const captioner = v.q8Caption ? BENCH_CAPTION_Q8 : BENCH_CAPTION;
      const captions = w.byKey[`caption|${captioner}`]?.inputs ?? 0;
      video = { seconds, wallMs: Math.max(...at.values()) - tv, frames, captions };
      log(
        `${v.id}: ${seconds.toFixed(1)} s of video (${frames} frames, ${captions} captioned) in ${fmtMs(video.wallMs)}`,
      );
    }
    return {
      variant: v,
      photos: photos.length,
      wallMs,
      perItemMs,
      work,
      browseIdle: stats(browseIdle),
      browseLoad: stats(browseLoad),
      video,
    } satisfies Outcome;
  } finally {
    await run.close();
    rmSync(temp, { recursive: true, force: true });
  }
}

/** The stage each pool key belongs to. */
function stageOf(key: string): string | null {
  const [kind, model] = key.split('|');
  if (kind === 'embedImages') return 'embedding (frames, crops)';
  if (kind === 'embedTexts') return 'moderation (label texts)';
  if (kind === 'caption') return 'caption';
  if (kind === 'embedFaces' || model.startsWith('ultraface')) return 'faces (detect + embed)';
  if (model.startsWith('yolox')) return 'detection';
  if (model.startsWith('pp-ocr')) return 'OCR (det + rec)';
  return null;
}

const perHour = (n: number, ms: number) => (ms > 0 ? (n / ms) * 3.6e6 : 0);

function rowsOf(outcomes: Outcome[]): { rows: BenchRow[]; findings: string[] } {
  const base = outcomes[0];
  const rows: BenchRow[] = [];
  const findings: string[] = [];
  let prev = base;
  for (const o of outcomes) {
    const rate = perHour(o.photos, o.wallMs);
    rows.push({
      id: `photos.${o.variant.id}`,
      label: `photos/h ${o.variant.label} (item upload→ready)`,
      ours: stats(o.perItemMs),
      baseline: { label: base.variant.label, stats: stats(base.perItemMs) },
      rate: { unit: 'photos/h', ours: rate, baseline: perHour(base.photos, base.wallMs) },
      note: `×${(rate / perHour(prev.photos, prev.wallMs)).toFixed(2)} vs the previous variant, ×${(rate / perHour(base.photos, base.wallMs)).toFixed(2)} vs today`,
    });
    const ratio = o.browseLoad.p99 / Math.max(1, o.browseIdle.p99);
    rows.push({
      id: `browse.${o.variant.id}`,
      label: `browse p99 under ingest, ${o.variant.id}`,
      ours: o.browseLoad,
      baseline: { label: 'idle, same app', stats: o.browseIdle },
      target: { text: 'p99 under load ≤ 2× idle', pass: ratio <= 2 },
    });
    if (o.video)
      rows.push({
        id: `video.${o.variant.id}`,
        label: `video s/h ${o.variant.label} (${o.video.frames} frames, ${o.video.captions} captioned)`,
        ours: stats([o.video.wallMs]),
        baseline: base.video ? { label: base.variant.label, stats: stats([base.video.wallMs]) } : null,
        rate: {
          unit: 'video s/h',
          ours: perHour(o.video.seconds, o.video.wallMs),
          baseline: base.video ? perHour(base.video.seconds, base.video.wallMs) : null,
        },
      });
    prev = o;
  }
  const stages = new Map<string, number>();
  for (const [key, w] of Object.entries(base.work.byKey)) {
    const stage = stageOf(key);
    if (stage) stages.set(stage, (stages.get(stage) ?? 0) + w.ms);
  }
  for (const [stage, ms] of [...stages].sort((a, b) => b[1] - a[1]))
    findings.push(
      `today, ${stage}: ${fmtMs(ms / base.photos)} a photo → ${perHour(base.photos, ms).toFixed(0)} photos/h if it were the only stage (${((ms / base.wallMs) * 100).toFixed(0)}% of wall time)`,
    );
  findings.push(
    `today: no model running for ${(((base.wallMs - base.work.busyMs) / base.wallMs) * 100).toFixed(1)}% of the wall time (upload, frame and thumbnails, crops, database; the worker's own decode/resize counts as model time)`,
  );
  const last = outcomes.at(-1)!;
  findings.push(
    `photos/h: today ${perHour(base.photos, base.wallMs).toFixed(0)}, last ${perHour(last.photos, last.wallMs).toFixed(0)}: ×${(perHour(last.photos, last.wallMs) / perHour(base.photos, base.wallMs)).toFixed(2)} (target ≥ 2×)`,
  );
  return { rows, findings };
}

export async function runThroughputBench(opts: BenchOptions): Promise<SectionResult> {
  const t0 = now();
  const { log } = opts;
  const photos = pickPhotos(opts.quick ? 3 : 12);
  const videos = opts.quick ? ['asl_eat.mkv'] : ['car-detection.mp4', 'asl_eat.mkv'];
  // BENCH_THROUGHPUT_VARIANTS=today,text,shipped runs only those (the first named is the baseline).
  const only = process.env.BENCH_THROUGHPUT_VARIANTS?.split(',');
  const variants = only
    ? VARIANTS.filter((v) => only.includes(v.id))
    : opts.quick
      ? VARIANTS.filter((v) => QUICK_VARIANTS.includes(v.id))
      : VARIANTS;
  log('building (or reusing) the cost-equivalent models');
  const built = benchModelsDir(REAL);
  log(`models in ${built.dir}${built.buildMs ? ` (built in ${fmtMs(built.buildMs)})` : ' (reused)'}`);
  const saved = Object.fromEntries(Object.keys(TODAY).map((k) => [k, process.env[k]]));
  const outcomes: Outcome[] = [];
  try {
    for (const v of variants) outcomes.push(await runVariant(v, photos, videos, built.dir, log));
  } finally {
    for (const [k, value] of Object.entries(saved))
      if (value === undefined) delete process.env[k];
      else process.env[k] = value;
  }
  const { rows, findings } = rowsOf(outcomes);
  return {
    section: 'throughput',
    quick: opts.quick,
    setup: {
      photos,
      videos,
      models: {
        embed: BENCH_EMBED,
        caption: `${BENCH_CAPTION} (q8 variant: ${BENCH_CAPTION_Q8})`,
        detect: 'yolox-nano',
        faces: 'ultraface-rfb-320 + sface stand-in',
        ocr: 'pp-ocrv4',
      },
      variants: outcomes.map((o) => ({ id: o.variant.id, env: o.variant.env, work: o.work })),
    },
    rows,
    findings,
    durationMs: now() - t0,
  };
}
