/**
 * `npm run bench -- scale` (issue 25): the same library on SQLite and on PostgreSQL (PGlite here; a real
 * server with TEST_DATABASE_URL), the same reads through the same interfaces, as ratios PostgreSQL/SQLite:
 * browse (one level, subtree, tag filters, a deep offset), text search, vector search with recall@10 against
 * exact, and the move of a folder holding a tenth of the items. The library is made on SQLite through the
 * stores, then copied with `npm run migrate`'s transfer (its rate is a row too).
 *
 * PGlite is PostgreSQL compiled to WebAssembly, single-threaded, behind a socket that serialises every
 * connection: its figures are a floor for a real server's, not a forecast (see docs/measurements/scale.md).
 * Ingest with one and two worker processes needs a multi-process server: see the jobs tests on Debian's
 * PostgreSQL (test/jobs) rather than this section.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newMediaId, newUuid, nowIso, pathLabel } from '../../src/platform/ids.js';
import { seededRandom } from '../../src/platform/random.js';
import { openPostgresStorage } from '../../src/storage/postgres/index.js';
import { openSqliteStorage } from '../../src/storage/sqlite/index.js';
import type { Storage } from '../../src/storage/storage.js';
import { transferTables } from '../../src/storage/transfer/transfer.js';
import { buildTransferredVectors } from '../../src/storage/transfer/vectors.js';
import type { BrowseQuery, NewMedia } from '../../src/storage/types.js';
import type { SearchIndexes } from '../../src/index/searchIndexes.js';
import { freshSchema, pglite } from '../../test/helpers/pglite.js';
import { postgresServer } from '../../test/helpers/postgresServer.js';
import { measure, now, type BenchOptions, type BenchRow, type SectionResult } from './harness.js';

type Engine = Storage & { indexes: SearchIndexes };
const DIMS = 64;
const MODEL = 'bench-embedder';

interface Library {
  collectionId: string;
  organizationId: string;
  root: string;
  big: string;
  moving: string;
  target: string;
  vectors: Float32Array[];
}

function unitVector(rand: () => number, centre: number): Float32Array {
  const v = new Float32Array(DIMS).map((_, i) => Math.sin(centre * 13 + i) + (rand() - 0.5) * 0.6);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

/** The library on SQLite through the stores: folders, tags on most items, one whole-frame vector each. */
async function fill(s: Engine, size: number, log: (l: string) => void): Promise<Library> {
  const rand = seededRandom(7);
  const userId = newUuid();
  await s.accounts.createUser({ id: userId, email: 'bench@example.com', name: 'Bench', createdAt: nowIso() });
  const organizationId = newUuid();
  await s.accounts.createOrganization({ id: organizationId, name: 'Bench', slug: 'bench' }, userId);
  const collectionId = newUuid();
  const at = nowIso();
  await s.collections.create({
    ...{ id: collectionId, organizationId, name: 'Bench', icon: null, type: 'media' },
    ...{ createdAt: at, updatedAt: at, createdById: userId },
  });
  const root = pathLabel(collectionId);
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
  const vectors: Float32Array[] = [];
  for (let i = 0; i < size; i++) {
    const parent = i % 10 === 0 ? moving : i % 3 === 0 ? root : big;
    const tags = rand() < 0.8 ? { colour: [colours[i % colours.length]], subject: [`s${i % 40}`] } : {};
    const item = await s.media.insert(base(parent, 'image', `photo ${i} ${colours[i % 5]}.jpg`, { tags }), [
      { id: newMediaId(), timestamp: '0', blobKey: `${'d'.repeat(64)}.webp`, width: 4, height: 3 },
    ]);
    const [frame] = await s.analysis.framesOf(item.id);
    const vector = unitVector(rand, i % 50);
    vectors.push(vector);
    await s.analysis.replaceModelObjects(frame.id, 'frame', [
      {
        ...{ id: newMediaId(), type: 'frame', label: 'frame', blobKey: null, confidence: null, model: MODEL },
        ...{ polygon: [], similarityModel: 'objects' as const, embedding: { modelId: MODEL, vector } },
      },
    ]);
    if ((i + 1) % 5000 === 0) log(`scale: ${i + 1}/${size} items on SQLite`);
  }
  return { collectionId, organizationId, root, big, moving, target, vectors };
}

/** One read on both engines: p50 and p99 each, the ratio PostgreSQL/SQLite as the row's figure. */
async function both(
  id: string,
  label: string,
  engines: { sqlite: Engine; postgres: Engine },
  fn: (s: Engine) => Promise<unknown>,
  reps: number,
): Promise<BenchRow> {
  const postgres = await measure(() => fn(engines.postgres), { reps, warmup: 3 });
  const sqlite = await measure(() => fn(engines.sqlite), { reps, warmup: 3 });
  return {
    id,
    label: `${label} (PostgreSQL)`,
    ours: postgres,
    baseline: { label: 'SQLite', stats: sqlite },
    note: `PostgreSQL/SQLite p50 ${(postgres.p50 / sqlite.p50).toFixed(2)}×`,
  };
}

