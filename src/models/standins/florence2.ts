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
import { CAPTION_PIECES, chainWeights, zeroCache } from './captionChain.js';
import { COLOURS, colourHistogram } from './colours.js';
import type { StandinFiles } from './embedder.js';
import { buildByteLevelBpe } from './tokenizer.js';

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

export function florence2StandinFiles(): StandinFiles {
  const C = COLOURS.length;
  const tok = buildByteLevelBpe({
    pieces: CAPTION_PIECES,
    specials: ['<s>', '<pad>', '</s>', '<unk>'],
    addPrefixSpace: false,
    lowercase: false,
    wrap: { before: '<s>', after: '</s>' },
  });
  const V = tok.vocab.size;
  const E = V + C; // one-hot token part, then the colour histogram part
  const id = (t: string) => tok.idOf(t);
  const chain = chainWeights(tok, '</s>', '</s>', ['<s>']);

  // ---- vision encoder: histogram placed in dims V..V+C of one feature token
  const vis = new GraphBuilder('vision_encoder');
  const pixels = vis.input('pixel_values', 'float32', ['batch_size', 3, SIDE, SIDE]);
  const hist = vis.op('Reshape', [colourHistogram(vis, pixels, MEAN, STD), vis.int64Tensor([0, 1, C])]);
  const place = new Float32Array(C * E);
  for (let c = 0; c < C; c++) place[c * E + V + c] = 1;
  vis.output(vis.op('MatMul', [hist, vis.floatTensor(place, [C, E])]), 'image_features', 'float32', [
    'batch_size',
    1,
    E,
  ]);

  // ---- token embeddings: one-hot
  const emb = new GraphBuilder('embed_tokens');
  const ids = emb.input('input_ids', 'int64', ['batch_size', 'sequence_length']);
  const eye = new Float32Array(V * E);
  for (let i = 0; i < V; i++) eye[i * E + i] = 1;
  emb.output(emb.op('Gather', [emb.floatTensor(eye, [V, E]), ids], { axis: 0 }), 'inputs_embeds', 'float32', [
    'batch_size',
    'sequence_length',
    E,
  ]);

  // ---- text encoder: identity (the decoder reads the histogram straight from it)
  const encG = new GraphBuilder('encoder_model');
  const encIn = encG.input('inputs_embeds', 'float32', ['batch_size', 'encoder_sequence_length', E]);
  encG.input('attention_mask', 'int64', ['batch_size', 'encoder_sequence_length']);
  encG.output(encIn, 'last_hidden_state', 'float32', ['batch_size', 'encoder_sequence_length', E]);

  // ---- decoder
  const d = new GraphBuilder('decoder_model_merged');
  const x = d.input('inputs_embeds', 'float32', ['batch_size', 'decoder_sequence_length', E]);
  d.input('encoder_attention_mask', 'int64', ['batch_size', 'encoder_sequence_length']);
  const enc = d.input('encoder_hidden_states', 'float32', ['batch_size', 'encoder_sequence_length', E]);
  const past = (kind: string, part: string) =>
    d.input(`past_key_values.0.${kind}.${part}`, 'float32', [
      'batch_size',
      HEADS,
      `past_${kind}_sequence_length`,
      HEAD_DIM,
    ]);
  const pastDecoder = { key: past('decoder', 'key'), value: past('decoder', 'value') };
  past('encoder', 'key');
  past('encoder', 'value');
  d.input('use_cache_branch', 'bool', [1]);

  const transitions = new Float32Array(E * V); // rows V..E (colour dims) stay zero
  transitions.set(chain.transitions);
  const base = d.op('MatMul', [x, d.floatTensor(transitions, [E, V])]); // [B,S,V]
  const colourWeight = new Float32Array(E * V);
  colourWeight.set(chain.colourWeight, V * V); // histogram rows
  const colourSum = d.op('ReduceSum', [enc, d.int64Tensor([1])], { keepdims: 1 }); // [B,1,E]
  const colourLogits = d.op('Add', [
    d.op('MatMul', [colourSum, d.floatTensor(colourWeight, [E, V])]),
    d.floatTensor(chain.colourBias, [V]),
  ]);
  const afterA = d.op('Gather', [x, d.int64Tensor([chain.trigger], [])], { axis: 2 }); // [B,S]
  const logits = d.op('Add', [base, d.op('Mul', [d.op('Unsqueeze', [afterA, d.int64Tensor([2])]), colourLogits])]);
  d.output(logits, 'logits', 'float32', ['batch_size', 'decoder_sequence_length', V]);
  const decDims = ['batch_size', HEADS, 'present_decoder_sequence_length', HEAD_DIM];
  d.output(zeroCache(d, pastDecoder.key, afterA, HEADS, HEAD_DIM), 'present.0.decoder.key', 'float32', decDims);
  d.output(zeroCache(d, pastDecoder.value, afterA, HEADS, HEAD_DIM), 'present.0.decoder.value', 'float32', decDims);
  // The encoder cache is computed once, at the first step; later steps reuse the past one.
  const encPositions = d.op('ReduceSum', [enc, d.int64Tensor([2])], { keepdims: 0 }); // [B,N]
  const encDims = ['batch_size', HEADS, 'encoder_sequence_length_out', HEAD_DIM];
  d.output(zeroCache(d, null, encPositions, HEADS, HEAD_DIM), 'present.0.encoder.key', 'float32', encDims);
  d.output(zeroCache(d, null, encPositions, HEADS, HEAD_DIM), 'present.0.encoder.value', 'float32', encDims);

  const special = {
    bos_token_id: id('<s>'),
    pad_token_id: id('<pad>'),
    eos_token_id: id('</s>'),
    decoder_start_token_id: id('</s>'),
  };
  const json = (o: unknown) => JSON.stringify(o, null, 2);
  const files: StandinFiles = new Map();
  files.set(
    'config.json',
    json({
      architectures: ['Florence2ForConditionalGeneration'],
      model_type: 'florence2',
      is_encoder_decoder: true,
      ...special,
      projection_dim: E,
      text_config: {
        model_type: 'florence2_language',
        is_encoder_decoder: true,
        d_model: E,
        encoder_layers: 1,
        decoder_layers: 1,
        encoder_attention_heads: HEADS,
        decoder_attention_heads: HEADS,
        vocab_size: V,
        ...special,
      },
      vision_config: { model_type: 'davit', projection_dim: E },
    }),
  );
  files.set('generation_config.json', json({ ...special, max_length: 64 }));
  files.set(
    'preprocessor_config.json',
    json({
      processor_class: 'Florence2Processor',
      image_processor_type: 'CLIPImageProcessor',
      do_resize: true,
      size: { height: SIDE, width: SIDE },
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
  files.set(
    'onnx/vision_encoder.onnx',
    vis.toModel({ docString: 'stand-in Florence-2 vision encoder (colour histogram)' }),
  );
  files.set('onnx/embed_tokens.onnx', emb.toModel({ docString: 'stand-in Florence-2 token embeddings (one-hot)' }));
  files.set('onnx/encoder_model.onnx', encG.toModel({ docString: 'stand-in Florence-2 text encoder (identity)' }));
  files.set(
    'onnx/decoder_model_merged.onnx',
    d.toModel({ docString: 'stand-in Florence-2 decoder (colour caption chain)' }),
  );
  return files;
}
