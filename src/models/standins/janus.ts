/**
 * A Janus-Pro-shaped stand-in (the layout of onnx-community/Janus-Pro-1B-ONNX):
 * model_type "multi_modality" with a llama language config, run unmodified by
 * transformers.js's `MultiModalityCausalLM.generate_images` (classifier-free
 * guidance, key/value cache, sampling) through `AutoProcessor` (VLChatProcessor
 * with the `text_to_image` chat template).
 *
 *   onnx/prepare_inputs_embeds.onnx  input_ids, pixel_values, images_seq_mask, images_emb_mask → inputs_embeds [B,S,H]
 *   onnx/language_model.onnx         inputs_embeds, attention_mask, position_ids, past_key_values.0.{key,value}
 *                                    → hidden_states [B,S,H], present.0.{key,value}
 *   onnx/lm_head.onnx                hidden_states → logits [B,S,V_text]
 *   onnx/gen_head.onnx               hidden_states → logits [B,S,K] (K image codes)
 *   onnx/gen_img_embeds.onnx         image_ids [B,S] → inputs_embeds [B,S,H]
 *   onnx/image_decode.onnx           generated_tokens [B,N] → decoded_image [B,3,SIDE,SIDE] in [-1, 1]
 *
 * The made-up "knowledge": the image codebook is the stand-in colour palette
 * (colours.ts). Colour words embed as one-hot colour directions; the language
 * model's "attention" is the attention-masked sum of every cached value (the
 * cache is where the prompt lives after the first step), so the conditional
 * row of the guided batch votes for the prompt's colours and the unconditional
 * row (prompt masked out) does not. Each chosen code feeds a little of its own
 * colour back, so a prompt without colour words still gives a coherent,
 * seed-dependent mosaic. N = GRID² codes make a GRID×GRID grid, decoded by
 * bilinear upsampling to SIDE×SIDE with a soft shading so it looks like a picture.
 * "a red apple" therefore comes out red, "red and blue" a mix of both.
 *
 * Heads and head size are fixed numbers: transformers.js fills only a
 * dimension named `batch_size` when it builds the empty cache.
 */
import { GraphBuilder } from './onnx/graphBuilder.js';
import { COLOURS, COLOUR_WORDS, colourIndex } from './colours.js';
import type { StandinFiles } from './embedder.js';
import { buildByteLevelBpe, type BuiltTokenizer } from './tokenizer.js';

/** Image codes per picture (GRID × GRID) and the decoded picture's side. */
export const JANUS_STANDIN = { grid: 4, side: 64 } as const;

const HEADS = 2;
const HEAD_DIM = 8;
const HIDDEN = HEADS * HEAD_DIM;
/** Logit weight of one colour vote; classifier-free guidance (scale 5) multiplies it. */
const STEP = 3;
/** Weight of an already chosen code's colour on the next ones. */
const FEEDBACK = 0.5;

const BOS = '<｜begin▁of▁sentence｜>';
const EOS = '<｜end▁of▁sentence｜>';
const PAD = '<｜▁pad▁｜>';
const IMAGE_TAG = '<image_placeholder>';
const IMAGE_START = '<begin_of_image>';
const IMAGE_END = '<end_of_image>';
const USER = '<|User|>';
const ASSISTANT = '<|Assistant|>';

/** Janus's generation prompt format ("<|User|>: …\n\n<|Assistant|>:<begin_of_image>"). */
const TEXT_TO_IMAGE_TEMPLATE =
  "{%- for message in messages -%}{{ message['role'] + ': ' + message['content'] | trim }}{{ '\\n\\n' }}{%- endfor -%}" +
  `${ASSISTANT}:${IMAGE_START}`;
const DEFAULT_TEMPLATE =
  "{{ bos_token }}{%- for message in messages -%}{{ message['role'] + ': ' + message['content'] | trim }}{{ '\\n\\n' }}{%- endfor -%}" +
  `{%- if add_generation_prompt -%}${ASSISTANT}:{%- endif -%}`;

