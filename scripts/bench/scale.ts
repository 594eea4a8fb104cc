/**
 * `npm run bench -- scale` (issue 25): the same library on SQLite and on PostgreSQL (PGlite here; a real
 * server with TEST_DATABASE_URL), the same reads through the same interfaces, as ratios PostgreSQL/SQLite:
 * browse (one level, subtree, tag filters, deep offsets), text search, vector search and the organization
 * search (`/api/search`'s use case) with recall@10 against exact, and the move of a folder holding a tenth of
 * the items (10,000 at full size). The library is made on SQLite through the stores (scaleFill.ts; kept
 * between runs from 20,000 items), then copied with `npm run migrate`'s transfer (its rate is a finding).
 * Then ingest with one and with two worker processes on Debian's PostgreSQL (scaleWorkers.ts).
 *
 * PGlite is PostgreSQL compiled to WebAssembly, single-threaded, behind a socket that serialises every
 * connection: its figures are a floor for a real server's, not a forecast (see docs/measurements/scale.md).
 *
 * BENCH_SCALE_SIZE: items (default 100,000; quick 2,000). BENCH_SCALE_PARTS=library|workers: one half only.
 * BENCH_SCALE_SERVER=debian: the library half on Debian's PostgreSQL (test/helpers/postgresServer.ts; no
 * pgvector, so no vector rows) instead of PGlite.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openPostgresStorage } from '../../src/storage/postgres/index.js';
import type { Storage } from '../../src/storage/storage.js';
import { transferTables } from '../../src/storage/transfer/transfer.js';
import { buildTransferredVectors } from '../../src/storage/transfer/vectors.js';
import type { BrowseQuery } from '../../src/storage/types.js';
import type { SearchIndexes } from '../../src/index/searchIndexes.js';
import { freshSchema, pglite } from '../../test/helpers/pglite.js';
import { postgresServer } from '../../test/helpers/postgresServer.js';
import { measure, now, type BenchOptions, type BenchRow, type SectionResult } from './harness.js';
import { clustersOf, DIMS, MODEL, openScaleLibrary, unitVector, type ScaleLibrary } from './scaleFill.js';
import { seededRandom } from '../../src/platform/random.js';
import { orgSearchRows } from './scaleSearch.js';
import { workerRows } from './scaleWorkers.js';

type Engine = Storage & { indexes: SearchIndexes };
type Engines = { sqlite: Engine; postgres: Engine };

/** One read on both engines: p50 and p99 each, the ratio PostgreSQL/SQLite as the row's figure. */
async function both(
  id: string,
  label: string,
  engines: Engines,
  fn: (s: Engine) => Promise<unknown>,
  reps: number,
): Promise<BenchRow> {
  const o = { reps, warmup: 3, budgetMs: 30_000, minReps: 10 };
  const postgres = await measure(() => fn(engines.postgres), o);
  const sqlite = await measure(() => fn(engines.sqlite), o);
  return {
    id,
    label: `${label} (PostgreSQL)`,
    ours: postgres,
    baseline: { label: 'SQLite', stats: sqlite },
    note: `PostgreSQL/SQLite p50 ${(postgres.p50 / sqlite.p50).toFixed(2)}×`,
  };
}

function browseQueries(lib: ScaleLibrary, size: number): Array<[string, string, Partial<BrowseQuery>]> {
  // Big folder holds about 60% of the items, the collection all: half-way down either.
  const deep = Math.max(1000, Math.round(size / 2 / 1000) * 1000);
  const at = deep.toLocaleString('en');
  return [
    ['browse-level', 'browse one level (Big folder), by name, 100', { path: lib.big }],
    ['browse-subtree', 'browse the whole collection, newest first, 100', { recursive: true, sortDirection: 'desc' }],
    [
      'browse-tags',
      'browse tag colour=red anywhere, by name, 100',
      { recursive: true, tagFilters: { colour: ['red'] } },
    ],
    [
      'browse-tags2',
      'browse colour=red and subject=s0 or s5 anywhere, 100',
      { recursive: true, tagFilters: { colour: ['red'], subject: ['s0', 's5'] } },
    ],
    ['browse-deep', `browse one level (Big folder) at offset ${at}, by name`, { path: lib.big, offset: deep }],
    [
      'browse-deep-subtree',
      `browse the whole collection at offset ${at}, newest first`,
      { recursive: true, sortDirection: 'desc', offset: deep },
    ],
  ];
}

