/**
 * Edit section of `npm run bench` (issue 6): latency of each edit operation
 * of POST /api/ai/edit's local editor (src/edit/apply.ts: decode, the
 * operation, encode) on a 12-megapixel photo (4000×3000), beside the baseline
 * of the same run: a plain decode + JPEG encode of the same image (an empty
 * plan through the same code), so each ratio says what the operation itself
 * adds. Baseline and operation runs alternate, so load from other work on the
 * machine falls on both alike.
 *
 * The photo: the largest fixture under ../shared/fixtures/images scaled up to
 * 4000×3000 with lanczos3 at set-up (no fixture there is 12 MP itself), or a
 * generated one (gradients and noise) when the folder is absent.
 *
 * Models: the background rows use the matte model and the upscale row the
 * super-resolution model of MODEL_PROFILE=test, i.e. tiny stand-ins, unless
 * BENCH_EDIT_PROFILE=default and the real ones are installed: with stand-ins
 * those rows measure everything around inference (the copy for the model,
 * the worker hop, scaling the matte back, compositing), not the model.
 * Event-loop block: while each operation runs, a 1 ms timer on this thread
 * records how late it fires; the worst lateness over the measured runs is the
 * longest the HTTP thread would have been unable to answer anything (pixel
 * loops in JavaScript, buffer copies, garbage collection). sharp's own work
 * runs on libuv's thread pool and does not count. The baseline's figure is
 * beside it: what decode + encode alone leave on the thread. On a small,
 * shared machine the figure also holds the noise floor: GC pauses, freeing
 * large buffers, and libvips' threads or other processes taking the core
 * the timer needs (see the baseline's figure), so the median run is given too.
 *
 * `--quick`: a 1-megapixel photo and two runs each.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { loadConfig } from '../../src/config.js';
import type { Services } from '../../src/features/kernel/services.js';
import { applyPlan } from '../../src/features/edit/apply.js';
import { parsePrompt } from '../../src/features/edit/parse.js';
import { createLogger } from '../../src/platform/logger.js';
import { createVisionModels } from '../../src/models/index.js';
import { UPSCALE_MAX_INPUT_PIXELS } from '../../src/models/imageToImage.js';
import { fmtMs, now, stats, type BenchOptions, type BenchRow, type SectionResult } from './harness.js';

const FIXTURES = path.resolve(import.meta.dirname, '..', '..', '..', 'shared', 'fixtures', 'images');

/** Prompts measured, one operation each (plus one combined prompt). */
const PROMPTS: Array<[id: string, prompt: string]> = [
  ['rotate-90', 'rotate 90 degrees'],
  ['rotate-45', 'rotate 45 degrees'],
  ['flip', 'mirror the image'],
  ['crop-square', 'square crop'],
  ['crop-subject', 'crop to the subject'],
  ['resize-half', 'resize to 50%'],
  ['upscale-2x', 'upscale 2x'],
  ['greyscale', 'make it black and white'],
  ['sepia', 'sepia'],
  ['vintage', 'make it look vintage'],
  ['warm', 'warmer'],
  ['brightness', 'make it 20% brighter'],
  ['contrast', 'more contrast'],
  ['saturation', 'more saturated'],
  ['auto', 'auto enhance'],
  ['sharpen', 'sharpen'],
  ['blur', 'blur'],
  ['bg-remove', 'remove the background'],
  ['bg-blur', 'blur the background'],
  ['bg-replace', 'replace the background with white'],
  // A transparent working image through a colour step, the vignette and a PNG encode: the alpha paths.
  ['bg-remove-vintage', 'remove the background and make it look vintage'],
  ['border', 'add a 20px white border'],
  ['to-png', 'convert to png'],
  ['to-webp', 'convert to webp'],
  ['combined', 'rotate 90 degrees, crop to 4:3, make it look vintage, sharpen and add a border'],
];

