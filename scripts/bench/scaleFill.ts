/**
 * The scale bench's library (scripts/bench/scale.ts), made on SQLite through the stores the product writes
 * with — an upload's insert (rows, tags, text index, event), the embed phase's replaceModelObjects (the
 * whole-frame object and its vector, through the vector index writer) — but many items per transaction: the
 * fill opens one transaction per batch, and each store call's own transaction nests inside it as a
 * savepoint (better-sqlite3). One item a transaction spent most of its time in the commits' fsyncs
 * (synchronous=FULL, two transactions an item): 12 ms an item at 100,000 items, 20 minutes; batched, about
 * 3 ms an item on this machine.
 *
 * From 20,000 items the library is kept under `<outDir>/scale-cache/<key>/` (key: the size, the dimensions and a hash of the
 * SQLite stores' and indexes' code, their migrations and this file), and each run works on a copy of it (the
 * folder move changes it): a rerun with the same code skips the fill. BENCH_SCALE_CACHE=off always fills.
 */
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { newMediaId } from '../../src/platform/ids.js';
import { seededRandom } from '../../src/platform/random.js';
import { openSqliteStorage, type SqliteStorage } from '../../src/storage/sqlite/index.js';
import type { NewMedia } from '../../src/storage/types.js';
import { benchCollection } from './benchCollection.js';
import { now } from './harness.js';

/** The vectors' dimensions (BENCH_SCALE_DIMS). */
export const DIMS = Number(process.env.BENCH_SCALE_DIMS ?? 256);
export const MODEL = 'bench-embedder';
/** Items a transaction. */
const BATCH = 1000;

export interface ScaleLibrary {
  size: number;
  collectionId: string;
  organizationId: string;
  userId: string;
  root: string;
  big: string;
  moving: string;
  target: string;
}

/** Items a cluster of the vectors: the search-api bench's set has 100 too (docs/measurements/vector-index.md). */
const CLUSTER = 100;

/** How many clusters the vectors of `size` items form (each a random direction, seeded). */
export const clustersOf = (size: number): number => Math.max(1, Math.ceil(size / CLUSTER));

const centres = new Map<number, Float32Array>();
const normalise = (v: Float32Array) => {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};

/**
 * A unit vector of cluster `centre`: the cluster's direction plus noise that leaves it at cosine ~0.9 from
 * it, so the ten nearest of a query differ from the rest of its cluster by noise.
 */
export function unitVector(rand: () => number, centre: number): Float32Array {
  let c = centres.get(centre);
  if (!c) {
    const r = seededRandom(1_000 + centre);
    centres.set(centre, (c = normalise(new Float32Array(DIMS).map(() => r() + r() + r() - 1.5))));
  }
  const amplitude = 1.6 / Math.sqrt(DIMS);
  return normalise(c.map((x) => x + (rand() - 0.5) * amplitude));
}