/** Image codes: the codebook is the palette. */
const CODES = COLOURS.length;
const CODES_PER_IMAGE = JANUS_STANDIN.grid ** 2;

function janusTokenizer(): BuiltTokenizer {
  return buildByteLevelBpe({
    pieces: COLOUR_WORDS.map((word) => ' ' + word),
    specials: [BOS, EOS, PAD, IMAGE_TAG, IMAGE_START, IMAGE_END, USER, ASSISTANT],
    addPrefixSpace: true,
    lowercase: true,
  });
}

/** prepare_inputs_embeds: token → colour direction (zero for every other token). */
function prepareInputsEmbeds(tok: BuiltTokenizer): Uint8Array {
  const vocabSize = tok.vocab.size;
  const textEmbed = new Float32Array(vocabSize * HIDDEN);
  for (const word of COLOUR_WORDS) textEmbed[tok.idOf(' ' + word) * HIDDEN + colourIndex(word)] = 1;
  const graph = new GraphBuilder('prepare_inputs_embeds');
  const ids = graph.input('input_ids', 'int64', ['batch_size', 'sequence_length']);
  // Declared like the real graph (understanding path); text-to-image gives no image, so they are unused here.
  graph.input('pixel_values', 'float32', ['num_batches', 'num_images', 3, 384, 384]);
  graph.input('images_seq_mask', 'bool', ['mask_batch_size', 'mask_sequence_length']);
  graph.input('images_emb_mask', 'bool', ['emb_batch_size', 'emb_num_images', 'num_image_tokens']);
  const embeds = graph.op('Gather', [graph.floatTensor(textEmbed, [vocabSize, HIDDEN]), ids], { axis: 0 });
  graph.output(embeds, 'inputs_embeds', 'float32', ['batch_size', 'sequence_length', HIDDEN]);
  return graph.toModel({ docString: 'stand-in janus prepare_inputs_embeds (colour words)' });
}

/** language_model: cache the new embeddings, answer the mask-weighted sum of the whole cache. */
function languageModel(): Uint8Array {
  const graph = new GraphBuilder('language_model');
  const embeds = graph.input('inputs_embeds', 'float32', ['batch_size', 'sequence_length', HIDDEN]);
  const mask = graph.input('attention_mask', 'int64', ['batch_size', 'total_sequence_length']);
  graph.input('position_ids', 'int64', ['batch_size', 'sequence_length']);
  const pastDims = ['batch_size', HEADS, 'past_sequence_length', HEAD_DIM];
  const pastKey = graph.input('past_key_values.0.key', 'float32', pastDims);
  const pastValue = graph.input('past_key_values.0.value', 'float32', pastDims);
  const heads = graph.op('Transpose', [graph.op('Reshape', [embeds, graph.int64Tensor([0, 0, HEADS, HEAD_DIM])])], {
    perm: [0, 2, 1, 3],
  }); // [B,H,S,Dh]
  const presentKey = graph.op('Concat', [pastKey, heads], { axis: 2 });
  const presentValue = graph.op('Concat', [pastValue, heads], { axis: 2 });
  const weights = graph.op('Unsqueeze', [graph.op('Cast', [mask], { to: 1 }), graph.int64Tensor([1, 3])]); // [B,1,T,1]
  const weighted = graph.op('Mul', [presentValue, weights]);
  const summed = graph.op('ReduceSum', [weighted, graph.int64Tensor([2])], { keepdims: 0 }); // [B,H,Dh]
  const pooled = graph.op('Reshape', [summed, graph.int64Tensor([0, 1, HIDDEN])]); // [B,1,HIDDEN]
  // The same state at every position: [B,S,HIDDEN].
  const hidden = graph.op('Add', [graph.op('Mul', [embeds, graph.scalar(0)]), pooled]);
  graph.output(hidden, 'hidden_states', 'float32', ['batch_size', 'sequence_length', HIDDEN]);
  const presentDims = ['batch_size', HEADS, 'total_sequence_length', HEAD_DIM];
  graph.output(presentKey, 'present.0.key', 'float32', presentDims);
  graph.output(presentValue, 'present.0.value', 'float32', presentDims);
  return graph.toModel({ docString: 'stand-in janus language model (masked cache sum)' });
}

