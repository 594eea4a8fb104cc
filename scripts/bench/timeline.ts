/**
 * `npm run bench -- timeline` (issue #26): the timeline's requests over HTTP against the real app on SQLite and
 * on PostgreSQL (PGlite), a collection of 100,000 items (BENCH_TIMELINE_SIZE; quick: 5,000) whose capture times
 * span ten years (a tenth without one: placed at their upload time), a third archived-free favourites, beside a
 * baseline of the same run: the plain first page of browse (GET /api/dataset/:id/media, 120 items). Measured:
 * the collection's month buckets, the organization's, and a month jump — the date-range page that fills a month
 * the scrubber jumped to (GET /api/organization/:orgId/media?datasetId&dateFrom&dateTo, 120 items, a random month
 * each time). Target: a jump ≤ 300 ms (p99).
 * The library is written with set statements (every trigger runs, as for an upload; no text index rows).
 */
import { openSqliteLibrary, openPgLibrary } from './timelineFill.js';
import { measure, type BenchOptions, type BenchRow, type SectionResult } from './harness.js';
import { startTestApp, type TestApp } from '../../test/helpers/testApp.js';

/** The first chunk the timeline screen asks for after a jump (web/screens/timeline/monthStore.ts). */
const PAGE = 120;
const YEARS = 10;

async function timed(app: TestApp, url: string): Promise<void> {
  const r = await app.request('GET', url);
  if (r.status !== 200) throw new Error(`${url}: ${r.status} ${JSON.stringify(r.body)}`);
}

async function engineRows(engine: string, app: TestApp, ds: string, reps: number, log: (l: string) => void) {
  const months: string[] = [];
  for (let y = 2015; y < 2015 + YEARS; y++)
    for (let m = 1; m <= 12; m++) months.push(`${y}-${String(m).padStart(2, '0')}`);
  const last = (month: string) => {
    const [y, m] = month.split('-').map(Number);
    return `${month}-${String(new Date(Date.UTC(y, m, 0)).getUTCDate()).padStart(2, '0')}`;
  };
  const jumpUrl = (i: number, org: boolean) => {
    const month = months[Math.abs(i * 37) % months.length];
    return `/api/organization/${app.orgId}/media?${org ? '' : `datasetId=${ds}&`}dateFrom=${month}-01&dateTo=${last(month)}&limit=${PAGE}`;
  };
  const o = { reps, warmup: 3 };
  log(`${engine}: browse baseline`);
  const baseline = await measure(() => timed(app, `/api/dataset/${ds}/media?limit=${PAGE}`), o);
  const base = { label: `browse, first page of ${PAGE}`, stats: baseline };
  const buckets = (await app.request('GET', `/api/dataset/${ds}/timeline`)).body;
  const full = (await app.request('GET', jumpUrl(3, false))).body;
  log(`${engine}: buckets, jumps`);
  const rows: BenchRow[] = [
    {
      id: `${engine}-buckets`,
      label: `${engine}: month buckets of the collection`,
      ours: await measure(() => timed(app, `/api/dataset/${ds}/timeline`), o),
      baseline: base,
      check: { ok: buckets.total > 0, text: `${buckets.buckets.length} months, ${buckets.total} items` },
    },
    {
      id: `${engine}-org-buckets`,
      label: `${engine}: month buckets of the organization`,
      ours: await measure(() => timed(app, `/api/organization/${app.orgId}/timeline`), o),
      baseline: base,
    },
    {
      id: `${engine}-jump`,
      label: `${engine}: month jump (a month's first ${PAGE} by date range)`,
      ours: await measure((i) => timed(app, jumpUrl(i, false)), o),
      baseline: base,
      check: { ok: full.media.length > 0, text: `${full.pagination.total} items in a month` },
    },
    {
      id: `${engine}-org-jump`,
      label: `${engine}: month jump over the organization`,
      ours: await measure((i) => timed(app, jumpUrl(i, true)), o),
      baseline: base,
    },
  ];
  for (const row of rows.filter((r) => r.id.endsWith('jump')))
    row.target = { text: 'p99 ≤ 300 ms', pass: row.ours.p99 <= 300 };
  return rows;
}

export async function runTimelineBench(opts: BenchOptions): Promise<SectionResult> {
  const started = performance.now();
  const size = opts.quick ? 5_000 : Number(process.env.BENCH_TIMELINE_SIZE ?? 100_000);
  const reps = opts.quick ? 10 : 60;
  const rows: BenchRow[] = [];
  const env = { RATE_LIMIT_PER_MINUTE: '100000000', LOG_LEVEL: 'silent' };
  const engines: Array<[string, () => Promise<TestApp>, typeof openSqliteLibrary]> = [
    ['SQLite', () => startTestApp({}, env), openSqliteLibrary],
    ['PGlite', () => withEnv({ TEST_DATABASE: 'pglite' }, () => startTestApp({}, env)), openPgLibrary],
  ];
  for (const [engine, start, fill] of engines) {
    const app = await start();
    try {
      const ds = await app.collection('Timeline');
      const ms = await fill(app, ds, size, YEARS);
      opts.log(`${engine}: ${size.toLocaleString('en')} items in ${(ms / 1000).toFixed(1)} s`);
      // The fill held the event loop: the client's kept-alive socket may have been closed meanwhile.
      await app.request('GET', '/api/me').catch(() => undefined);
      rows.push(...(await engineRows(engine, app, ds, reps, opts.log)));
    } finally {
      await app.close();
    }
  }
  const missed = rows.filter((r) => r.target && !r.target.pass);
  return {
    section: 'timeline',
    quick: opts.quick,
    setup: { items: size, years: YEARS, page: PAGE, reps, engines: engines.map((e) => e[0]) },
    rows,
    findings: missed.map((r) => `${r.label}: p99 ${r.ours.p99.toFixed(1)} ms misses ${r.target!.text}`),
    durationMs: performance.now() - started,
  };
}

async function withEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const before = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(before))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
}
