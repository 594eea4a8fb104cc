/**
 * Background-matting stand-ins in the layouts transformers.js' background
 * removal loads (model_type "modnet" / "birefnet": custom architectures run
 * as a plain PreTrainedModel with one `model` session).
 *
 *   MODNet   (Xenova/modnet)                     input [B,3,H,W] → output [B,1,H,W], already 0–1
 *   BiRefNet (onnx-community/BiRefNet_lite-ONNX) input_image [B,3,1024,1024] → output_image [B,1,1024,1024], logits
 *
 * The "matte": a pixel is foreground when its colour is far from the mean
 * colour of the image border (squared distance of normalised pixels, through
 * a steep sigmoid). A red square on a white background gives alpha ≈ 1 on the
 * square and ≈ 0 around it, which tests can check. The BiRefNet variant
 * outputs the logit instead, so the sigmoid the real pipeline applies to
 * out-of-range outputs is exercised too.
 */
import { GraphBuilder } from './onnx/graphBuilder.js';
import type { StandinFiles } from './embedder.js';

export type MattingArch = 'modnet' | 'birefnet';

/** Squared normalised distance at which alpha is 0.5, and the sigmoid's steepness. */
const THRESHOLD = 0.1;
const STEEPNESS = 50;
const IMAGENET_MEAN = [0.485, 0.456, 0.406];
const IMAGENET_STD = [0.229, 0.224, 0.225];

/** Mean colour [B,3,1,1] of one border line of x [B,3,H,W] (axis 2: a row, 3: a column; index 0 or last). */
function borderMean(g: GraphBuilder, x: string, axis: 2 | 3, last: boolean): string {
  const line = g.op('Slice', [
    x,
    g.int64Tensor([last ? -1 : 0]),
    g.int64Tensor([last ? 2 ** 31 : 1]),
    g.int64Tensor([axis]),
  ]);
  return g.op('ReduceMean', [line], { axes: [2, 3], keepdims: 1 });
}

function mattingGraph(arch: MattingArch): Uint8Array {
  const birefnet = arch === 'birefnet';
  const g = new GraphBuilder(`${arch}_standin`);
  const x = g.input(
    birefnet ? 'input_image' : 'input',
    'float32',
    birefnet ? ['batch_size', 3, 1024, 1024] : ['batch_size', 3, 'height', 'width'],
  );
  const sides = [
    borderMean(g, x, 2, false),
    borderMean(g, x, 2, true),
    borderMean(g, x, 3, false),
    borderMean(g, x, 3, true),
  ];
  const sum = sides.slice(1).reduce((acc, s) => g.op('Add', [acc, s]), sides[0]);
  const border = g.op('Mul', [sum, g.scalar(0.25)]);
  const diff = g.op('Sub', [x, border]);
  const dist = g.op('ReduceSum', [g.op('Mul', [diff, diff]), g.int64Tensor([1])], { keepdims: 1 });
  const logit = g.op('Mul', [g.op('Sub', [dist, g.scalar(THRESHOLD)]), g.scalar(STEEPNESS)]);
  const out = birefnet ? logit : g.op('Sigmoid', [logit]);
  g.output(
    out,
    birefnet ? 'output_image' : 'output',
    'float32',
    birefnet ? ['batch_size', 1, 1024, 1024] : ['batch_size', 1, 'height', 'width'],
  );
  return g.toModel({ docString: `stand-in ${arch}: alpha = distance from the border colour` });
}

function preprocessor(arch: MattingArch) {
  if (arch === 'birefnet') {
    return {
      feature_extractor_type: 'ImageFeatureExtractor',
      do_resize: true,
      size: { width: 1024, height: 1024 },
      resample: 2,
      do_rescale: true,
      rescale_factor: 1 / 255,
      do_normalize: true,
      image_mean: IMAGENET_MEAN,
      image_std: IMAGENET_STD,
    };
  }
  return {
    feature_extractor_type: 'ImageFeatureExtractor',
    do_resize: true,
    size: { shortest_edge: 512 },
    size_divisibility: 32,
    resample: 2,
    do_rescale: true,
    rescale_factor: 1 / 255,
    do_normalize: true,
    image_mean: [0.5, 0.5, 0.5],
    image_std: [0.5, 0.5, 0.5],
    do_pad: false,
  };
}

export function mattingStandinFiles(arch: MattingArch): StandinFiles {
  const files: StandinFiles = new Map();
  files.set(
    'config.json',
    JSON.stringify({ model_type: arch, architectures: [arch === 'modnet' ? 'MODNet' : 'BiRefNet'] }, null, 2),
  );
  files.set('preprocessor_config.json', JSON.stringify(preprocessor(arch), null, 2));
  files.set('onnx/model.onnx', mattingGraph(arch));
  return files;
}
