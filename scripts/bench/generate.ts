/**
 * `npm run bench -- generate`: time per generated image with the Janus
 * stand-in (MODEL_PROFILE=test), three ways, in the same run:
 *
 * 1. ours: POST /api/ai/generate over HTTP (sync), through the durable queue,
 *    the dedicated generation worker, aspect-ratio reshaping and the output store;
 * 2. the worker path alone: VisionModels.generateImage (worker round trip, no queue/HTTP);
 * 3. baseline: the bare transformers.js call in this thread
 *    (AutoProcessor + MultiModalityCausalLM.generate_images + PNG encode) on the same files.
 *
 * The stand-in's graphs are tiny, so these figures are the fixed cost our path
 * adds per image, not the model's: the real Janus-Pro-1B spends minutes per
 * image on a CPU (576 image tokens, each a 24-layer step for a guided batch of 2).
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { AutoProcessor, env, MultiModalityCausalLM, random } from '@huggingface/transformers';
import sharp from 'sharp';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/platform/logger.js';
import { loadCatalog } from '../../src/models/catalog.js';
import { ensureStandin, standinRoot } from '../../src/models/standins/index.js';
import { now, stats, fmtMs, type BenchOptions, type BenchRow, type SectionResult } from './harness.js';

const KEY = 'bench-generate-key-0123456789abcdef';
const MODEL = 'janus-pro-1b';

export async function runGenerateBench(opts: BenchOptions): Promise<SectionResult> {
  const t0 = now();
  const n = opts.quick ? 5 : 30;
  const warm = 2;
  const temp = mkdtempSync(path.join(os.tmpdir(), 'bench-generate-'));
  const modelsDir = path.join(temp, 'models');
  const prompts = Array.from(
    { length: n + warm },
    (_, i) => `a ${['red', 'blue', 'green', 'yellow'][i % 4]} picture number ${i}`,
  );
  const findings: string[] = [];
  const rows: BenchRow[] = [];
  const log = opts.log;

  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const config = loadConfig(
    {
      DATA_DIR: path.join(temp, 'data'),
      MODELS_DIR: modelsDir,
      MODEL_PROFILE: 'test',
      BOOTSTRAP_API_KEY: KEY,
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_MINUTE: '100000000',
      INGEST_CONCURRENCY: '0',
    },
    { port, publicUrl: `http://127.0.0.1:${port}` },
  );
  const app = await createApp(config, createLogger('silent'));
  server.on('request', app.koa.callback());
  try {
    // 3. baseline: the bare transformers.js call on the same stand-in files, in this thread.
    const entry = loadCatalog({ modelsDir }).models.get(MODEL)!;
    const root = standinRoot(modelsDir);
    ensureStandin(entry, root);
    env.allowRemoteModels = false;
    env.localModelPath = root + path.sep;
    const processor = (await AutoProcessor.from_pretrained(MODEL)) as any;
    const model = (await MultiModalityCausalLM.from_pretrained(MODEL, { dtype: 'fp32' })) as any;
    const bare = async (prompt: string) => {
      const inputs = await processor([{ role: '<|User|>', content: prompt }], { chat_template: 'text_to_image' });
      random.seed(1);
      const [img] = await model.generate_images({
        ...inputs,
        min_new_tokens: processor.num_image_tokens,
        max_new_tokens: processor.num_image_tokens,
        do_sample: true,
      });
      return sharp(Buffer.from(img.data), { raw: { width: img.width, height: img.height, channels: img.channels } })
        .png()
        .toBuffer();
    };
    const time = async (what: string, fn: (p: string) => Promise<unknown>) => {
      for (const p of prompts.slice(0, warm)) await fn(p);
      const samples: number[] = [];
      for (const p of prompts.slice(warm)) {
        const s = now();
        await fn(p);
        samples.push(now() - s);
      }
      log(`${what}: p50 ${fmtMs(stats(samples).p50)}`);
      return stats(samples);
    };
    const baseline = await time('bare generate_images', bare);

    // 2. the worker path.
    const worker = await time('VisionModels.generateImage', (p) => app.services.models.generateImage(p, { seed: 1 }));

    // 1. ours, end to end over HTTP.
    const post = async (p: string) => {
      const res = await fetch(`http://127.0.0.1:${port}/api/ai/generate`, {
        method: 'POST',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: p, aspectRatio: '16:9' }),
      });
      if (res.status !== 200) throw new Error(`generate answered ${res.status}: ${await res.text()}`);
      await res.json();
    };
    const http1 = await time('POST /api/ai/generate', post);

    rows.push(
      {
        id: 'generate.http',
        label: 'POST /api/ai/generate (sync, 16:9), per image',
        ours: http1,
        baseline: { label: 'bare generate_images + PNG', stats: baseline },
      },
      {
        id: 'generate.worker',
        label: 'generation worker round trip, per image',
        ours: worker,
        baseline: { label: 'bare generate_images + PNG', stats: baseline },
      },
    );
    findings.push(
      `stand-in (16 image tokens, 64×64): ${fmtMs(http1.p50)} per image end to end vs ${fmtMs(baseline.p50)} for the bare model call = ${(http1.p50 / baseline.p50).toFixed(2)}×; ` +
        `the worker alone ${fmtMs(worker.p50)} (${(worker.p50 / baseline.p50).toFixed(2)}×). The difference is the fixed cost per image of the queue (SQLite job, ` +
        `status polling), the worker hop, reshaping and storing; against the real model's minutes per image it is noise.`,
    );
    return {
      section: 'generate',
      quick: opts.quick,
      setup: { model: MODEL, standin: true, images: n, warmup: warm, imageTokens: 16, side: 64 },
      rows,
      findings,
      durationMs: now() - t0,
    };
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    await app.close();
    if (opts.keep) log(`kept the temp directory: ${temp}`);
    else rmSync(temp, { recursive: true, force: true });
  }
}
