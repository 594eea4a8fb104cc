/**
 * Import section of `npm run bench`: `npm run import`'s client (src/cli/import) against a local server, in
 * files/s, beside a sequential upload of the same files through the same route in the same run (the
 * baseline: one file at a time, no hashing, no lookup), and a rerun where every file is already there.
 *
 * The server runs in this process (createApp, real HTTP on 127.0.0.1) with INGEST_CONCURRENCY=0: this measures
 * taking files in, not analysing them. Photos: random-noise JPEGs of 1600×1200 (≈1 MB each, incompressible
 * like real photos), in 4 folders. Each round imports into fresh collections, baseline and ours in
 * alternating order. Full: 200 photos, 2 rounds. --quick: 30 photos, 1 round.
 */
import http from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { createApp } from '../../src/app.js';
import { createClient } from '../../src/cli/import/client.js';
import { runImport } from '../../src/cli/import/run.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/platform/logger.js';
import { now, stats, type BenchOptions, type BenchRow, type SectionResult } from './harness.js';

const KEY = 'bench-import-key-0123456789abcdef';

async function photos(dir: string, n: number): Promise<string[]> {
  const files: string[] = [];
  for (let i = 0; i < n; i++) {
    const raw = Buffer.alloc(1600 * 1200 * 3);
    for (let j = 0; j < raw.length; j += 4) raw.writeUInt32LE((Math.random() * 2 ** 32) >>> 0, j);
    const rel = `roll-${i % 4}/IMG_${String(i).padStart(5, '0')}.jpg`;
    mkdirSync(path.join(dir, path.dirname(rel)), { recursive: true });
    writeFileSync(
      path.join(dir, rel),
      await sharp(raw, { raw: { width: 1600, height: 1200, channels: 3 } })
        .jpeg({ quality: 85 })
        .toBuffer(),
    );
    files.push(rel);
  }
  return files;
}

export async function runImportBench(opts: BenchOptions): Promise<SectionResult> {
  const started = now();
  const cfg = opts.quick ? { photos: 30, rounds: 1 } : { photos: 200, rounds: 2 };
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'bench-import-'));
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const config = loadConfig(
    {
      DATA_DIR: path.join(tmp, 'data'),
      BOOTSTRAP_API_KEY: KEY,
      MODEL_PROFILE: 'test',
      AUTO_FETCH_MODELS: '0',
      LOG_LEVEL: 'silent',
    },
    { port, ingestConcurrency: 0, rateLimitPerMinute: 1_000_000 },
  );
  const app = await createApp(config, createLogger('silent'));
  server.on('request', app.koa.callback());
  const baseUrl = `http://127.0.0.1:${port}`;
  const client = createClient({ baseUrl, key: KEY });
  const orgId = (await client.json<{ organizationId: string }>('GET', '/api/me')).organizationId;
  const newCollection = async (name: string) =>
    (await client.json<{ dataset: { id: string } }>('POST', `/api/organization/${orgId}/datasets`, { name })).dataset
      .id;
  try {
    const dir = path.join(tmp, 'photos');
    opts.log(`making ${cfg.photos} photos`);
    const files = await photos(dir, cfg.photos);
    const seq: number[] = [];
    const ours: number[] = [];
    const rerun: number[] = [];
    const quiet = { out: { isTTY: false, write: () => true }, logEveryMs: 1e9 };
    for (let round = 0; round < cfg.rounds; round++) {
      const baseline = async () => {
        const ds = await newCollection(`seq ${round}`);
        const t0 = now();
        for (const rel of files)
          await client.upload({ datasetId: ds, name: path.basename(rel) }, path.join(dir, rel), path.basename(rel));
        seq.push(now() - t0);
      };
      const importer = async () => {
        const ds = await newCollection(`cli ${round}`);
        const o = { dir, collection: ds, into: '', server: baseUrl, key: KEY, dryRun: false, concurrency: 4 };
        const t0 = now();
        await runImport(o, quiet, client);
        ours.push(now() - t0);
        const t1 = now();
        await runImport(o, quiet, client);
        rerun.push(now() - t1);
      };
      for (const step of round % 2 ? [importer, baseline] : [baseline, importer]) await step();
      opts.log(
        `round ${round + 1}: sequential ${seq.at(-1)!.toFixed(0)} ms, import ${ours.at(-1)!.toFixed(0)} ms, rerun ${rerun.at(-1)!.toFixed(0)} ms`,
      );
    }
    const perSec = (ms: number[]) => (files.length * 1000) / stats(ms).p50;
    const base = { label: 'sequential uploads', stats: stats(seq) };
    const rows: BenchRow[] = [
      {
        id: 'import.cli',
        label: `npm run import, ${files.length} photos, concurrency 4 (incl. hashing and lookup)`,
        ours: stats(ours),
        baseline: base,
        rate: { unit: 'files/s', ours: perSec(ours), baseline: perSec(seq) },
      },
      {
        id: 'import.rerun',
        label: `rerun: all ${files.length} already there (hash + lookup only)`,
        ours: stats(rerun),
        baseline: base,
        rate: { unit: 'files/s', ours: perSec(rerun), baseline: perSec(seq) },
      },
    ];
    return {
      section: 'import',
      quick: opts.quick,
      setup: {
        photos: files.length,
        photoBytes: '≈1 MB noise JPEG 1600×1200',
        rounds: cfg.rounds,
        ingest: 'off',
        cpus: os.cpus().length,
      },
      rows,
      findings: [],
      durationMs: now() - started,
    };
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    await app.close();
    if (!opts.keep) rmSync(tmp, { recursive: true, force: true });
    else opts.log(`kept ${tmp}`);
  }
}
