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
import { CAPTION_PIECES, chainWeights, zeroCache } from './captionChain.js';
import { COLOURS, colourHistogram } from './colours.js';
import type { StandinFiles } from './embedder.js';
import { buildByteLevelBpe } from './tokenizer.js';

const EOS = '<|endoftext|>';
const HEADS = 2;
const HEAD_DIM = 4;
const MEAN = [0.5, 0.5, 0.5];
const STD = [0.5, 0.5, 0.5];

export function captionerStandinFiles(): StandinFiles {
  const C = COLOURS.length;
  const tok = buildByteLevelBpe({ pieces: CAPTION_PIECES, specials: [EOS], addPrefixSpace: false, lowercase: false });
  const V = tok.vocab.size;
  const eos = tok.idOf(EOS);
  const chain = chainWeights(tok, EOS, EOS);

  // ---- encoder: colour histogram as a one-token hidden state
  const e = new GraphBuilder('encoder_model');
  const pixels = e.input('pixel_values', 'float32', ['batch_size', 3, 224, 224]);
  const hidden = e.op('Reshape', [colourHistogram(e, pixels, MEAN, STD), e.int64Tensor([0, 1, C])]);
  e.output(hidden, 'last_hidden_state', 'float32', ['batch_size', 1, C]);

  // ---- decoder
  const d = new GraphBuilder('decoder_model_merged');
  const ids = d.input('input_ids', 'int64', ['batch_size', 'decoder_sequence_length']);
  const enc = d.input('encoder_hidden_states', 'float32', ['batch_size', 'encoder_sequence_length', C]);
  const pastDims = ['batch_size', HEADS, 'past_decoder_sequence_length', HEAD_DIM];
  const pastKey = d.input('past_key_values.0.key', 'float32', pastDims);
  const pastValue = d.input('past_key_values.0.value', 'float32', pastDims);
  d.input('use_cache_branch', 'bool', [1]); // declared like the real merged decoder; unused here

  const base = d.op('Gather', [d.floatTensor(chain.transitions, [V, V]), ids], { axis: 0 }); // [B,S,V]
  const pooled = d.op('ReduceMean', [enc], { axes: [1], keepdims: 1 }); // [B,1,C] (axes is an attribute up to opset 17)
  const colourLogits = d.op('Add', [
    d.op('MatMul', [pooled, d.floatTensor(chain.colourWeight, [C, V])]),
    d.floatTensor(chain.colourBias, [V]),
  ]);
  const afterA = d.op('Cast', [d.op('Equal', [ids, d.int64Tensor([chain.trigger], [])])], { to: 1 }); // [B,S] float
  const logits = d.op('Add', [base, d.op('Mul', [d.op('Unsqueeze', [afterA, d.int64Tensor([2])]), colourLogits])]);
  d.output(logits, 'logits', 'float32', ['batch_size', 'decoder_sequence_length', V]);
  const presentDims = ['batch_size', HEADS, 'present_sequence_length', HEAD_DIM];
  d.output(zeroCache(d, pastKey, afterA, HEADS, HEAD_DIM), 'present.0.key', 'float32', presentDims);
  d.output(zeroCache(d, pastValue, afterA, HEADS, HEAD_DIM), 'present.0.value', 'float32', presentDims);

  const json = (o: unknown) => JSON.stringify(o, null, 2);
  const files: StandinFiles = new Map();
  const special = { decoder_start_token_id: eos, bos_token_id: eos, eos_token_id: eos, pad_token_id: eos };
  files.set(
    'config.json',
    json({
      architectures: ['VisionEncoderDecoderModel'],
      model_type: 'vision-encoder-decoder',
      is_encoder_decoder: true,
      ...special,
      encoder: { model_type: 'vit', hidden_size: C, image_size: 224, patch_size: 16, num_channels: 3 },
      decoder: {
        model_type: 'gpt2',
        n_layer: 1,
        n_head: HEADS,
        n_embd: HEADS * HEAD_DIM,
        vocab_size: V,
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
  files.set('onnx/encoder_model.onnx', e.toModel({ docString: 'stand-in vit encoder (colour histogram)' }));
  files.set('onnx/decoder_model_merged.onnx', d.toModel({ docString: 'stand-in gpt2 decoder (colour caption chain)' }));
  return files;
}
