/**
 * A Florence-2-shaped stand-in (the layout of onnx-community/Florence-2-base-ft),
 * run by Florence2ForConditionalGeneration and Florence2Processor: task
 * prompts, image features merged before the text encoder, a merged decoder with
 * decoder and encoder key/value caches, post_process_generation.
 *
 *   onnx/vision_encoder.onnx        pixel_values [B,3,S,S] → image_features [B,1,E]  (colour histogram in dims V..V+C)
 *   onnx/embed_tokens.onnx          input_ids [B,T]        → inputs_embeds [B,T,E]   (one-hot in dims 0..V)
 *   onnx/encoder_model.onnx         inputs_embeds, attention_mask → last_hidden_state (identity)
 *   onnx/decoder_model_merged.onnx  inputs_embeds, encoder_attention_mask, encoder_hidden_states,
 *                                   past_key_values.0.{decoder,encoder}.{key,value}, use_cache_branch
 *                                   → logits, present.0.{decoder,encoder}.{key,value}
 *
 * It answers every text task with "a photo of a <colour> thing". The real
 * processor resizes to 768 px; the stand-in says 224 to keep tests fast (the
 * code path is the same).
 */
import { GraphBuilder } from './onnx/graphBuilder.js';
import { CAPTION_PIECES, chainWeights, zeroCache, type ChainWeights } from './captionChain.js';
import { COLOURS, colourHistogram } from './colours.js';
import type { StandinFiles } from './embedder.js';
import { buildByteLevelBpe, type BuiltTokenizer } from './tokenizer.js';

const HEADS = 2;
const HEAD_DIM = 4;
const SIDE = 224;
const MEAN = [0.485, 0.456, 0.406];
const STD = [0.229, 0.224, 0.225];

const TASKS_WITHOUT_INPUT: Record<string, string> = {
  '<CAPTION>': 'What does the image describe?',
  '<DETAILED_CAPTION>': 'Describe in detail what is shown in the image.',
  '<MORE_DETAILED_CAPTION>': 'Describe with a paragraph what is shown in the image.',
  '<OCR>': 'What is the text in the image?',
  '<OD>': 'Locate the objects with category name in the image.',
};
const POST_PROCESSING: Record<string, string> = {
  '<CAPTION>': 'pure_text',
  '<DETAILED_CAPTION>': 'pure_text',
  '<MORE_DETAILED_CAPTION>': 'pure_text',
  '<OCR>': 'pure_text',
  '<OD>': 'description_with_bboxes',
};

const COLOUR_COUNT = COLOURS.length;

/**
 * The sizes of the embedding space: `vocab` one-hot token dims, then the
 * colour histogram's dims (`width` = vocab + colours).
 */
interface Dims {
  vocab: number;
  width: number;
}

/** Bench only (scripts/bench/standins): a larger input side and work added to each graph without changing its answer. */
export interface Florence2StandinOptions {
  /** The processor's and vision encoder's image side (default 224; the real model's is 768). */
  side?: number;
  /** Given a graph, its main input and its output value, returns the value to output instead. */
  cost?: (g: GraphBuilder, part: 'vision' | 'encoder' | 'decoder', input: string, output: string) => string;
}

/** vision_encoder: the histogram placed in dims vocab..vocab+colours of one feature token. */
function visionEncoder({ vocab, width }: Dims, opts: Florence2StandinOptions): Uint8Array {
  const graph = new GraphBuilder('vision_encoder');
  const side = opts.side ?? SIDE;
  const pixels = graph.input('pixel_values', 'float32', ['batch_size', 3, side, side]);
  const hist = graph.op('Reshape', [
    colourHistogram(graph, pixels, MEAN, STD),
    graph.int64Tensor([0, 1, COLOUR_COUNT]),
  ]);
  const place = new Float32Array(COLOUR_COUNT * width);
  for (let colour = 0; colour < COLOUR_COUNT; colour++) place[colour * width + vocab + colour] = 1;
  const features = graph.op('MatMul', [hist, graph.floatTensor(place, [COLOUR_COUNT, width])]);
  graph.output(opts.cost?.(graph, 'vision', pixels, features) ?? features, 'image_features', 'float32', [
    'batch_size',
    1,
    width,
  ]);
  return graph.toModel({ docString: 'stand-in Florence-2 vision encoder (colour histogram)' });
}

