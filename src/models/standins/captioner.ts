/**
 * A vit-gpt2-shaped stand-in captioner (the layout of
 * Xenova/vit-gpt2-image-captioning): model_type "vision-encoder-decoder" with
 * a ViT encoder and a GPT-2 decoder, run by transformers.js's real generation
 * loop (merged decoder, key/value cache, greedy search, EOS stop).
 *
 *   onnx/encoder_model.onnx         pixel_values [B,3,224,224] → last_hidden_state [B,1,C]
 *   onnx/decoder_model_merged.onnx  input_ids, encoder_hidden_states,
 *                                   past_key_values.0.{key,value}, use_cache_branch
 *                                   → logits [B,S,V], present.0.{key,value}
 *
 * The encoder's single "patch" is the image's colour histogram; the decoder is
 * the shared caption chain (captionChain.ts). Heads and head size are fixed
 * numbers: transformers.js fills only a dimension named `batch_size` when it
 * builds the empty cache.
 */
import { GraphBuilder } from './onnx/graphBuilder.js';
import { CAPTION_PIECES, chainWeights, zeroCache, type ChainWeights } from './captionChain.js';
import { COLOURS, colourHistogram } from './colours.js';
import type { StandinFiles } from './embedder.js';
import { buildByteLevelBpe, type BuiltTokenizer } from './tokenizer.js';

const EOS = '<|endoftext|>';
const HEADS = 2;
const HEAD_DIM = 4;
const MEAN = [0.5, 0.5, 0.5];
const STD = [0.5, 0.5, 0.5];

const COLOUR_COUNT = COLOURS.length;

/** encoder_model: the colour histogram as a one-token hidden state. */
function encoder(): Uint8Array {
  const graph = new GraphBuilder('encoder_model');
  const pixels = graph.input('pixel_values', 'float32', ['batch_size', 3, 224, 224]);
  const hidden = graph.op('Reshape', [
    colourHistogram(graph, pixels, MEAN, STD),
    graph.int64Tensor([0, 1, COLOUR_COUNT]),
  ]);
  graph.output(hidden, 'last_hidden_state', 'float32', ['batch_size', 1, COLOUR_COUNT]);
  return graph.toModel({ docString: 'stand-in vit encoder (colour histogram)' });
}

/** decoder_model_merged: the caption chain, with a key/value cache of zeros. */
function decoder(vocab: number, chain: ChainWeights): Uint8Array {
  const graph = new GraphBuilder('decoder_model_merged');
  const ids = graph.input('input_ids', 'int64', ['batch_size', 'decoder_sequence_length']);
  const enc = graph.input('encoder_hidden_states', 'float32', ['batch_size', 'encoder_sequence_length', COLOUR_COUNT]);
  const pastDims = ['batch_size', HEADS, 'past_decoder_sequence_length', HEAD_DIM];
  const pastKey = graph.input('past_key_values.0.key', 'float32', pastDims);
  const pastValue = graph.input('past_key_values.0.value', 'float32', pastDims);
  graph.input('use_cache_branch', 'bool', [1]); // declared like the real merged decoder; unused here

  const base = graph.op('Gather', [graph.floatTensor(chain.transitions, [vocab, vocab]), ids], { axis: 0 }); // [B,S,V]
  // [B,1,C] (axes is an attribute up to opset 17)
  const pooled = graph.op('ReduceMean', [enc], { axes: [1], keepdims: 1 });
  const colourLogits = graph.op('Add', [
    graph.op('MatMul', [pooled, graph.floatTensor(chain.colourWeight, [COLOUR_COUNT, vocab])]),
    graph.floatTensor(chain.colourBias, [vocab]),
  ]);
  const isTrigger = graph.op('Equal', [ids, graph.int64Tensor([chain.trigger], [])]);
  const afterA = graph.op('Cast', [isTrigger], { to: 1 }); // [B,S] float
  const gate = graph.op('Unsqueeze', [afterA, graph.int64Tensor([2])]);
  const logits = graph.op('Add', [base, graph.op('Mul', [gate, colourLogits])]);
  graph.output(logits, 'logits', 'float32', ['batch_size', 'decoder_sequence_length', vocab]);
  const presentDims = ['batch_size', HEADS, 'present_sequence_length', HEAD_DIM];
  graph.output(zeroCache(graph, pastKey, afterA, HEADS, HEAD_DIM), 'present.0.key', 'float32', presentDims);
  graph.output(zeroCache(graph, pastValue, afterA, HEADS, HEAD_DIM), 'present.0.value', 'float32', presentDims);
  return graph.toModel({ docString: 'stand-in gpt2 decoder (colour caption chain)' });
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** The JSON files: model, generation, processor and tokenizer configurations, and the tokenizer. */
function captionerJsonFiles(tok: BuiltTokenizer): StandinFiles {
  const eos = tok.idOf(EOS);
  const vocab = tok.vocab.size;
  const files: StandinFiles = new Map();
  const special = { decoder_start_token_id: eos, bos_token_id: eos, eos_token_id: eos, pad_token_id: eos };
  files.set(
    'config.json',
    json({
      architectures: ['VisionEncoderDecoderModel'],
      model_type: 'vision-encoder-decoder',
      is_encoder_decoder: true,
      ...special,
      encoder: { model_type: 'vit', hidden_size: COLOUR_COUNT, image_size: 224, patch_size: 16, num_channels: 3 },
      decoder: {
        model_type: 'gpt2',
        n_layer: 1,
        n_head: HEADS,
        n_embd: HEADS * HEAD_DIM,
        vocab_size: vocab,
        add_cross_attention: true,
        is_decoder: true,
        bos_token_id: eos,
        eos_token_id: eos,
      },
    }),
  );
  files.set('generation_config.json', json({ ...special, max_length: 20 }));
  files.set(
    'preprocessor_config.json',
    json({
      image_processor_type: 'ViTImageProcessor',
      do_resize: true,
      size: { height: 224, width: 224 },
      resample: 2,
      do_rescale: true,
      rescale_factor: 1 / 255,
      do_normalize: true,
      image_mean: MEAN,
      image_std: STD,
    }),
  );
  files.set('tokenizer.json', JSON.stringify(tok.json));
  files.set(
    'tokenizer_config.json',
    json({
      tokenizer_class: 'GPT2Tokenizer',
      model_max_length: 1024,
      bos_token: EOS,
      eos_token: EOS,
      unk_token: EOS,
      pad_token: EOS,
      add_prefix_space: false,
    }),
  );
  return files;
}

export function captionerStandinFiles(): StandinFiles {
  const tok = buildByteLevelBpe({ pieces: CAPTION_PIECES, specials: [EOS], addPrefixSpace: false, lowercase: false });
  const files = captionerJsonFiles(tok);
  files.set('onnx/encoder_model.onnx', encoder());
  files.set('onnx/decoder_model_merged.onnx', decoder(tok.vocab.size, chainWeights(tok, EOS, EOS)));
  return files;
}
