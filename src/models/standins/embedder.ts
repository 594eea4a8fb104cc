/**
 * CLIP- and SigLIP-shaped stand-in embedders: the real folder layout and the
 * real input/output names, with tiny made-up weights.
 *
 *   onnx/vision_model.onnx  pixel_values [B,3,224,224] → image_embeds [B,D] (CLIP) | pooler_output [B,D] (SigLIP)
 *   onnx/text_model.onnx    input_ids [B,S]             → text_embeds [B,D]  (CLIP) | pooler_output [B,D] (SigLIP)
 *
 * Vision: colour histogram (colours.ts) → MatMul onto one direction per
 * colour. Text: embedding lookup summed over the sequence; colour words are
 * unit vectors on their colour's direction, other words small seeded noise, special and padding tokens zero (so padding never matters and
 * no attention_mask input is needed — real CLIP text models take input_ids
 * only). Directions are permuted by a per-model seed so two stand-ins with the
 * same D give incompatible vector spaces, as two real models would.
 */
import { GraphBuilder } from './onnx/graphBuilder.js';
import { COLOURS, COLOUR_WORDS, colourHistogram, colourIndex, hashSeed } from './colours.js';
import { seededRandom } from '../../platform/random.js';
import { buildByteLevelBpe } from './tokenizer.js';

export type EmbedderArch = 'clip' | 'siglip';

export interface EmbedderStandinOptions {
  arch: EmbedderArch;
  /** Embedding width D. */
  dims: number;
  /** Seeds the made-up weights (use the model name). */
  seed: string;
  /**
   * Bench only: adds work to a graph without changing its answer. Given the
   * graph, its input and its output value, returns the value to output instead
   * (scripts/bench/standins: the real tower's compute, added times zero).
   */
  cost?: (g: GraphBuilder, part: 'vision' | 'text', input: string, output: string) => string;
}

/** Ordinary words the stand-in tokenizer knows as whole tokens (besides colours). */
const WORDS = [
  'a',
  'an',
  'the',
  'photo',
  'picture',
  'image',
  'of',
  'thing',
  'and',
  'with',
  'on',
  'in',
  'dog',
  'cat',
  'car',
  'tree',
  'sky',
  'sea',
  'person',
  'this',
  'is',
];

const CLIP_MEAN = [0.48145466, 0.4578275, 0.40821073];
const CLIP_STD = [0.26862954, 0.26130258, 0.27577711];
const SIGLIP_MEAN = [0.5, 0.5, 0.5];
const SIGLIP_STD = [0.5, 0.5, 0.5];

/** The files of one stand-in folder: relative path → contents. */
export type StandinFiles = Map<string, Uint8Array | string>;