/** embed_tokens: one-hot. */
function embedTokens({ vocab, width }: Dims): Uint8Array {
  const graph = new GraphBuilder('embed_tokens');
  const ids = graph.input('input_ids', 'int64', ['batch_size', 'sequence_length']);
  const eye = new Float32Array(vocab * width);
  for (let i = 0; i < vocab; i++) eye[i * width + i] = 1;
  graph.output(
    graph.op('Gather', [graph.floatTensor(eye, [vocab, width]), ids], { axis: 0 }),
    'inputs_embeds',
    'float32',
    ['batch_size', 'sequence_length', width],
  );
  return graph.toModel({ docString: 'stand-in Florence-2 token embeddings (one-hot)' });
}

/** encoder_model: identity (the decoder reads the histogram straight from it). */
function textEncoder({ width }: Dims, opts: Florence2StandinOptions): Uint8Array {
  const graph = new GraphBuilder('encoder_model');
  const embeds = graph.input('inputs_embeds', 'float32', ['batch_size', 'encoder_sequence_length', width]);
  graph.input('attention_mask', 'int64', ['batch_size', 'encoder_sequence_length']);
  graph.output(opts.cost?.(graph, 'encoder', embeds, embeds) ?? embeds, 'last_hidden_state', 'float32', [
    'batch_size',
    'encoder_sequence_length',
    width,
  ]);
  return graph.toModel({ docString: 'stand-in Florence-2 text encoder (identity)' });
}