/** lm_head and gen_head: hidden state → logits, one matrix and a bias. */
function headModel(name: string, weight: Float32Array, bias: Float32Array, width: number): Uint8Array {
  const graph = new GraphBuilder(name);
  const hidden = graph.input('hidden_states', 'float32', ['batch_size', 'sequence_length', HIDDEN]);
  const logits = graph.op('Add', [
    graph.op('MatMul', [hidden, graph.floatTensor(weight, [HIDDEN, width])]),
    graph.floatTensor(bias, [width]),
  ]);
  graph.output(logits, 'logits', 'float32', ['batch_size', 'sequence_length', width]);
  return graph.toModel({ docString: `stand-in janus ${name}` });
}

/** Text mode just ends: the lm head votes for EOS alone. */
function lmHead(tok: BuiltTokenizer): Uint8Array {
  const vocabSize = tok.vocab.size;
  const bias = new Float32Array(vocabSize);
  bias[tok.vocab.get(EOS)!] = STEP;
  return headModel('lm_head', new Float32Array(HIDDEN * vocabSize), bias, vocabSize);
}

/** The gen head votes for the colour each hidden direction stands for. */
function genHead(): Uint8Array {
  const weight = new Float32Array(HIDDEN * CODES);
  for (let colour = 0; colour < COLOURS.length; colour++) weight[colour * CODES + colour] = STEP;
  return headModel('gen_head', weight, new Float32Array(CODES), CODES);
}

/** gen_img_embeds: a chosen code leans the next ones toward its colour. */
function genImgEmbeds(): Uint8Array {
  const imageEmbed = new Float32Array(CODES * HIDDEN);
  for (let code = 0; code < CODES; code++) imageEmbed[code * HIDDEN + code] = FEEDBACK;
  const graph = new GraphBuilder('gen_img_embeds');
  const imageIds = graph.input('image_ids', 'int64', ['batch_size', 'sequence_length']);
  graph.output(
    graph.op('Gather', [graph.floatTensor(imageEmbed, [CODES, HIDDEN]), imageIds], { axis: 0 }),
    'inputs_embeds',
    'float32',
    ['batch_size', 'sequence_length', HIDDEN],
  );
  return graph.toModel({ docString: 'stand-in janus gen_img_embeds (colour feedback)' });
}

/** A gentle light over the picture, per channel. */
function shading(side: number): Float32Array {
  const shade = new Float32Array(3 * side * side);
  for (let ch = 0; ch < 3; ch++) {
    for (let y = 0; y < side; y++) {
      for (let x = 0; x < side; x++) shade[(ch * side + y) * side + x] = 0.06 * Math.cos((Math.PI * (x + y)) / side);
    }
  }
  return shade;
}