function browseQueries(lib: Library): Array<[string, string, Partial<BrowseQuery>]> {
  return [
    ['browse-level', 'browse one level (Big folder), by name, 100', { path: lib.big }],
    ['browse-subtree', 'browse the whole collection, newest first, 100', { recursive: true, sortDirection: 'desc' }],
    [
      'browse-tags',
      'browse tag colour=red anywhere, by name, 100',
      { recursive: true, tagFilters: { colour: ['red'] } },
    ],
    ['browse-deep', 'browse one level at offset 5,000, by name', { path: lib.big, offset: 5000 }],
  ];
}

const browse = (lib: Library, q: Partial<BrowseQuery>): BrowseQuery => ({
  ...{ collectionId: lib.collectionId, path: lib.root, recursive: false, types: null, createdFrom: null },
  ...{ createdBefore: null, tagFilters: null, tagValues: null, mediaId: null, clusterId: null },
  ...{ sortBy: 'name', sortDirection: 'asc', limit: 100, offset: 0 },
  ...q,
});

/** recall@10 of each engine's vector search against an exact scan of the same vectors (in memory). */
async function vectorRows(lib: Library, engines: { sqlite: Engine; postgres: Engine }, reps: number) {
  const rand = seededRandom(11);
  const queries = Array.from({ length: reps }, () => unitVector(rand, Math.floor(rand() * 50)));
  const recall: Record<string, number> = { sqlite: 0, postgres: 0 };
  for (const [name, engine] of Object.entries(engines)) {
    for (const vector of queries) {
      const exact = await engine.indexes.vectors.search({
        ...{ modelId: MODEL, similarityModel: 'objects', vector, collectionIds: [lib.collectionId], k: 10 },
        strategy: 'exact',
      });
      const ann = await engine.indexes.vectors.search({
        ...{ modelId: MODEL, similarityModel: 'objects', vector, collectionIds: [lib.collectionId], k: 10 },
      });
      const truth = new Set(exact.map((h) => h.objectId));
      recall[name] += ann.filter((h) => truth.has(h.objectId)).length / Math.max(1, truth.size) / queries.length;
    }
  }
  let q = 0;
  const row = await both(
    'vector-search',
    'vector search k=10 over the collection',
    engines,
    (s) =>
      s.indexes.vectors.search({
        ...{ modelId: MODEL, similarityModel: 'objects', vector: queries[q++ % queries.length] },
        ...{ collectionIds: [lib.collectionId], k: 10 },
      }),
    reps,
  );
  row.check = {
    ok: recall.postgres >= 0.9,
    text: `recall@10 PostgreSQL ${recall.postgres.toFixed(3)}, SQLite ${recall.sqlite.toFixed(3)}`,
  };
  return row;
}

export async function runScaleBench(opts: BenchOptions): Promise<SectionResult> {
  const started = now();
  const size = Number(process.env.BENCH_SCALE_SIZE ?? (opts.quick ? 2_000 : 100_000));
  const reps = opts.quick ? 10 : 50;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-scale-'));
  const sqlite = openSqliteStorage(path.join(dir, 'library.db'));
  const server = process.env.TEST_DATABASE_URL ? await postgresServer() : await pglite();
  const rows: BenchRow[] = [];
  const findings: string[] = [];
  try {
    const lib = await fill(sqlite, size, opts.log);
    const schema = freshSchema('scale');
    const postgres = await openPostgresStorage(server.url, { schema, vectorSearch: server.vector, poolMax: 4 });
    const t0 = now();
    await transferTables(sqlite.db, postgres.db, { batchSize: 2000 });
    await buildTransferredVectors(postgres);
    const transferMs = now() - t0;
    opts.log(`scale: transfer and vector index of ${size} items in ${(transferMs / 1000).toFixed(1)} s`);
    const engines = { sqlite, postgres };
    for (const [id, label, q] of browseQueries(lib))
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
    if (server.vector) rows.push(await vectorRows(lib, engines, reps));
    rows.push(await moveRow(lib, engines, size));
    findings.push(
      `npm run migrate's copy with the vector index build: ${Math.round(size / (transferMs / 1000))} items/s`,
    );
    await postgres.close();
  } finally {
    await sqlite.close();
    await server.stop();
    if (!opts.keep) rmSync(dir, { recursive: true, force: true });
  }
  return {
    section: 'scale',
    quick: opts.quick,
    setup: { items: size, engine: process.env.TEST_DATABASE_URL ? 'TEST_DATABASE_URL' : 'PGlite', dims: DIMS },
    rows,
    findings,
    durationMs: now() - started,
  };
}

/** The folder holding a tenth of the items moves under another folder, once on each engine. */
async function moveRow(lib: Library, engines: { sqlite: Engine; postgres: Engine }, size: number): Promise<BenchRow> {
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
    label: `move a folder of ${Math.round(size / 10)} items (PostgreSQL)`,
    ours: one(pg),
    baseline: { label: 'SQLite', stats: one(sq) },
    note: `PostgreSQL/SQLite ${(pg / sq).toFixed(2)}×`,
  };
}
