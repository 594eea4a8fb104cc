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
import { buildByteLevelBpe } from './tokenizer.js';

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

export function janusStandinFiles(): StandinFiles {
  const C = COLOURS.length;
  const K = C; // image codebook = the palette
  const N = JANUS_STANDIN.grid ** 2;
  const tok = buildByteLevelBpe({
    pieces: COLOUR_WORDS.map((w) => ' ' + w),
    specials: [BOS, EOS, PAD, IMAGE_TAG, IMAGE_START, IMAGE_END, USER, ASSISTANT],
    addPrefixSpace: true,
    lowercase: true,
  });
  const V = tok.vocab.size;

  // ---- prepare_inputs_embeds: token → colour direction (zero for every other token)
  const textEmbed = new Float32Array(V * HIDDEN);
  for (const word of COLOUR_WORDS) textEmbed[tok.idOf(' ' + word) * HIDDEN + colourIndex(word)] = 1;
  const p = new GraphBuilder('prepare_inputs_embeds');
  const ids = p.input('input_ids', 'int64', ['batch_size', 'sequence_length']);
  // Declared like the real graph (understanding path); text-to-image gives no image, so they are unused here.
  p.input('pixel_values', 'float32', ['num_batches', 'num_images', 3, 384, 384]);
  p.input('images_seq_mask', 'bool', ['mask_batch_size', 'mask_sequence_length']);
  p.input('images_emb_mask', 'bool', ['emb_batch_size', 'emb_num_images', 'num_image_tokens']);
  p.output(p.op('Gather', [p.floatTensor(textEmbed, [V, HIDDEN]), ids], { axis: 0 }), 'inputs_embeds', 'float32', [
    'batch_size',
    'sequence_length',
    HIDDEN,
  ]);

  // ---- language_model: cache the new embeddings, answer the mask-weighted sum of the whole cache
  const l = new GraphBuilder('language_model');
  const embeds = l.input('inputs_embeds', 'float32', ['batch_size', 'sequence_length', HIDDEN]);
  const mask = l.input('attention_mask', 'int64', ['batch_size', 'total_sequence_length']);
  l.input('position_ids', 'int64', ['batch_size', 'sequence_length']);
  const pastDims = ['batch_size', HEADS, 'past_sequence_length', HEAD_DIM];
  const pastKey = l.input('past_key_values.0.key', 'float32', pastDims);
  const pastValue = l.input('past_key_values.0.value', 'float32', pastDims);
  const heads = l.op('Transpose', [l.op('Reshape', [embeds, l.int64Tensor([0, 0, HEADS, HEAD_DIM])])], {
    perm: [0, 2, 1, 3],
  }); // [B,H,S,Dh]
  const presentKey = l.op('Concat', [pastKey, heads], { axis: 2 });
  const presentValue = l.op('Concat', [pastValue, heads], { axis: 2 });
  const weights = l.op('Unsqueeze', [l.op('Cast', [mask], { to: 1 }), l.int64Tensor([1, 3])]); // [B,1,T,1]
  const summed = l.op('ReduceSum', [l.op('Mul', [presentValue, weights]), l.int64Tensor([2])], { keepdims: 0 }); // [B,H,Dh]
  const pooled = l.op('Reshape', [summed, l.int64Tensor([0, 1, HIDDEN])]); // [B,1,HIDDEN]
  const hidden = l.op('Add', [l.op('Mul', [embeds, l.scalar(0)]), pooled]); // the same state at every position: [B,S,HIDDEN]
  l.output(hidden, 'hidden_states', 'float32', ['batch_size', 'sequence_length', HIDDEN]);
  const presentDims = ['batch_size', HEADS, 'total_sequence_length', HEAD_DIM];
  l.output(presentKey, 'present.0.key', 'float32', presentDims);
  l.output(presentValue, 'present.0.value', 'float32', presentDims);

  // ---- heads
  const head = (name: string, weight: Float32Array, bias: Float32Array, width: number) => {
    const g = new GraphBuilder(name);
    const h = g.input('hidden_states', 'float32', ['batch_size', 'sequence_length', HIDDEN]);
    const logits = g.op('Add', [
      g.op('MatMul', [h, g.floatTensor(weight, [HIDDEN, width])]),
      g.floatTensor(bias, [width]),
    ]);
    g.output(logits, 'logits', 'float32', ['batch_size', 'sequence_length', width]);
    return g.toModel({ docString: `stand-in janus ${name}` });
  };
  const genWeight = new Float32Array(HIDDEN * K);
  for (let c = 0; c < C; c++) genWeight[c * K + c] = STEP;
  const lmBias = new Float32Array(V);
  lmBias[tok.vocab.get(EOS)!] = STEP; // text mode just ends

  // ---- gen_img_embeds: a chosen code leans the next ones toward its colour
  const imageEmbed = new Float32Array(K * HIDDEN);
  for (let k = 0; k < K; k++) imageEmbed[k * HIDDEN + k] = FEEDBACK;
  const e = new GraphBuilder('gen_img_embeds');
  const imageIds = e.input('image_ids', 'int64', ['batch_size', 'sequence_length']);
  e.output(
    e.op('Gather', [e.floatTensor(imageEmbed, [K, HIDDEN]), imageIds], { axis: 0 }),
    'inputs_embeds',
    'float32',
    ['batch_size', 'sequence_length', HIDDEN],
  );

  // ---- image_decode: codes → palette colours on a grid → bilinear upsampling, shading, [-1, 1]
  const { grid, side } = JANUS_STANDIN;
  const palette = new Float32Array(K * 3);
  COLOURS.forEach((c, k) => palette.set(c.rgb, k * 3));
  const shade = new Float32Array(3 * side * side);
  for (let ch = 0; ch < 3; ch++) {
    for (let y = 0; y < side; y++) {
      for (let x = 0; x < side; x++) shade[(ch * side + y) * side + x] = 0.06 * Math.cos((Math.PI * (x + y)) / side); // gentle light
    }
  }
  const d = new GraphBuilder('image_decode');
  const tokens = d.input('generated_tokens', 'int64', ['batch_size', N]);
  const colours = d.op('Gather', [d.floatTensor(palette, [K, 3]), tokens], { axis: 0 }); // [B,N,3]
  const gridded = d.op('Transpose', [d.op('Reshape', [colours, d.int64Tensor([0, grid, grid, 3])])], {
    perm: [0, 3, 1, 2],
  }); // [B,3,g,g]
  const scale = side / grid;
  const up = d.op('Resize', [gridded, '', d.floatTensor([1, 1, scale, scale], [4])], {
    mode: 'linear',
    coordinate_transformation_mode: 'half_pixel',
  });
  const lit = d.op('Add', [up, d.floatTensor(shade, [1, 3, side, side])]);
  const signed = d.op('Sub', [d.op('Mul', [lit, d.scalar(2)]), d.scalar(1)]);
  d.output(signed, 'decoded_image', 'float32', ['batch_size', 3, side, side]);

  const json = (o: unknown) => JSON.stringify(o, null, 2);
  const files: StandinFiles = new Map();
  const bos = tok.vocab.get(BOS)!;
  const eos = tok.vocab.get(EOS)!;
  const pad = tok.vocab.get(PAD)!;
  files.set(
    'config.json',
    json({
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
        vocab_size: V,
      },
      gen_head_config: {
        cls: 'vision_head',
        model_type: 'gen_head',
        params: { image_token_embed: HIDDEN, image_token_size: K, n_embed: HIDDEN },
      },
      gen_vision_config: { cls: 'VQ-16', model_type: 'gen_vision', params: { image_token_size: K, n_embed: 3 } },
      gen_aligner_config: {
        cls: 'MlpProjector',
        model_type: 'gen_aligner',
        params: { depth: 1, input_dim: 3, n_embed: HIDDEN, projector_type: 'mlp_gelu' },
      },
    }),
  );
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
      num_image_tokens: N,
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
  files.set(
    'onnx/prepare_inputs_embeds.onnx',
    p.toModel({ docString: 'stand-in janus prepare_inputs_embeds (colour words)' }),
  );
  files.set('onnx/language_model.onnx', l.toModel({ docString: 'stand-in janus language model (masked cache sum)' }));
  files.set('onnx/lm_head.onnx', head('lm_head', new Float32Array(HIDDEN * V), lmBias, V));
  files.set('onnx/gen_head.onnx', head('gen_head', genWeight, new Float32Array(K), K));
  files.set('onnx/gen_img_embeds.onnx', e.toModel({ docString: 'stand-in janus gen_img_embeds (colour feedback)' }));
  files.set('onnx/image_decode.onnx', d.toModel({ docString: 'stand-in janus image decoder (palette grid)' }));
  return files;
}
