/**
 * Renditions section of `npm run bench`: what the thumbnails (the rendition stage of ingest,
 * src/features/ingest/renditions.ts) cost ingest, measured as ingest with them beside ingest without them,
 * on the same items in the same run.
 *
 * Models as in the ingest section: MODEL_PROFILE=test with the real YOLOX-Nano and UltraFace RFB-320 from
 * ../shared/models and the real PP-OCRv4; stand-in captioner, embedder and SFace. With the real captioner and
 * embedder (the default profile) inference takes longer still, so the share measured here is an upper bound.
 *
 * An app with INGEST_CONCURRENCY=0 stores the fixture photos and videos (uploads over HTTP), then
 * `ingestMedia()` (src/features/ingest/pipeline.ts) runs here on each item, one at a time, twice a round:
 * once after its frames' renditions were cleared ("with": the stage makes them) and once with them in place
 * ("without": the stage finds them and skips every frame; a video's re-extracted frames are the same files,
 * which keep their renditions: checked by counting the renditions written). The order of the two alternates
 * from round to round, so drift on a shared machine falls on both. The first item is ingested once before
 * (model loads). The stage alone (renderItem) is timed too.
 *
 * Full: 20 photos, both videos, 3 rounds. --quick: 5 photos, the 1.6 s clip, 1 round.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Services } from '../../src/features/kernel/services.js';
import { ingestMedia } from '../../src/features/ingest/pipeline.js';
import { renderItem } from '../../src/features/ingest/renditions.js';
import { createLogger } from '../../src/platform/logger.js';
import type { SqliteStorage } from '../../src/storage/sqlite/index.js';
import { fmtMs, now, stats, type BenchOptions, type BenchRow, type SectionResult } from './harness.js';
import { pickPhotos, realDetectorsModelsDir, REAL_DETECTOR_FILES, startApp, type Running } from './ingest.js';

const SHARED = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared');
const IMAGES = path.join(SHARED, 'fixtures/images');
const VIDEOS = path.join(SHARED, 'fixtures/videos');

const FULL = { photos: 20, videos: ['car-detection.mp4', 'asl_eat.mkv'], rounds: 3 };
const QUICK = { photos: 5, videos: ['asl_eat.mkv'], rounds: 1 };

interface Item {
  id: string;
  kind: 'photo' | 'video';
  file: string;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

export async function runRenditionsBench(opts: BenchOptions): Promise<SectionResult> {
  const t0 = now();
  const shape = opts.quick ? QUICK : FULL;
  const missing = [...REAL_DETECTOR_FILES, IMAGES, ...shape.videos.map((v) => path.join(VIDEOS, v))].filter(
    (p) => !existsSync(p),
  );
  const result = (setup: Record<string, unknown>, rows: BenchRow[], findings: string[]): SectionResult => ({
    section: 'renditions',
    quick: opts.quick,
    setup,
    rows,
    findings,
    durationMs: now() - t0,
  });
  if (missing.length) {
    opts.log(`SKIP renditions: ${missing.join(', ')} absent`);
    return result({ skipped: missing }, [], [`skipped: ${missing.join(', ')} absent`]);
  }
  const temp = mkdtempSync(path.join(os.tmpdir(), 'lumen-bench-renditions-'));
  const app = await startApp(path.join(temp, 'data'), realDetectorsModelsDir(temp), { INGEST_CONCURRENCY: '0' });
  try {
    const items = await uploadAll(app, shape);
    const s = app.app.services;
    opts.log(`warm-up: ingest of ${path.basename(items[0].file)} (model loads)`);
    await ingestOnce(s, items[0].id);
    const times = { with: new Map<string, number[]>(), without: new Map<string, number[]>() };
    const stage = new Map<string, number[]>();
    for (let round = 0; round < shape.rounds; round++) {
      opts.log(`round ${round + 1}/${shape.rounds}: ${items.length} items, with and without renditions`);
      for (const item of items) {
        const order = round % 2 === 0 ? (['with', 'without'] as const) : (['without', 'with'] as const);
        for (const variant of order) {
          if (variant === 'with') clearRenditions(s, item.id);
          const { ms, written } = await ingestOnce(s, item.id);
          const made = variant === 'with' ? written > 0 : written === 0;
          if (!made) throw new Error(`${item.file} ${variant}: ${written} renditions written`);
          push(times[variant], item.kind, ms);
        }
        clearRenditions(s, item.id);
        const started = now();
        await renderItem(s, item.id, new AbortController().signal);
        push(stage, item.kind, now() - started);
      }
    }
    return result(
      { photos: shape.photos, videos: shape.videos, rounds: shape.rounds, cpus: os.cpus().length },
      (['photo', 'video'] as const).map((kind) => row(kind, times, stage)),
      (['photo', 'video'] as const).map((kind) => finding(kind, times, stage)),
    );
  } finally {
    await app.close();
    if (!opts.keep) rmSync(temp, { recursive: true, force: true });
  }
}

function push(map: Map<string, number[]>, kind: string, ms: number) {
  const list = map.get(kind) ?? [];
  list.push(ms);
  map.set(kind, list);
}

function row(
  kind: 'photo' | 'video',
  times: { with: Map<string, number[]>; without: Map<string, number[]> },
  stage: Map<string, number[]>,
): BenchRow {
  const withMs = times.with.get(kind) ?? [];
  const withoutMs = times.without.get(kind) ?? [];
  return {
    id: `ingest-${kind}`,
    label: `ingestMedia of a ${kind}, with renditions`,
    ours: stats(withMs),
    baseline: { label: 'the same ingest, renditions already there (stage skips)', stats: stats(withoutMs) },
    note: `total ${fmtMs(sum(withMs))} vs ${fmtMs(sum(withoutMs))}: ratio ${(sum(withMs) / sum(withoutMs)).toFixed(3)}; stage alone p50 ${fmtMs(stats(stage.get(kind) ?? []).p50)}`,
  };
}

function finding(
  kind: string,
  times: { with: Map<string, number[]>; without: Map<string, number[]> },
  stage: Map<string, number[]>,
): string {
  const a = sum(times.with.get(kind) ?? []);
  const b = sum(times.without.get(kind) ?? []);
  const alone = sum(stage.get(kind) ?? []);
  return (
    `${kind}s: ingest with renditions ${fmtMs(a)}, without ${fmtMs(b)}: ratio ${(a / b).toFixed(3)} ` +
    `(throughput ×${(b / a).toFixed(3)}); the stage alone ${fmtMs(alone)} = ${((alone / b) * 100).toFixed(1)}% of ingest`
  );
}

/** As if the item's frames never had renditions (files stay; the stage stores the same keys again). */
function clearRenditions(s: Services, mediaId: string) {
  (s.storage as SqliteStorage).db
    .prepare(`UPDATE frames SET thumbnail_key = NULL, preview_key = NULL WHERE media_id = ?`)
    .run(mediaId);
}

