/**
 * `npm run bench -- soak [--duration 3600]`: a day under load, compressed (issue #29). A real server (src/main.ts
 * in a child process, stand-in models, ingest on) takes a fixed mix from many concurrent clients while it ingests
 * what they upload: browse pages, searches, item pages and tag edits (add + remove) through autocannon at fixed
 * rates, upload loops, event streams held open the whole run and a client that opens and closes one every second.
 * Each route is first measured idle (one client, nothing else running) in the same run: the baseline.
 * Reports requests served, p50/p99 per route beside idle, every error, the server's memory (RSS; heap after a
 * full GC) and open file handles (/proc/<pid>/fd) at the start and the end, and checks that every acknowledged
 * upload is there at the end, byte for byte. Fails when a growth bound (BOUNDS) or the upload check does not hold.
 * Full: 180 s of load (--duration to change); quick: 12 s on 12 seeded photos (about a minute in all).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { now, stats, type BenchOptions, type BenchRow, type SectionResult } from './harness.js';
import { cannon, holdStreams, noiseJpeg, streamProbes, uploadLoops, type Acked, type Outcome } from './soakLoad.js';
import { soakRoutes } from './soakRoutes.js';
import { SOAK_KEY, startSoakServer, type ProcessSample, type SoakServer } from './soakServer.js';

const MiB = 1024 * 1024;
/** What may grow from the start of the load to its end (ingest drained, every client gone). */
export const BOUNDS = {
  fds: { text: 'open file handles: end ≤ start + 16', ok: (s: number, e: number) => e <= s + 16 },
  heap: { text: 'heap after GC: end ≤ 1.5 × start + 32 MiB', ok: (s: number, e: number) => e <= 1.5 * s + 32 * MiB },
  rss: { text: 'RSS: end ≤ 1.5 × start + 128 MiB', ok: (s: number, e: number) => e <= 1.5 * s + 128 * MiB },
};