/**
 * Longest event-loop stall while started: a timer due every LOOP_TIMER_MS
 * records how late it fires (as perf_hooks.monitorEventLoopDelay does, but
 * per run, without the re-enable artefact of that histogram). stop() also
 * counts the gap since the last tick, so a stall just before the awaited
 * promise settled is not missed.
 */
const LOOP_TIMER_MS = 1;

class LoopBlock {
  private timer: NodeJS.Timeout | null = null;
  private last = 0;
  worst = 0;

  start(): void {
    this.last = now();
    const tick = () => {
      const t = now();
      this.worst = Math.max(this.worst, t - this.last - LOOP_TIMER_MS);
      this.last = t;
      this.timer = setTimeout(tick, LOOP_TIMER_MS);
    };
    this.timer = setTimeout(tick, LOOP_TIMER_MS);
  }

  stop(): number {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.worst = Math.max(this.worst, now() - this.last - LOOP_TIMER_MS);
    return this.worst;
  }
}

/** Runs `fn`, returning its latency and the longest event-loop stall while it ran (ms). */
async function timed(fn: () => Promise<unknown>): Promise<{ ms: number; blockMs: number }> {
  const probe = new LoopBlock();
  probe.start();
  const t = now();
  await fn();
  const ms = now() - t;
  return { ms, blockMs: probe.stop() };
}

async function makePhoto(width: number, height: number): Promise<{ bytes: Buffer; source: string }> {
  if (existsSync(FIXTURES)) {
    let best: { file: string; pixels: number } | null = null;
    for (const name of readdirSync(FIXTURES).filter((n) => /\.(jpe?g|png)$/i.test(n))) {
      const file = path.join(FIXTURES, name);
      const m = await sharp(file).metadata();
      const pixels = (m.width ?? 0) * (m.height ?? 0);
      if (!best || pixels > best.pixels) best = { file, pixels };
    }
    if (best) {
      const bytes = await sharp(best.file)
        .autoOrient()
        .resize(width, height, { fit: 'cover', kernel: 'lanczos3' })
        .jpeg({ quality: 90 })
        .toBuffer();
      return {
        bytes,
        source: `${path.basename(best.file)} (${(best.pixels / 1e6).toFixed(1)} MP) scaled to ${width}×${height} with lanczos3`,
      };
    }
  }
  // Generated: a colour gradient with noise (so encoders and filters see texture).
  const raw = Buffer.alloc(width * height * 3);
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff) * 40 - 20;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      raw[i] = Math.max(0, Math.min(255, (255 * x) / width + rnd()));
      raw[i + 1] = Math.max(0, Math.min(255, (255 * y) / height + rnd()));
      raw[i + 2] = Math.max(0, Math.min(255, 128 + rnd()));
    }
  }
  const bytes = await sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
  return { bytes, source: `generated gradient with noise, ${width}×${height} (no fixtures folder)` };
}

const round1 = (ms: number) => Math.round(ms * 10) / 10;

