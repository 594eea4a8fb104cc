/**
 * Cost-equivalent work for the bench's stand-ins (never for tests, never committed as weights): graph
 * pieces with the real architectures' shapes and multiply-adds and random weights, added to a stand-in
 * graph "times zero" so the graph's answer stays the tiny stand-in's (a colour caption, a colour
 * embedding: meaningful end to end) while each run costs what the real model's run costs.
 *
 * onnxruntime does not fold `x · 0` (it is not an identity for NaN/∞), so the work runs every time; the
 * bench checks the run time of each graph against the multiply-adds it should have.
 */
import { float, type GraphBuilder } from '../../../src/models/standins/onnx/graphBuilder.js';
import { seededRandom } from '../../../src/platform/random.js';

/**
 * Random weights: a 1 M-value block of uniform noise (std ≈ 0.02) tiled; the values do not matter for speed.
 * With `int8`, the weight matrices of `matmul` are int8 and the product runs as dynamic quantization
 * writes it (DynamicQuantizeLinear of the activations, MatMulInteger, rescale): the shape of a `_quantized`
 * (q8) ONNX export, whose products of two activations (attention) stay float.
 */
export class Weights {
  params = 0;
  private readonly block: Float32Array;
  constructor(
    private readonly g: GraphBuilder,
    seed: number,
    readonly int8 = false,
  ) {
    const rand = seededRandom(seed);
    this.block = Float32Array.from({ length: 1 << 20 }, () => (rand() * 2 - 1) * 0.035);
  }
  random(dims: number[]): string {
    const n = dims.reduce((a, b) => a * b, 1);
    this.params += n;
    const a = new Float32Array(n);
    for (let off = 0; off < n; off += this.block.length)
      a.set(this.block.subarray(0, Math.min(this.block.length, n - off)), off);
    return this.g.floatTensor(a, dims);
  }
  fill(dims: number[], v: number): string {
    const n = dims.reduce((a, b) => a * b, 1);
    this.params += n;
    return this.g.floatTensor(new Float32Array(n).fill(v), dims);
  }
  /** A weight matrix [in, out] for `matmul`: float, or int8 (values in ±4) with `int8`. */
  matrix(dims: [number, number]): string {
    if (!this.int8) return this.random(dims);
    const n = dims[0] * dims[1];
    this.params += n;
    const a = new Int8Array(n);
    for (let i = 0; i < n; i++) a[i] = Math.round(this.block[i % this.block.length] * 114);
    return this.g.int8Tensor(a, dims);
  }
  /** x · m for a matrix from `matrix` (the float product, or the quantized one). */
  matmul(x: string, m: string): string {
    const g = this.g;
    if (!this.int8) return g.op('MatMul', [x, m]);
    const [xq, scale, zero] = g.node('DynamicQuantizeLinear', [x], {}, 3);
    const product = g.op('MatMulInteger', [xq, m, zero, g.int8Tensor(new Int8Array(1), [])]);
    return g.op('Mul', [g.op('Cast', [product], { to: 1 }), g.op('Mul', [scale, g.scalar(0.035 / 114)])]);
  }
}

export interface LayerShape {
  width: number;
  heads: number;
  mlp: number;
  /** Tokens attend within groups of this many (windowed attention, as DaViT/Swin); 0: all tokens. */
  window?: number;
}

export const layerNorm = (g: GraphBuilder, w: Weights, x: string, width: number) =>
  g.op('LayerNormalization', [x, w.fill([width], 1), w.fill([width], 0)], { axis: -1, epsilon: float(1e-6) });

export const linear = (g: GraphBuilder, w: Weights, x: string, inDim: number, outDim: number) =>
  g.op('Add', [w.matmul(x, w.matrix([inDim, outDim])), w.fill([outDim], 0)]);

const gelu = (g: GraphBuilder, x: string) => g.op('Mul', [x, g.op('Sigmoid', [g.op('Mul', [x, g.scalar(1.702)])])]);

/**
 * One pre-norm transformer layer over x [B,T,D]: self-attention (optionally within windows of `window`
 * tokens: the sequence is regrouped, the multiply-adds are those of windowed attention) and an MLP.
 */
export function transformerLayer(g: GraphBuilder, w: Weights, x: string, s: LayerShape): string {
  const { width: D, heads: H, mlp } = s;
  const hd = D / H;
  const win = s.window ?? 0;
  const grouped = (v: string) => (win ? g.op('Reshape', [v, g.int64Tensor([-1, win, D])]) : v);
  const heads = (v: string, perm: number[]) =>
    g.op('Transpose', [g.op('Reshape', [v, g.int64Tensor([0, 0, H, hd])])], { perm });
  const [q, k, v] = g.node(
    'Split',
    [linear(g, w, layerNorm(g, w, x, D), D, 3 * D), g.int64Tensor([D, D, D])],
    {
      axis: 2,
    },
    3,
  );
  const scores = g.op('Mul', [
    g.op('MatMul', [heads(grouped(q), [0, 2, 1, 3]), heads(grouped(k), [0, 2, 3, 1])]),
    g.scalar(1 / Math.sqrt(hd)),
  ]);
  const attended = g.op('MatMul', [g.op('Softmax', [scores], { axis: -1 }), heads(grouped(v), [0, 2, 1, 3])]);
  let merged = g.op('Reshape', [g.op('Transpose', [attended], { perm: [0, 2, 1, 3] }), g.int64Tensor([0, 0, D])]);
  if (win) merged = g.op('Reshape', [merged, g.op('Shape', [x])]);
  const y = g.op('Add', [x, linear(g, w, merged, D, D)]);
  return g.op('Add', [y, linear(g, w, gelu(g, linear(g, w, layerNorm(g, w, y, D), D, mlp)), mlp, D)]);
}

/** Image → tokens [B, (S/P)², D] by a P×P patch convolution. */
export function patchify(g: GraphBuilder, w: Weights, pixels: string, patch: number, side: number, D: number): string {
  const conv = g.op('Conv', [pixels, w.random([D, 3, patch, patch]), w.fill([D], 0)], {
    kernel_shape: [patch, patch],
    strides: [patch, patch],
  });
  const n = (side / patch) ** 2;
  return g.op('Transpose', [g.op('Reshape', [conv, g.int64Tensor([0, D, n])])], { perm: [0, 2, 1] });
}

/** A [1, T, D] tensor that depends on `input` (so nothing is constant-folded): input's mean times noise. */
export function dummyTokens(g: GraphBuilder, w: Weights, input: string, tokens: number, D: number): string {
  const asFloat = g.op('Cast', [input], { to: 1 });
  const mean = g.op('ReduceMean', [asFloat], { keepdims: 0 }); // scalar
  return g.op('Mul', [w.random([1, tokens, D]), mean]);
}

/** `output + 0 · mean(work)`: the answer is the stand-in's, the work must still run. */
export function sink(g: GraphBuilder, output: string, work: string): string {
  const zero = g.op('Mul', [g.op('ReduceMean', [work], { keepdims: 0 }), g.scalar(0)]);
  return g.op('Add', [output, zero]);
}
