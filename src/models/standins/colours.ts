/**
 * The made-up "knowledge" of the stand-in models: a handful of colours with an
 * RGB prototype each. Stand-in vision graphs classify every pixel to its
 * nearest prototype and average the (soft) votes into a colour histogram, so an
 * image is described by its dominant colour; stand-in text graphs map colour
 * words onto the same directions. That gives tests a meaningful end-to-end
 * check ("red" ranks a red image first) through the real loading code.
 */
import type { GraphBuilder } from './onnx/graphBuilder.js';

export interface Colour {
  name: string;
  /** Prototype in 0–1 RGB. */
  rgb: readonly [number, number, number];
  /** Other words for the same colour (map to the same direction). */
  aliases?: readonly string[];
}

export const COLOURS: readonly Colour[] = [
  { name: 'red', rgb: [0.9, 0.05, 0.05] },
  { name: 'orange', rgb: [1, 0.55, 0] },
  { name: 'yellow', rgb: [1, 0.95, 0.1] },
  { name: 'green', rgb: [0.05, 0.65, 0.1] },
  { name: 'blue', rgb: [0.05, 0.15, 0.9] },
  { name: 'purple', rgb: [0.5, 0.1, 0.6] },
  { name: 'pink', rgb: [1, 0.6, 0.75] },
  { name: 'brown', rgb: [0.5, 0.3, 0.12] },
  { name: 'white', rgb: [1, 1, 1] },
  { name: 'black', rgb: [0, 0, 0] },
  { name: 'gray', rgb: [0.5, 0.5, 0.5], aliases: ['grey'] },
];

/** Sharpness of the per-pixel colour vote (higher = closer to a hard nearest-prototype count). */
const TEMPERATURE = 60;

/**
 * Weights and bias of a 1×1 convolution over a *normalised* pixel tensor
 * (x_n = (x − mean) / std, x in 0–1) whose output channel c is the score
 * τ·(2 p_c·x − |p_c|²) — the negated squared distance to prototype p_c minus
 * the |x|² term, which is the same for every colour and cancels in softmax.
 */
export function colourVoteConv(
  mean: readonly number[],
  std: readonly number[],
): { weight: Float32Array; bias: Float32Array } {
  const C = COLOURS.length;
  const weight = new Float32Array(C * 3);
  const bias = new Float32Array(C);
  COLOURS.forEach((colour, c) => {
    let b = 0;
    for (let k = 0; k < 3; k++) {
      const p = colour.rgb[k];
      weight[c * 3 + k] = TEMPERATURE * 2 * p * std[k];
      b += 2 * p * mean[k] - p * p;
    }
    bias[c] = TEMPERATURE * b;
  });
  return { weight, bias };
}

/**
 * Graph nodes for the colour histogram of normalised pixels [B,3,H,W] →
 * [B,C,1,1]: 4×4 average pool (16× less work; the histogram barely changes),
 * a 1×1 conv scoring each pixel against the prototypes, softmax over colours,
 * mean over the image.
 */
export function colourHistogram(
  g: GraphBuilder,
  pixels: string,
  mean: readonly number[],
  std: readonly number[],
): string {
  const C = COLOURS.length;
  const small = g.op('AveragePool', [pixels], { kernel_shape: [4, 4], strides: [4, 4] });
  const conv = colourVoteConv(mean, std);
  const scores = g.op('Conv', [small, g.floatTensor(conv.weight, [C, 3, 1, 1]), g.floatTensor(conv.bias, [C])], {
    kernel_shape: [1, 1],
  });
  return g.op('GlobalAveragePool', [g.op('Softmax', [scores], { axis: 1 })]);
}

/** Colour index for a lower-case word, or -1. */
export function colourIndex(word: string): number {
  return COLOURS.findIndex((c) => c.name === word || c.aliases?.includes(word));
}

/** Every colour word, aliases included. */
export const COLOUR_WORDS: readonly string[] = COLOURS.flatMap((c) => [c.name, ...(c.aliases ?? [])]);

/** FNV-1a hash of a string, used to derive per-model seeds. */
export function hashSeed(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