/** decoder_model_merged: the caption chain, with decoder and encoder caches of zeros. */
function decoder({ vocab, width }: Dims, chain: ChainWeights, opts: Florence2StandinOptions): Uint8Array {
  const graph = new GraphBuilder('decoder_model_merged');
  const embeds = graph.input('inputs_embeds', 'float32', ['batch_size', 'decoder_sequence_length', width]);
  graph.input('encoder_attention_mask', 'int64', ['batch_size', 'encoder_sequence_length']);
  const enc = graph.input('encoder_hidden_states', 'float32', ['batch_size', 'encoder_sequence_length', width]);
  const past = (kind: string, part: string) =>
    graph.input(`past_key_values.0.${kind}.${part}`, 'float32', [
      'batch_size',
      HEADS,
      `past_${kind}_sequence_length`,
      HEAD_DIM,
    ]);
  const pastDecoder = { key: past('decoder', 'key'), value: past('decoder', 'value') };
  past('encoder', 'key');
  past('encoder', 'value');
  graph.input('use_cache_branch', 'bool', [1]);

  const transitions = new Float32Array(width * vocab); // rows vocab..width (colour dims) stay zero
  transitions.set(chain.transitions);
  const base = graph.op('MatMul', [embeds, graph.floatTensor(transitions, [width, vocab])]); // [B,S,V]
  const colourWeight = new Float32Array(width * vocab);
  colourWeight.set(chain.colourWeight, vocab * vocab); // histogram rows
  const colourSum = graph.op('ReduceSum', [enc, graph.int64Tensor([1])], { keepdims: 1 }); // [B,1,E]
  const colourLogits = graph.op('Add', [
    graph.op('MatMul', [colourSum, graph.floatTensor(colourWeight, [width, vocab])]),
    graph.floatTensor(chain.colourBias, [vocab]),
  ]);
  const afterA = graph.op('Gather', [embeds, graph.int64Tensor([chain.trigger], [])], { axis: 2 }); // [B,S]
  const gate = graph.op('Unsqueeze', [afterA, graph.int64Tensor([2])]);
  const logits = graph.op('Add', [base, graph.op('Mul', [gate, colourLogits])]);
  graph.output(opts.cost?.(graph, 'decoder', embeds, logits) ?? logits, 'logits', 'float32', [
    'batch_size',
    'decoder_sequence_length',
    vocab,
  ]);
  const decDims = ['batch_size', HEADS, 'present_decoder_sequence_length', HEAD_DIM];
  graph.output(zeroCache(graph, pastDecoder.key, afterA, HEADS, HEAD_DIM), 'present.0.decoder.key', 'float32', decDims);
  graph.output(
    zeroCache(graph, pastDecoder.value, afterA, HEADS, HEAD_DIM),
    'present.0.decoder.value',
    'float32',
    decDims,
  );
  // The encoder cache is computed once, at the first step; later steps reuse the past one.
  const encPositions = graph.op('ReduceSum', [enc, graph.int64Tensor([2])], { keepdims: 0 }); // [B,N]
  const encDims = ['batch_size', HEADS, 'encoder_sequence_length_out', HEAD_DIM];
  graph.output(zeroCache(graph, null, encPositions, HEADS, HEAD_DIM), 'present.0.encoder.key', 'float32', encDims);
  graph.output(zeroCache(graph, null, encPositions, HEADS, HEAD_DIM), 'present.0.encoder.value', 'float32', encDims);
  return graph.toModel({ docString: 'stand-in Florence-2 decoder (colour caption chain)' });
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** The JSON files: model, generation, processor and tokenizer configurations, and the tokenizer. */
function florence2JsonFiles(tok: BuiltTokenizer, { vocab, width }: Dims, side: number): StandinFiles {
  const special = {
    bos_token_id: tok.idOf('<s>'),
    pad_token_id: tok.idOf('<pad>'),
    eos_token_id: tok.idOf('</s>'),
    decoder_start_token_id: tok.idOf('</s>'),
  };
  const files: StandinFiles = new Map();
  files.set(
    'config.json',
    json({
      architectures: ['Florence2ForConditionalGeneration'],
      model_type: 'florence2',
      is_encoder_decoder: true,
      ...special,
      projection_dim: width,
      text_config: {
        model_type: 'florence2_language',
        is_encoder_decoder: true,
        d_model: width,
        encoder_layers: 1,
        decoder_layers: 1,
        encoder_attention_heads: HEADS,
        decoder_attention_heads: HEADS,
        vocab_size: vocab,
        ...special,
      },
      vision_config: { model_type: 'davit', projection_dim: width },
    }),
  );
  files.set('generation_config.json', json({ ...special, max_length: 64 }));
  files.set(
    'preprocessor_config.json',
    json({
      processor_class: 'Florence2Processor',
      image_processor_type: 'CLIPImageProcessor',
      do_resize: true,
      size: { height: side, width: side },
      resample: 3,
      do_center_crop: false,
      do_rescale: true,
      rescale_factor: 1 / 255,
      do_normalize: true,
      image_mean: MEAN,
      image_std: STD,
      image_seq_length: 1,
      tasks_answer_post_processing_type: POST_PROCESSING,
      task_prompts_without_inputs: TASKS_WITHOUT_INPUT,
      task_prompts_with_input: { '<CAPTION_TO_PHRASE_GROUNDING>': 'Locate the phrases in the caption: {input}' },
    }),
  );
  files.set('tokenizer.json', JSON.stringify(tok.json));
  files.set(
    'tokenizer_config.json',
    json({
      tokenizer_class: 'BartTokenizer',
      model_max_length: 1024,
      bos_token: '<s>',
      eos_token: '</s>',
      pad_token: '<pad>',
      unk_token: '<unk>',
      add_prefix_space: false,
    }),
  );
  return files;
}

export function florence2StandinFiles(opts: Florence2StandinOptions = {}): StandinFiles {
  const tok = buildByteLevelBpe({
    pieces: CAPTION_PIECES,
    specials: ['<s>', '<pad>', '</s>', '<unk>'],
    addPrefixSpace: false,
    lowercase: false,
    wrap: { before: '<s>', after: '</s>' },
  });
  // One-hot token part, then the colour histogram part.
  const dims: Dims = { vocab: tok.vocab.size, width: tok.vocab.size + COLOUR_COUNT };
  const files = florence2JsonFiles(tok, dims, opts.side ?? SIDE);
  files.set('onnx/vision_encoder.onnx', visionEncoder(dims, opts));
  files.set('onnx/embed_tokens.onnx', embedTokens(dims));
  files.set('onnx/encoder_model.onnx', textEncoder(dims, opts));
  files.set('onnx/decoder_model_merged.onnx', decoder(dims, chainWeights(tok, '</s>', '</s>', ['<s>']), opts));
  return files;
}