/** ingestMedia of one item; how long, and how many frames got renditions written. */
async function ingestOnce(s: Services, mediaId: string): Promise<{ ms: number; written: number }> {
  let written = 0;
  const analysis = s.storage.analysis;
  const counting: Services = {
    ...s,
    storage: {
      ...s.storage,
      analysis: {
        ...analysis,
        setFrameRenditions: async (...args) => {
          written++;
          return analysis.setFrameRenditions(...args);
        },
      },
    },
  };
  const started = now();
  const outcome = await ingestMedia(counting, mediaId, {
    signal: new AbortController().signal,
    progress: async () => undefined,
    logger: createLogger('silent'),
  });
  const ms = now() - started;
  if (outcome !== 'done') throw new Error(`ingest of ${mediaId}: ${outcome}`);
  return { ms, written };
}

async function uploadAll(app: Running, shape: { photos: number; videos: string[] }): Promise<Item[]> {
  const me = await app.api('GET', '/api/me');
  const ds = (await app.api('POST', `/api/organization/${me.organizationId}/datasets`, { name: 'Renditions' })).dataset
    .id as string;
  const files: Array<Omit<Item, 'id'>> = [
    ...pickPhotos(shape.photos).map((f) => ({ kind: 'photo' as const, file: path.join(IMAGES, f) })),
    ...shape.videos.map((v) => ({ kind: 'video' as const, file: path.join(VIDEOS, v) })),
  ];
  const items: Item[] = [];
  for (const f of files) items.push({ ...f, id: (await app.upload(ds, f.file)).mediaId });
  return items;
}
