/**
 * Places section of `npm run bench` (issue #26): the offline reverse geocoder and the map listing.
 *
 * - building the nearest-place index in a worker thread (wall time, the event loop's longest stall) beside
 *   building it on the event loop itself (the baseline: what the worker spares the server);
 * - lookups per second over random positions in Europe (dense) and over the whole globe (mostly sea), beside
 *   a linear scan of every place (the baseline, on a sample);
 * - the places sweep storing the places of N geotagged items (SQLite), beside the lookups alone;
 * - the map listing (GET /api/dataset/:id/map's use case: every geotagged item's id and position, serialised)
 *   over N items, beside one browse page of 1,000 items.
 *
 * Full: N = 50,000 (BENCH_PLACES_SIZE). --quick: N = 2,000.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { distanceKm, geocoderOf, MAX_DISTANCE_KM } from '../../src/files/geocode/geocoder.js';
import { loadPackedIndex } from '../../src/files/geocode/data.js';
import { loadGeocoder } from '../../src/files/geocode/load.js';
import { settlePlaces } from '../../src/features/ingest/places.js';
import { mapPoints } from '../../src/features/places/listings.js';
import type { Principal } from '../../src/features/kernel/services.js';
import { newMediaId } from '../../src/platform/ids.js';
import { openSqliteStorage } from '../../src/storage/sqlite/index.js';
import { benchCollection } from './benchCollection.js';
import { fmtMs, now, stats, type BenchOptions, type BenchRow, type SectionResult } from './harness.js';
import { xorshift } from './search.js';
import { NO_FILTERS } from '../../src/storage/browseQuery.js';

/** Runs `fn` while timing the event loop's longest stall (a 1 ms timer's lateness). */
async function stalls<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number; maxStallMs: number }> {
  let last = performance.now();
  let max = 0;
  const timer = setInterval(() => {
    const t = performance.now();
    max = Math.max(max, t - last);
    last = t;
  }, 1);
  const t0 = now();
  const value = await fn();
  const ms = now() - t0;
  clearInterval(timer);
  return { value, ms, maxStallMs: Math.max(max, performance.now() - last) };
}

const single = (ms: number) => stats([ms]);

async function geocoderRows(opts: BenchOptions, rows: BenchRow[]) {
  const heap0 = process.memoryUsage().heapUsed;
  const worker = await stalls(() => loadGeocoder());
  const heap = process.memoryUsage().heapUsed - heap0;
  const inline = await stalls(async () => geocoderOf(loadPackedIndex()));
  rows.push({
    id: 'build',
    label: 'build the place index in a worker thread (longest event-loop stall)',
    ours: single(worker.maxStallMs),
    baseline: { label: 'built on the event loop', stats: single(inline.maxStallMs) },
    note: `wall ${fmtMs(worker.ms)} (worker) vs ${fmtMs(inline.ms)} (inline); heap kept ≈ ${(heap / 1e6).toFixed(0)} MB`,
  });
  const g = worker.value;
  const index = loadPackedIndex();
  const names = index.names.split('\0');
  const r = xorshift(26);
  const n = opts.quick ? 20_000 : 500_000;
  const sample = opts.quick ? 50 : 300;
  for (const [id, label, at] of [
    ['europe', 'Europe (35–55° N, 10° W–30° E)', () => [35 + r() * 20, -10 + r() * 40]],
    ['globe', 'the globe (60° S–80° N, mostly sea)', () => [-60 + r() * 140, -180 + r() * 360]],
  ] as Array<[string, string, () => number[]]>) {
    const points = Array.from({ length: n }, at);
    const t0 = now();
    for (const [lat, lon] of points) g.lookup(lat, lon);
    const ours = n / ((now() - t0) / 1000);
    let agree = 0;
    const t1 = now();
    for (const [lat, lon] of points.slice(0, sample)) {
      let best = -1;
      let bestKm = MAX_DISTANCE_KM;
      for (let i = 0; i < index.latitudes.length; i++) {
        const d = distanceKm(lat, lon, index.latitudes[i], index.longitudes[i]);
        if (d < bestKm) [best, bestKm] = [i, d];
      }
      const name = best < 0 ? null : names[best];
      if ((g.lookup(lat, lon)?.city ?? null) === name) agree++;
    }
    const linear = sample / ((now() - t1) / 1000);
    rows.push({
      id: `lookups-${id}`,
      label: `reverse geocode, ${label}`,
      ours: single(1000 / ours),
      baseline: { label: 'linear scan of every place', stats: single(1000 / linear) },
      rate: { unit: 'lookups/s', ours: Math.round(ours), baseline: Math.round(linear) },
      check: { ok: agree >= sample * 0.98, text: `${agree}/${sample} same place as the linear scan` },
    });
  }
  return g;
}