export async function runEditBench(opts: BenchOptions): Promise<SectionResult> {
  const t0 = now();
  const [width, height] = opts.quick ? [1200, 900] : [4000, 3000];
  const reps = opts.quick ? 2 : 5;
  const temp = mkdtempSync(path.join(os.tmpdir(), 'lumen-bench-edit-'));
  const profile = process.env.BENCH_EDIT_PROFILE === 'default' ? 'default' : 'test';
  const config = loadConfig({ DATA_DIR: temp, MODEL_PROFILE: profile, LOG_LEVEL: 'silent' });
  const logger = createLogger('silent');
  const models = createVisionModels(config, logger, { maxQueue: 8 });
  const s = { config, models, logger } as unknown as Services;
  const rows: BenchRow[] = [];
  const findings: string[] = [];
  /** Longest event-loop stall per operation (ms), ours and the baseline's. */
  const blocks: Record<string, { ours: number; median: number; baseline: number }> = {};
  try {
    const photo = await makePhoto(width, height);
    opts.log(`photo: ${photo.source}, ${(photo.bytes.length / 1e6).toFixed(1)} MB JPEG`);
    const baseline = () => applyPlan(s, photo.bytes, [], { format: null, defaultFormat: 'jpg', quality: 90 });
    await baseline(); // warm-up: sharp's thread pool and caches

    for (const [id, prompt] of PROMPTS) {
      const plan = parsePrompt(prompt);
      if (plan.unrecognised.length) throw new Error(`bench prompt not understood: ${prompt}`);
      const run = () => applyPlan(s, photo.bytes, plan.operations, { format: null, defaultFormat: 'jpg', quality: 90 });
      const first = await run(); // warm-up (loads a model on first use)
      const ours: number[] = [];
      const base: number[] = [];
      const runBlocks: number[] = [];
      let baseBlock = 0;
      for (let i = 0; i < reps; i++) {
        const b = await timed(baseline);
        base.push(b.ms);
        baseBlock = Math.max(baseBlock, b.blockMs);
        const o = await timed(run);
        ours.push(o.ms);
        runBlocks.push(o.blockMs);
      }
      // The worst run, and the median run's worst stall (less swayed by a GC pause or another process on the machine).
      const block = Math.max(...runBlocks);
      const medianBlock = stats(runBlocks).p50;
      blocks[id] = { ours: round1(block), median: round1(medianBlock), baseline: round1(baseBlock) };
      const used = Object.entries(first.models)
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ');
      rows.push({
        id,
        label: `"${prompt}" → ${first.width}×${first.height} ${first.format}`,
        ours: stats(ours),
        baseline: { label: 'decode + JPEG encode', stats: stats(base) },
        note: [
          used,
          ...first.notes,
          `event loop blocked up to ${fmtMs(block)}, median run ${fmtMs(medianBlock)} (baseline up to ${fmtMs(baseBlock)})`,
        ]
          .filter(Boolean)
          .join('; '),
      });
      opts.log(
        `${id}: p50 ${stats(ours).p50.toFixed(0)} ms (baseline ${stats(base).p50.toFixed(0)} ms); event loop blocked up to ${block.toFixed(1)} ms, median run ${medianBlock.toFixed(1)} ms (baseline up to ${baseBlock.toFixed(1)} ms)`,
      );
    }
    const worst = Object.entries(blocks).sort((a, b) => b[1].ours - a[1].ours)[0];
    findings.push(
      `event-loop block (worst lateness of a ${LOOP_TIMER_MS} ms timer over the measured runs): up to ${fmtMs(worst[1].ours)} (${worst[0]}); ` +
        `decode + encode alone up to ${fmtMs(Math.max(...Object.values(blocks).map((b) => b.baseline)))}; per operation: ` +
        Object.entries(blocks)
          .map(([id, b]) => `${id} ${b.ours} (median ${b.median})`)
          .join(', ') +
        ' ms',
    );
    const modelRoles = models.roles();
    const standins = profile === 'test';
    findings.push(
      standins
        ? `background and upscale rows ran the stand-in models (${modelRoles.removeBackground}, ${modelRoles.upscale} of MODEL_PROFILE=test): they measure the work around inference, not the real model`
        : `models: matte ${modelRoles.removeBackground}, upscale ${modelRoles.upscale} (MODEL_PROFILE=default)`,
    );
    const cap = UPSCALE_MAX_INPUT_PIXELS[config.device] ?? UPSCALE_MAX_INPUT_PIXELS.cpu;
    if (width * height > cap)
      findings.push(
        `upscale of a ${width}×${height} photo: above the model's input cap (${cap} pixels on ${config.device}), so lanczos3 (the answer says so)`,
      );
    return {
      section: 'edit',
      quick: opts.quick,
      setup: {
        photo: photo.source,
        width,
        height,
        jpegBytes: photo.bytes.length,
        reps,
        profile,
        eventLoopTimerMs: LOOP_TIMER_MS,
        eventLoopBlockMs: blocks,
      },
      rows,
      findings,
      durationMs: now() - t0,
    };
  } finally {
    await models.close();
    if (opts.keep) opts.log(`kept ${temp}`);
    else rmSync(temp, { recursive: true, force: true });
  }
}