async function api<T>(s: SoakServer, method: string, url: string, body?: unknown): Promise<T> {
  const res = await fetch(s.baseUrl + url, {
    method,
    headers: { 'x-api-key': SOAK_KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text) as T;
}

/** Waits until no item has an ingest phase queued or running; returns how many still do at the timeout. */
async function drain(s: SoakServer, timeoutMs: number): Promise<number> {
  const until = now() + timeoutMs;
  for (;;) {
    const { ingest } = await api<{ ingest: { remaining: number } }>(s, 'GET', '/api/jobs?limit=1');
    if (ingest.remaining === 0 || now() > until) return ingest.remaining;
    await sleep(500);
  }
}

/** Every acknowledged upload: its item exists and its original's bytes hash to what was sent. */
async function verify(s: SoakServer, acked: Acked[]): Promise<string[]> {
  const missing: string[] = [];
  for (const a of acked) {
    try {
      const { media } = await api<{ media: { blob: string } }>(s, 'GET', `/api/media/${a.mediaId}`);
      const bytes = Buffer.from(await (await fetch(new URL(media.blob, s.baseUrl))).arrayBuffer());
      const sha = createHash('sha256').update(bytes).digest('hex');
      if (sha !== a.sha256 || bytes.length !== a.bytes) missing.push(`${a.mediaId}: bytes differ`);
    } catch (err) {
      missing.push(`${a.mediaId}: ${(err as Error).message}`);
    }
  }
  return missing;
}

/** RSS and handles from /proc, without a GC in the server: the peaks while the load runs. */
function peek(pid: number): { rss: number; fds: number } | null {
  try {
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return { rss: rssKb * 1024, fds: readdirSync(`/proc/${pid}/fd`).length };
  } catch {
    return null;
  }
}

const mib = (b: number) => `${(b / MiB).toFixed(1)} MiB`;

interface Setup {
  server: SoakServer;
  datasetId: string;
  mediaIds: string[];
  base: Buffer[];
}

async function seed(server: SoakServer, count: number, log: (l: string) => void): Promise<Setup> {
  const { organizationId } = await api<{ organizationId: string }>(server, 'GET', '/api/me');
  const { dataset } = await api<{ dataset: { id: string } }>(
    server,
    'POST',
    `/api/organization/${organizationId}/datasets`,
    {
      name: 'Soak',
    },
  );
  const base = await Promise.all(Array.from({ length: 8 }, () => noiseJpeg(640, 480)));
  const mediaIds: string[] = [];
  const acked: Acked[] = [];
  await uploadLoops(
    { baseUrl: server.baseUrl, datasetId: dataset.id, base, clients: 4, pauseMs: 0, until: Infinity, count },
    acked,
  );
  mediaIds.push(...acked.map((a) => a.mediaId));
  log(`seeded ${mediaIds.length} photos; waiting for ingest`);
  const left = await drain(server, 300_000);
  if (left) throw new Error(`seed ingest did not finish: ${left} items left after 300 s`);
  return { server, datasetId: dataset.id, mediaIds, base };
}

interface Phase {
  routes: Map<string, Outcome>;
  uploads: Outcome;
  probes: Outcome;
}

/** Each route alone, one client: the baseline. */
async function idlePhase(s: Setup, seconds: number, uploads: number, log: (l: string) => void): Promise<Phase> {
  const routes = new Map<string, Outcome>();
  for (const r of soakRoutes(s.datasetId, s.mediaIds, s.mediaIds.length)) {
    routes.set(r.id, await cannon(s.server.baseUrl, r, seconds, true));
    log(`idle ${r.id}: p50 ${routes.get(r.id)!.stats.p50.toFixed(2)} ms`);
  }
  const probes = await streamProbes(s.server.baseUrl, 50, now() + seconds * 1000);
  const plan = { baseUrl: s.server.baseUrl, datasetId: s.datasetId, base: s.base, clients: 1, pauseMs: 0 };
  const idleAcked: Acked[] = [];
  const up = await uploadLoops({ ...plan, until: Infinity, count: uploads }, idleAcked);
  s.mediaIds.push(...idleAcked.map((a) => a.mediaId));
  return { routes, uploads: up, probes };
}

interface LoadFigures extends Phase {
  acked: Acked[];
  streams: { events: number[]; errors: string[] };
  peak: { rss: number; fds: number };
}

/** Everything at once for `seconds`, while the server ingests the uploads. */
async function loadPhase(
  s: Setup,
  seconds: number,
  streamCount: number,
  log: (l: string) => void,
): Promise<LoadFigures> {
  const until = now() + seconds * 1000;
  const acked: Acked[] = [];
  const held = await holdStreams(s.server.baseUrl, streamCount);
  const peak = { rss: 0, fds: 0 };
  const timer = setInterval(() => {
    const p = peek(s.server.pid);
    if (p) Object.assign(peak, { rss: Math.max(peak.rss, p.rss), fds: Math.max(peak.fds, p.fds) });
  }, 1000);
  const routes = soakRoutes(s.datasetId, s.mediaIds, s.mediaIds.length);
  const plan = { baseUrl: s.server.baseUrl, datasetId: s.datasetId, base: s.base, clients: 2, pauseMs: 500, until };
  const [outcomes, uploads, probes] = await Promise.all([
    Promise.all(routes.map((r) => cannon(s.server.baseUrl, r, seconds, false))),
    uploadLoops(plan, acked),
    streamProbes(s.server.baseUrl, 1000, until),
  ]);
  clearInterval(timer);
  const streams = await held.close();
  log(`load done: ${acked.length} uploads acknowledged, ${streams.events.reduce((a, b) => a + b, 0)} events streamed`);
  return { routes: new Map(routes.map((r, i) => [r.id, outcomes[i]])), uploads, probes, acked, streams, peak };
}

function row(id: string, label: string, load: Outcome, idle: Outcome | null, seconds: number): BenchRow {
  return {
    id,
    label,
    ours: load.stats,
    baseline: idle ? { label: 'the same, idle (one client)', stats: idle.stats } : null,
    rate: { unit: 'served/s', ours: load.served / seconds, baseline: null },
    check: { ok: load.errors.length === 0, text: load.errors.join(', ') },
    note: `${load.served} served under load${idle ? `, ${idle.served} idle` : ''}`,
  };
}

/** Memory and handles as rates (the throughput table prints units; the latency table only milliseconds). */
function memoryRows(start: ProcessSample, end: ProcessSample, peak: { rss: number; fds: number }): BenchRow[] {
  const bound = (key: keyof typeof BOUNDS, s: number, e: number) => ({
    text: BOUNDS[key].text,
    pass: BOUNDS[key].ok(s, e),
  });
  const none = stats([]);
  return [
    {
      id: 'memory.rss',
      label: `server RSS, end (ours) vs start (baseline); peak during the load ${mib(peak.rss)}`,
      ours: none,
      baseline: null,
      rate: { unit: 'MiB', ours: end.rss / MiB, baseline: start.rss / MiB },
      target: bound('rss', start.rss, end.rss),
    },
    {
      id: 'memory.heap',
      label: 'server heap used after a full GC, end vs start',
      ours: none,
      baseline: null,
      rate: { unit: 'MiB', ours: end.heapUsed / MiB, baseline: start.heapUsed / MiB },
      target: bound('heap', start.heapUsed, end.heapUsed),
    },
    {
      id: 'fds',
      label: `server open file handles (/proc/<pid>/fd), end vs start; peak during the load ${peak.fds}`,
      ours: none,
      baseline: null,
      rate: { unit: 'handles', ours: end.fds ?? NaN, baseline: start.fds ?? NaN },
      ...(start.fds === null || end.fds === null ? {} : { target: bound('fds', start.fds, end.fds) }),
    },
  ];
}

export async function runSoakBench(opts: BenchOptions): Promise<SectionResult> {
  const started = now();
  const seconds = opts.durationS ?? (opts.quick ? 12 : 180);
  const cfg = opts.quick
    ? { seed: 12, idleS: 2, idleUploads: 3, streams: 8 }
    : { seed: 120, idleS: 8, idleUploads: 20, streams: 16 };
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'bench-soak-'));
  const root = path.resolve(import.meta.dirname, '..', '..');
  opts.log('starting the server (src/main.ts in a child process)');
  const server = await startSoakServer(root, path.join(tmp, 'data'), path.join(tmp, 'models'));
  try {
    const s = await seed(server, cfg.seed, opts.log);
    const idle = await idlePhase(s, cfg.idleS, cfg.idleUploads, opts.log);
    await drain(server, 300_000);
    await sleep(2000);
    const start = await server.sample();
    opts.log(`load for ${seconds} s: RSS ${mib(start.rss)}, heap ${mib(start.heapUsed)}, ${start.fds} handles`);
    const load = await loadPhase(s, seconds, cfg.streams, opts.log);
    const backlog = await drain(server, opts.quick ? 120_000 : 600_000);
    await sleep(2000);
    const end = await server.sample();
    const lost = await verify(server, [...load.acked]);
    const rows: BenchRow[] = [];
    for (const r of soakRoutes(s.datasetId, s.mediaIds, s.mediaIds.length))
      rows.push(row(r.id, r.label, load.routes.get(r.id)!, idle.routes.get(r.id)!, seconds));
    rows.push(
      row('upload', 'upload a 640×480 photo (POST /api/upload/multipart)', load.uploads, idle.uploads, seconds),
    );
    rows.push(
      row('events.open', 'open an event stream until stream.open (then close it)', load.probes, idle.probes, seconds),
    );
    rows.push(...memoryRows(start, end, load.peak));
    const all = [...load.routes.values(), load.uploads, load.probes];
    const errors = [...all.flatMap((o) => o.errors), ...load.streams.errors, ...server.errorLines.slice(0, 20)];
    const served = all.reduce((a, o) => a + o.served, 0);
    rows.push({
      id: 'uploads.kept',
      label: `acknowledged uploads there at the end, byte for byte (of ${load.acked.length})`,
      ours: stats([]),
      baseline: null,
      rate: { unit: 'uploads', ours: load.acked.length - lost.length, baseline: load.acked.length },
      target: { text: 'all', pass: lost.length === 0 },
    });
    const code = await server.stop();
    const findings = [
      `${served} requests served under load in ${seconds} s (${(served / seconds).toFixed(1)}/s) beside ${load.streams.events.length} event streams held open (${load.streams.events.join(', ')} events each)`,
      `errors: ${errors.length ? errors.join('; ') : 'none'}`,
      `ingest backlog when measured at the end: ${backlog} items${backlog ? ' (drain timed out)' : ''}; server exit code ${code}`,
      ...lost.slice(0, 10).map((l) => `lost: ${l}`),
    ];
    const broken = rows.filter((r) => r.target && !r.target.pass).map((r) => `${r.label}: ${r.target!.text}`);
    if (broken.length) throw new Error(`soak bounds not held: ${broken.join('; ')}\n${findings.join('\n')}`);
    return {
      section: 'soak',
      quick: opts.quick,
      setup: {
        seconds,
        seeded: cfg.seed,
        mix: soakRoutes(s.datasetId, [], 1).map((r) => `${r.id} ${r.rate}/s on ${r.connections} connections`),
        uploads: '2 clients, 500 ms between uploads',
        eventStreams: cfg.streams,
        bounds: Object.values(BOUNDS).map((b) => b.text),
        cpus: os.cpus().length,
      },
      rows,
      findings,
      durationMs: now() - started,
    };
  } finally {
    await server.stop();
    if (!opts.keep) rmSync(tmp, { recursive: true, force: true });
    else opts.log(`kept ${tmp}`);
  }
}