const browse = (lib: ScaleLibrary, q: Partial<BrowseQuery>): BrowseQuery => ({
  ...{ collectionId: lib.collectionId, path: lib.root, recursive: false, types: null, createdFrom: null },
  ...{ createdBefore: null, tagFilters: null, tagValues: null, mediaId: null, clusterId: null },
  ...{ sortBy: 'name', sortDirection: 'asc', limit: 100, offset: 0 },
  ...q,
});

/** recall@10 of each engine's vector search against an exact scan of the same vectors. */
async function vectorRows(lib: ScaleLibrary, engines: Engines, reps: number) {
  const rand = seededRandom(11);
  const queries = Array.from({ length: reps }, () => unitVector(rand, Math.floor(rand() * clustersOf(lib.size))));
  const recall: Record<string, number> = { sqlite: 0, postgres: 0 };
  const ask = (vector: Float32Array) => ({
    ...{ modelId: MODEL, similarityModel: 'objects' as const, vector, collectionIds: [lib.collectionId], k: 10 },
  });
  for (const [name, engine] of Object.entries(engines)) {
    for (const vector of queries) {
      const exact = await engine.indexes.vectors.search({ ...ask(vector), strategy: 'exact' });
      const ann = await engine.indexes.vectors.search(ask(vector));
      const truth = new Set(exact.map((h) => h.objectId));
      recall[name] += ann.filter((h) => truth.has(h.objectId)).length / Math.max(1, truth.size) / queries.length;
    }
  }
  let q = 0;
  const row = await both(
    'vector-search',
    'vector search k=10 over the collection',
    engines,
    (s) => s.indexes.vectors.search(ask(queries[q++ % queries.length])),
    reps,
  );
  row.check = {
    ok: recall.postgres >= 0.9 && recall.sqlite >= 0.9,
    text: `recall@10 PostgreSQL ${recall.postgres.toFixed(3)}, SQLite ${recall.sqlite.toFixed(3)}`,
  };
  return row;
}

/** The folder holding a tenth of the items moves under another folder, once on each engine. */
async function moveRow(lib: ScaleLibrary, engines: Engines, size: number): Promise<BenchRow> {
  const time = async (s: Engine) => {
    const folder = (await s.media.browse(browse(lib, { types: ['folder'], limit: 10 }))).items.find(
      (m) => m.path === lib.moving,
    )!;
    const t0 = now();
    await s.media.move(folder.id, lib.target, folder.createdById);
    return now() - t0;
  };
  const pg = await time(engines.postgres);
  const sq = await time(engines.sqlite);
  const one = (ms: number) => ({ n: 1, p50: ms, p99: ms, mean: ms, min: ms, max: ms });
  return {
    id: 'move-folder',
    label: `move a folder of ${Math.round(size / 10).toLocaleString('en')} items (PostgreSQL)`,
    ours: one(pg),
    baseline: { label: 'SQLite', stats: one(sq) },
    note: `PostgreSQL/SQLite ${(pg / sq).toFixed(2)}×`,
  };
}

/** TEST_DATABASE_URL's server, Debian's PostgreSQL started here (BENCH_SCALE_SERVER=debian: no pgvector), or PGlite. */
const engineName = () =>
  process.env.TEST_DATABASE_URL
    ? 'TEST_DATABASE_URL'
    : process.env.BENCH_SCALE_SERVER === 'debian'
      ? "Debian's PostgreSQL"
      : 'PGlite';