/** image_decode: codes → palette colours on a grid → bilinear upsampling, shading, [-1, 1]. */
function imageDecode(): Uint8Array {
  const { grid, side } = JANUS_STANDIN;
  const palette = new Float32Array(CODES * 3);
  COLOURS.forEach((colour, code) => palette.set(colour.rgb, code * 3));
  const graph = new GraphBuilder('image_decode');
  const tokens = graph.input('generated_tokens', 'int64', ['batch_size', CODES_PER_IMAGE]);
  const colours = graph.op('Gather', [graph.floatTensor(palette, [CODES, 3]), tokens], { axis: 0 }); // [B,N,3]
  const gridded = graph.op('Transpose', [graph.op('Reshape', [colours, graph.int64Tensor([0, grid, grid, 3])])], {
    perm: [0, 3, 1, 2],
  }); // [B,3,g,g]
  const scale = side / grid;
  const up = graph.op('Resize', [gridded, '', graph.floatTensor([1, 1, scale, scale], [4])], {
    mode: 'linear',
    coordinate_transformation_mode: 'half_pixel',
  });
  const lit = graph.op('Add', [up, graph.floatTensor(shading(side), [1, 3, side, side])]);
  const signed = graph.op('Sub', [graph.op('Mul', [lit, graph.scalar(2)]), graph.scalar(1)]);
  graph.output(signed, 'decoded_image', 'float32', ['batch_size', 3, side, side]);
  return graph.toModel({ docString: 'stand-in janus image decoder (palette grid)' });
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

function janusConfig(vocabSize: number): string {
  return json({
    architectures: ['MultiModalityCausalLM'],
    model_type: 'multi_modality',
    language_config: {
      model_type: 'llama',
      hidden_size: HIDDEN,
      intermediate_size: HIDDEN,
      num_attention_heads: HEADS,
      num_key_value_heads: HEADS,
      head_dim: HEAD_DIM,
      num_hidden_layers: 1,
      max_position_embeddings: 1024,
      vocab_size: vocabSize,
    },
    gen_head_config: {
      cls: 'vision_head',
      model_type: 'gen_head',
      params: { image_token_embed: HIDDEN, image_token_size: CODES, n_embed: HIDDEN },
    },
    gen_vision_config: { cls: 'VQ-16', model_type: 'gen_vision', params: { image_token_size: CODES, n_embed: 3 } },
    gen_aligner_config: {
      cls: 'MlpProjector',
      model_type: 'gen_aligner',
      params: { depth: 1, input_dim: 3, n_embed: HIDDEN, projector_type: 'mlp_gelu' },
    },
  });
}

/** The JSON files: model, generation, processor and tokenizer configurations, and the tokenizer. */
function janusJsonFiles(tok: BuiltTokenizer): StandinFiles {
  const files: StandinFiles = new Map();
  const bos = tok.vocab.get(BOS)!;
  const eos = tok.vocab.get(EOS)!;
  const pad = tok.vocab.get(PAD)!;
  files.set('config.json', janusConfig(tok.vocab.size));
  files.set(
    'generation_config.json',
    json({ bos_token_id: bos, eos_token_id: eos, pad_token_id: pad, guidance_scale: 5, temperature: 1 }),
  );
  files.set(
    'preprocessor_config.json',
    json({
      image_processor_type: 'VLMImageProcessor',
      processor_class: 'VLChatProcessor',
      image_size: 384,
      min_size: 14,
      background_color: [127, 127, 127],
      do_normalize: true,
      image_mean: [0.5, 0.5, 0.5],
      image_std: [0.5, 0.5, 0.5],
      rescale_factor: 1 / 255,
    }),
  );
  files.set(
    'processor_config.json',
    json({
      processor_class: 'VLChatProcessor',
      image_tag: IMAGE_TAG,
      image_start_tag: IMAGE_START,
      image_end_tag: IMAGE_END,
      num_image_tokens: CODES_PER_IMAGE,
      add_special_token: false,
      sft_format: 'deepseek',
    }),
  );
  files.set('tokenizer.json', JSON.stringify(tok.json));
  files.set(
    'tokenizer_config.json',
    json({
      tokenizer_class: 'LlamaTokenizer',
      bos_token: BOS,
      eos_token: EOS,
      pad_token: PAD,
      unk_token: null,
      add_bos_token: false,
      model_max_length: 1024,
      chat_template: [
        { name: 'default', template: DEFAULT_TEMPLATE },
        { name: 'text_to_image', template: TEXT_TO_IMAGE_TEMPLATE },
      ],
    }),
  );
  return files;
}

export function janusStandinFiles(): StandinFiles {
  const tok = janusTokenizer();
  const files = janusJsonFiles(tok);
  files.set('onnx/prepare_inputs_embeds.onnx', prepareInputsEmbeds(tok));
  files.set('onnx/language_model.onnx', languageModel());
  files.set('onnx/lm_head.onnx', lmHead(tok));
  files.set('onnx/gen_head.onnx', genHead());
  files.set('onnx/gen_img_embeds.onnx', genImgEmbeds());
  files.set('onnx/image_decode.onnx', imageDecode());
  return files;
}