/** The library on SQLite through the stores: folders, tags on most items, one whole-frame vector each. */
export async function fillScaleLibrary(
  s: SqliteStorage,
  size: number,
  log: (l: string) => void,
  batch = BATCH,
): Promise<ScaleLibrary> {
  const rand = seededRandom(7);
  const { userId, organizationId, collectionId, root } = await benchCollection(s, 'Bench');
  const base = (parentPath: string, type: NewMedia['type'], name: string, metadata = {}): NewMedia => ({
    ...{ id: newMediaId(), collectionId, organizationId, parentPath, type, name, metadata },
    ...{ blobKey: type === 'folder' ? null : `${'c'.repeat(64)}.jpg`, mimeType: null, width: 4, height: 3 },
    ...{ duration: null, sizeBytes: 1, exif: {}, processingStatus: 'ready' as const, createdById: userId },
  });
  const folder = async (parent: string, name: string) =>
    (await s.media.insertFolder(base(parent, 'folder', name), false)).folder.path;
  const big = await folder(root, 'Big folder');
  const moving = await folder(root, 'Moving folder');
  const target = await folder(root, 'Target');
  const colours = ['red', 'green', 'blue', 'amber', 'violet'];
  const clusters = clustersOf(size);
  const started = now();
  for (let from = 0; from < size; from += batch) {
    s.db.exec('BEGIN IMMEDIATE');
    try {
      for (let i = from; i < Math.min(size, from + batch); i++) {
        const parent = i % 10 === 0 ? moving : i % 3 === 0 ? root : big;
        const tags = rand() < 0.8 ? { colour: [colours[i % colours.length]], subject: [`s${i % 40}`] } : {};
        const item = await s.media.insert(base(parent, 'image', `photo ${i} ${colours[i % 5]}.jpg`, { tags }), [
          { id: newMediaId(), timestamp: '0', blobKey: `${'d'.repeat(64)}.webp`, width: 4, height: 3 },
        ]);
        const [frame] = await s.analysis.framesOf(item.id);
        const vector = unitVector(rand, i % clusters);
        await s.analysis.replaceModelObjects(frame.id, 'frame', [
          {
            ...{ id: newMediaId(), type: 'frame', label: 'frame', blobKey: null, confidence: null, model: MODEL },
            ...{ polygon: [], similarityModel: 'objects' as const, embedding: { modelId: MODEL, vector } },
          },
        ]);
      }
      s.db.exec('COMMIT');
    } catch (err) {
      if (s.db.inTransaction) s.db.exec('ROLLBACK');
      throw err;
    }
    const done = Math.min(size, from + batch);
    if (done % 10_000 === 0 || done === size) {
      const sec = (now() - started) / 1000;
      log(
        `scale: ${done}/${size} items on SQLite, ${sec.toFixed(0)} s (${((sec * 1e6) / done).toFixed(0)} µs an item)`,
      );
    }
  }
  s.db.exec('ANALYZE');
  return { size, collectionId, organizationId, userId, root, big, moving, target };
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CACHE_FROM = 20_000;

/** Every file under the code that decides what the fill writes, hashed with the size. */
function cacheKey(size: number): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(ts|sql)$/.test(e.name)) hash.update(`${path.relative(ROOT, p)}\n`).update(readFileSync(p));
    }
  };
  for (const dir of ['src/storage/sqlite', 'src/index']) walk(path.join(ROOT, dir));
  for (const file of ['src/storage/storage.ts', 'src/storage/types.ts', 'src/storage/indexWriters.ts'])
    if (existsSync(path.join(ROOT, file))) hash.update(readFileSync(path.join(ROOT, file)));
  hash.update(readFileSync(fileURLToPath(import.meta.url)));
  return `${size}x${DIMS}-${hash.digest('hex').slice(0, 16)}`;
}

/**
 * The library in `dir/library.db`, opened: filled here, or copied from the cache (see above). `fillMs` is the
 * fill's time, null when it came from the cache.
 */
export async function openScaleLibrary(
  dir: string,
  size: number,
  cacheRoot: string,
  log: (l: string) => void,
): Promise<{ sqlite: SqliteStorage; lib: ScaleLibrary; fillMs: number | null }> {
  const file = path.join(dir, 'library.db');
  const useCache = size >= CACHE_FROM && process.env.BENCH_SCALE_CACHE !== 'off';
  if (!useCache) {
    const sqlite = openSqliteStorage(file);
    const t0 = now();
    const lib = await fillScaleLibrary(sqlite, size, log);
    return { sqlite, lib, fillMs: now() - t0 };
  }
  const cached = path.join(cacheRoot, 'scale-cache', cacheKey(size));
  let fillMs: number | null = null;
  if (!existsSync(path.join(cached, 'library.json'))) {
    log(`scale: no cached library at ${cached}: filling`);
    const building = `${cached}.building-${process.pid}`;
    rmSync(building, { recursive: true, force: true });
    mkdirSync(building, { recursive: true });
    const sqlite = openSqliteStorage(path.join(building, 'library.db'));
    const t0 = now();
    const lib = await fillScaleLibrary(sqlite, size, log);
    fillMs = now() - t0;
    await sqlite.close();
    writeFileSync(path.join(building, 'library.json'), JSON.stringify(lib));
    // One library a size: an older code version's goes.
    for (const old of readdirSync(path.dirname(cached)))
      if (old.startsWith(`${size}x${DIMS}-`) && !old.includes('.building-'))
        rmSync(path.join(path.dirname(cached), old), { recursive: true, force: true });
    renameSync(building, cached);
  } else log(`scale: the library from ${cached}`);
  copyFileSync(path.join(cached, 'library.db'), file);
  const lib = JSON.parse(readFileSync(path.join(cached, 'library.json'), 'utf8')) as ScaleLibrary;
  return { sqlite: openSqliteStorage(file), lib, fillMs };
}