/** The library half: fill (or the cached library), transfer to PostgreSQL, every read on both, the move. */
async function libraryRows(opts: BenchOptions, size: number, rows: BenchRow[], findings: string[]): Promise<void> {
  const reps = opts.quick ? 10 : 50;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-scale-'));
  const server = engineName() === 'PGlite' ? await pglite() : await postgresServer();
  const { sqlite, lib, fillMs } = await openScaleLibrary(dir, size, opts.outDir, opts.log);
  try {
    if (fillMs !== null)
      findings.push(`SQLite library of ${size} items through the stores: ${(fillMs / 1000).toFixed(0)} s`);
    const schema = freshSchema('scale');
    const loader = await openPostgresStorage(server.url, { schema, vectorSearch: server.vector, poolMax: 4 });
    const t0 = now();
    await transferTables(sqlite.db, loader.db, { batchSize: 2000 });
    const copiedMs = now() - t0;
    await buildTransferredVectors(loader);
    const transferMs = now() - t0;
    // As autovacuum would by the time anyone browses: statistics and the visibility map (index-only counts).
    await loader.db.query('VACUUM ANALYZE');
    await loader.close();
    opts.log(
      `scale: transfer ${(copiedMs / 1000).toFixed(1)} s, vector index ${((transferMs - copiedMs) / 1000).toFixed(1)} s`,
    );
    // PGlite's socket runs every connection on one backend and mixes up concurrent statements (the org search
    // asks text and vectors at once): one connection there, as the HTTP suites on PGlite do.
    const poolMax = engineName() === 'PGlite' ? 1 : 4;
    const postgres = await openPostgresStorage(server.url, { schema, vectorSearch: server.vector, poolMax });
    const engines = { sqlite, postgres };
    for (const [id, label, q] of browseQueries(lib, size))
      rows.push(await both(id, label, engines, (s) => s.media.browse(browse(lib, q)), reps));
    rows.push(
      await both(
        'text-search',
        'text search "red photo", k=50',
        engines,
        (s) => s.indexes.text.search({ query: 'red photo', collectionIds: [lib.collectionId], limit: 50 }),
        reps,
      ),
    );
    if (server.vector) {
      rows.push(await vectorRows(lib, engines, reps));
      rows.push(...(await orgSearchRows(lib, engines, (id, label, fn) => both(id, label, engines, fn, reps), reps)));
    }
    rows.push(await moveRow(lib, engines, size));
    findings.push(
      `npm run migrate's copy: ${Math.round(size / (copiedMs / 1000))} items/s; with the vector index build ` +
        `${Math.round(size / (transferMs / 1000))} items/s (${(transferMs / 1000).toFixed(0)} s)`,
    );
    await postgres.close();
  } finally {
    await sqlite.close();
    await server.stop();
    if (!opts.keep) rmSync(dir, { recursive: true, force: true });
  }
}

export async function runScaleBench(opts: BenchOptions): Promise<SectionResult> {
  const started = now();
  const size = Number(process.env.BENCH_SCALE_SIZE ?? (opts.quick ? 2_000 : 100_000));
  const parts = process.env.BENCH_SCALE_PARTS ?? 'library,workers';
  const rows: BenchRow[] = [];
  const findings: string[] = [];
  if (parts.includes('library')) await libraryRows(opts, size, rows, findings);
  const workers = parts.includes('workers') ? await workerRows(opts) : null;
  if (workers) {
    rows.push(...workers.rows);
    findings.push(...workers.findings);
  }
  return {
    section: 'scale',
    quick: opts.quick,
    setup: {
      items: size,
      engine: engineName(),
      dims: DIMS,
      ...(workers ? { ingest: workers.setup } : {}),
    },
    rows,
    findings,
    durationMs: now() - started,
  };
}