export function embedderStandinFiles(opts: EmbedderStandinOptions): StandinFiles {
  const { arch, dims: D } = opts;
  if (D < COLOURS.length) throw new Error(`stand-in embedder needs at least ${COLOURS.length} dims`);
  const random = seededRandom(hashSeed(opts.seed));
  // Direction of each colour: a distinct, seed-chosen axis.
  const axes = Array.from({ length: D }, (_, i) => i);
  for (let i = D - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [axes[i], axes[j]] = [axes[j], axes[i]];
  }
  const colourAxis = COLOURS.map((_, c) => axes[c]);

  const siglip = arch === 'siglip';
  const specials = siglip ? ['</s>', '<unk>'] : ['<|startoftext|>', '<|endoftext|>'];
  const tok = buildByteLevelBpe({
    pieces: [...WORDS, ...COLOUR_WORDS].map((w) => ' ' + w),
    specials,
    addPrefixSpace: true,
    lowercase: true,
    wrap: siglip ? { after: '</s>' } : { before: '<|startoftext|>', after: '<|endoftext|>' },
  });
  const V = tok.vocab.size;
  const mean = siglip ? SIGLIP_MEAN : CLIP_MEAN;
  const std = siglip ? SIGLIP_STD : CLIP_STD;
  const outName = siglip ? 'pooler_output' : null;

  // ---- vision graph
  const v = new GraphBuilder('vision_model');
  const pixels = v.input('pixel_values', 'float32', ['batch_size', 3, 224, 224]);
  const hist = v.op('Flatten', [colourHistogram(v, pixels, mean, std)], { axis: 1 });
  const proj = new Float32Array(COLOURS.length * D);
  colourAxis.forEach((axis, c) => (proj[c * D + axis] = 1));
  const imageEmbeds = v.op('MatMul', [hist, v.floatTensor(proj, [COLOURS.length, D])]);
  v.output(opts.cost?.(v, 'vision', pixels, imageEmbeds) ?? imageEmbeds, outName ?? 'image_embeds', 'float32', [
    'batch_size',
    D,
  ]);

  // ---- text graph
  const table = new Float32Array(V * D);
  for (const [token, id] of tok.vocab) {
    if (specials.includes(token)) continue; // zero: padding and markers add nothing
    const word = token.startsWith('Ġ') ? token.slice(1) : token;
    const c = colourIndex(word);
    if (c >= 0) table[id * D + colourAxis[c]] = 1;
    else for (let k = 0; k < D; k++) table[id * D + k] = (random() - 0.5) * (0.4 / Math.sqrt(D / 3));
  }
  const t = new GraphBuilder('text_model');
  const ids = t.input('input_ids', 'int64', ['batch_size', 'sequence_length']);
  const tokens = t.op('Gather', [t.floatTensor(table, [V, D]), ids], { axis: 0 });
  const pooled = t.op('ReduceSum', [tokens, t.int64Tensor([1])], { keepdims: 0 });
  t.output(opts.cost?.(t, 'text', ids, pooled) ?? pooled, outName ?? 'text_embeds', 'float32', ['batch_size', D]);

  const files: StandinFiles = new Map();
  files.set('config.json', JSON.stringify(siglip ? siglipConfig(D, V) : clipConfig(D, V), null, 2));
  files.set('preprocessor_config.json', JSON.stringify(siglip ? siglipPreprocessor() : clipPreprocessor(), null, 2));
  files.set('tokenizer.json', JSON.stringify(tok.json));
  files.set(
    'tokenizer_config.json',
    JSON.stringify(
      siglip
        ? {
            tokenizer_class: 'SiglipTokenizer',
            model_max_length: 64,
            eos_token: '</s>',
            pad_token: '</s>',
            unk_token: '<unk>',
            do_lower_case: true,
          }
        : {
            tokenizer_class: 'CLIPTokenizer',
            model_max_length: 77,
            bos_token: '<|startoftext|>',
            eos_token: '<|endoftext|>',
            pad_token: '<|endoftext|>',
            unk_token: '<|endoftext|>',
            do_lower_case: true,
          },
      null,
      2,
    ),
  );
  files.set('onnx/vision_model.onnx', v.toModel({ docString: `stand-in ${arch} vision tower, D=${D}` }));
  files.set('onnx/text_model.onnx', t.toModel({ docString: `stand-in ${arch} text tower, D=${D}` }));
  return files;
}

function clipConfig(D: number, V: number) {
  return {
    architectures: ['CLIPModel'],
    model_type: 'clip',
    projection_dim: D,
    text_config: {
      model_type: 'clip_text_model',
      hidden_size: D,
      projection_dim: D,
      max_position_embeddings: 77,
      vocab_size: V,
    },
    vision_config: {
      model_type: 'clip_vision_model',
      hidden_size: D,
      projection_dim: D,
      image_size: 224,
      patch_size: 32,
      num_channels: 3,
    },
  };
}

function siglipConfig(D: number, V: number) {
  return {
    architectures: ['SiglipModel'],
    model_type: 'siglip',
    text_config: { model_type: 'siglip_text_model', hidden_size: D, max_position_embeddings: 64, vocab_size: V },
    vision_config: {
      model_type: 'siglip_vision_model',
      hidden_size: D,
      image_size: 224,
      patch_size: 16,
      num_channels: 3,
    },
  };
}

function clipPreprocessor() {
  return {
    image_processor_type: 'CLIPImageProcessor',
    do_resize: true,
    size: { shortest_edge: 224 },
    resample: 3,
    do_center_crop: true,
    crop_size: { height: 224, width: 224 },
    do_rescale: true,
    rescale_factor: 1 / 255,
    do_normalize: true,
    image_mean: CLIP_MEAN,
    image_std: CLIP_STD,
    do_convert_rgb: true,
  };
}

function siglipPreprocessor() {
  return {
    image_processor_type: 'SiglipImageProcessor',
    do_resize: true,
    size: { height: 224, width: 224 },
    resample: 3,
    do_rescale: true,
    rescale_factor: 1 / 255,
    do_normalize: true,
    image_mean: SIGLIP_MEAN,
    image_std: SIGLIP_STD,
  };
}
