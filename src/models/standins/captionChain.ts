/**
 * The made-up "language model" shared by the captioner stand-ins: a Markov
 * chain over tokens that always says "a photo of a <colour> thing", where the
 * colour is the one with most votes in the image's colour histogram.
 *
 *   logits = T[previous token] + [previous token is ' a'] · (hist · W + b)
 *
 * plus the zero-filled key/value cache outputs real merged decoders have.
 */
import type { GraphBuilder } from './onnx/graphBuilder.js';
import { COLOURS } from './colours.js';
import type { BuiltTokenizer } from './tokenizer.js';

/** Logit margin of the chosen next token. */
const STEP = 20;

/** Word pieces the chain needs in the tokenizer (GPT-2/BART style, leading space = 'Ġ'). */
export const CAPTION_PIECES: readonly string[] = [
  'a',
  ' photo',
  ' of',
  ' a',
  ' thing',
  ...COLOURS.map((c) => ' ' + c.name),
];

export interface ChainWeights {
  /** [V,V]: row = previous token, STEP on the next one. */
  transitions: Float32Array;
  /** [C,V] and [V]: the colour choice, added after ' a'. */
  colourWeight: Float32Array;
  colourBias: Float32Array;
  /** Token id whose presence switches the colour choice on. */
  trigger: number;
}

/**
 * `start` is the decoder's first token, `end` its stop token; `prefix`
 * optional tokens emitted before "a" (Florence-2 emits <s> first).
 */
export function chainWeights(tok: BuiltTokenizer, start: string, end: string, prefix: string[] = []): ChainWeights {
  const V = tok.vocab.size;
  const C = COLOURS.length;
  const seq = [start, ...prefix, 'a', ' photo', ' of', ' a'];
  const transitions = new Float32Array(V * V);
  for (let i = 0; i + 1 < seq.length; i++) transitions[tok.idOf(seq[i]) * V + tok.idOf(seq[i + 1])] = STEP;
  for (const c of COLOURS) transitions[tok.idOf(' ' + c.name) * V + tok.idOf(' thing')] = STEP;
  transitions[tok.idOf(' thing') * V + tok.idOf(end)] = STEP; // (after the end, generation pads by itself)
  const colourWeight = new Float32Array(C * V);
  const colourBias = new Float32Array(V).fill(-2 * STEP);
  COLOURS.forEach((c, i) => {
    const id = tok.idOf(' ' + c.name);
    colourWeight[i * V + id] = 2 * STEP;
    colourBias[id] = 0;
  });
  return { transitions, colourWeight, colourBias, trigger: tok.idOf(' a') };
}

/**
 * present = past ++ zeros for `positions` new steps: [B,H,P+S,Dh]. `like` is
 * any float tensor [B,S]; only its shape matters.
 */
export function zeroCache(
  graph: GraphBuilder,
  past: string | null,
  like: string,
  heads: number,
  headDim: number,
): string {
  const shape = graph.op('Unsqueeze', [graph.op('Mul', [like, graph.scalar(0)]), graph.int64Tensor([1, 3])]); // [B,1,S,1]
  const zeroBlock = graph.floatTensor(new Float32Array(heads * headDim), [1, heads, 1, headDim]);
  const zeros = graph.op('Mul', [shape, zeroBlock]);
  return past ? graph.op('Concat', [past, zeros], { axis: 2 }) : zeros;
}