/** A SQLite library of n live images, each with a GPS position in Europe in its capture facts. */
async function library(file: string, n: number) {
  const st = openSqliteStorage(file);
  const { userId, organizationId, collectionId, root, at } = await benchCollection(st, 'B');
  const insert = st.db.prepare(
    `INSERT INTO media (id, dataset_id, organization_id, path, parent_path, type, name, blob_key, size_bytes, status,
       processing_status, root_id, is_current, created_at, updated_at, created_by, exif)
     VALUES (?, ?, ?, ?, ?, 'image', 'x.jpg', ?, 1000, 'active', 'ready', ?, 1, ?, ?, ?, ?)`,
  );
  const r = xorshift(7);
  st.db.transaction(() => {
    for (let i = 0; i < n; i++) {
      const id = newMediaId();
      const location = { latitude: 35 + r() * 20, longitude: -10 + r() * 40, altitude: null, direction: null };
      const exif = JSON.stringify({ capture: { location, camera: { make: 'NIKON', model: 'D750', lens: null } } });
      insert.run(id, collectionId, organizationId, `${root}.${id}`, root, `blob-${id}`, id, at, at, userId, exif);
    }
  })();
  const principal: Principal = { userId, organizationId, role: 'owner', keyId: null, sessionId: null };
  return { st, collectionId, principal, root };
}

async function mapRows(opts: BenchOptions, rows: BenchRow[], findings: string[]) {
  const n = opts.quick ? 2000 : Number(process.env.BENCH_PLACES_SIZE ?? 50_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-places-'));
  try {
    opts.log(`filling a library of ${n} geotagged items`);
    const { st, collectionId, principal, root } = await library(path.join(dir, 'lib.db'), n);
    const geocoder = await loadGeocoder();
    const pending = await st.places.pending(geocoder.version, n);
    const t0 = now();
    for (const p of pending) geocoder.lookup(p.latitude, p.longitude);
    const lookupsMs = now() - t0;
    const sweep = await stalls(() => settlePlaces({ storage: st }));
    rows.push({
      id: 'sweep',
      label: `places sweep: ${n} items placed and stored`,
      ours: single(sweep.ms),
      baseline: { label: 'the lookups alone', stats: single(lookupsMs) },
      rate: { unit: 'items/s', ours: Math.round(n / (sweep.ms / 1000)), baseline: null },
      check: { ok: sweep.value === n, text: `${sweep.value} places stored; longest stall ${fmtMs(sweep.maxStallMs)}` },
    });
    const params = {
      recursive: true,
      limit: 1,
      offset: 0,
      type: 'all' as const,
      sortBy: 'createdAt' as const,
      sortDirection: 'desc' as const,
      minScore: 0,
    };
    const reps = opts.quick ? 3 : 10;
    const ours: number[] = [];
    let total = 0;
    for (let i = 0; i < reps; i++) {
      const t = now();
      const map = await mapPoints({ storage: st }, principal, collectionId, params);
      JSON.stringify(map);
      ours.push(now() - t);
      total = map.total;
    }
    const page: number[] = [];
    for (let i = 0; i < reps; i++) {
      const t = now();
      const got = await st.media.browse({
        collectionId,
        path: root,
        recursive: true,
        ...NO_FILTERS,
        sortBy: 'createdAt',
        sortDirection: 'desc',
        limit: 1000,
        offset: 0,
      });
      JSON.stringify(got.items);
      page.push(now() - t);
    }
    rows.push({
      id: 'map',
      label: `map listing: ${n} positions, columnar, serialised`,
      ours: stats(ours),
      baseline: { label: 'one browse page of 1,000 items (rows only)', stats: stats(page) },
      check: { ok: total === n, text: `${total} positions` },
    });
    const bytes = JSON.stringify(await mapPoints({ storage: st }, principal, collectionId, params)).length;
    findings.push(`map answer for ${n} items: ${(bytes / 1e6).toFixed(2)} MB of JSON before compression`);
    await st.close();
  } finally {
    if (!opts.keep) rmSync(dir, { recursive: true, force: true });
  }
}

export async function runPlacesBench(opts: BenchOptions): Promise<SectionResult> {
  const t0 = now();
  const rows: BenchRow[] = [];
  const findings: string[] = [];
  const g = await geocoderRows(opts, rows);
  await mapRows(opts, rows, findings);
  return {
    section: 'places',
    quick: opts.quick,
    setup: { data: g.version, radiusKm: MAX_DISTANCE_KM, items: opts.quick ? 2000 : 50_000 },
    rows,
    findings,
    durationMs: now() - t0,
  };
}
