/**
 * A tiny stand-in for a YOLOX ONNX model: the real input and output names and
 * shapes (`images` [1,3,S,S] BGR 0–255 → `output` [1,N,85], N = anchors over
 * strides 8/16/32), a few kB, generated in milliseconds.
 *
 * Made-up but meaningful behaviour: it "detects" one object, the red region
 * of the image, labelled with a fixed COCO class ('stop sign' by default).
 * Per 8×8 cell of the letterboxed input it averages the redness
 * R − max(G, B); the cells above a threshold form a mask, and the mask's
 * bounding box is written, in YOLOX's raw grid encoding, into the row of the
 * last stride-32 anchor (bottom-right cell), with objectness 0.9 and a one-hot
 * class vector. All other rows are zeros. So the real decoding (grid offset,
 * stride, exp of the size), the score threshold and the mapping back to image
 * pixels all run as for a real model; an image with no red gives no detection.
 */
import { writeFileSync } from 'node:fs';
import { GraphBuilder } from '../onnx/graphBuilder.js';
import { COCO_CLASSES } from '../../vision/cocoClasses.js';
import { YOLOX_STRIDES } from '../../vision/yolox.js';

export interface YoloxStandinOptions {
  /** Square input side (multiple of 32). Default 416, as yolox-nano. */
  inputSize?: number;
  /** COCO class index of the one detection. Default 11 ('stop sign'). */
  classIndex?: number;
  /** Objectness (= score, class score is 1). Default 0.9. */
  score?: number;
}

/** Mean redness R − max(G, B) (0–255) an 8×8 cell needs to count as red. */
export const STANDIN_REDNESS_THRESHOLD = 100;
/** Cell size of the stand-in's red mask, in input pixels. */
export const STANDIN_CELL = 8;

/** The stand-in's ONNX bytes. */
export function yoloxStandinModel(opts: YoloxStandinOptions = {}): Uint8Array {
  const S = opts.inputSize ?? 416;
  const classIndex = opts.classIndex ?? 11;
  const score = opts.score ?? 0.9;
  const numClasses = COCO_CLASSES.length;
  if (S % 32 !== 0 || S <= 0) throw new Error(`stand-in input size must be a positive multiple of 32, got ${S}`);
  if (!Number.isInteger(classIndex) || classIndex < 0 || classIndex >= numClasses)
    throw new Error(`class index ${classIndex} out of range`);
  const N = YOLOX_STRIDES.reduce((n, s) => n + (S / s) ** 2, 0);
  const C = S / STANDIN_CELL; // mask cells per side
  const last = S / 32 - 1; // grid cell of the last stride-32 anchor (both axes)

  const g = new GraphBuilder('yolox-standin');
  const images = g.input('images', 'float32', [1, 3, S, S]);

  // Redness per pixel: channels are B, G, R. Two 1×1 convolutions give R−G and R−B; their minimum is R − max(G, B).
  const diffs = g.op('Conv', [images, g.floatTensor([0, -1, 1, -1, 0, 1], [2, 3, 1, 1])], { kernel_shape: [1, 1] });
  const redness = g.op('ReduceMin', [diffs], { axes: [1], keepdims: 1 }); // [1,1,S,S]
  const cells = g.op('AveragePool', [redness], {
    kernel_shape: [STANDIN_CELL, STANDIN_CELL],
    strides: [STANDIN_CELL, STANDIN_CELL],
  }); // [1,1,C,C]
  const mask = g.op('Cast', [g.op('Greater', [cells, g.scalar(STANDIN_REDNESS_THRESHOLD)])], { to: 1 }); // float 0/1

  // Bounding box of the mask, in cells: columns/rows that hold any red cell.
  const cols = g.op('ReduceMax', [mask], { axes: [2], keepdims: 0 }); // [1,1,C]
  const rows = g.op('ReduceMax', [mask], { axes: [3], keepdims: 0 }); // [1,1,C]
  const up = g.floatTensor(
    Array.from({ length: C }, (_, i) => i + 1),
    [C],
    'up',
  ); // 1..C
  const down = g.floatTensor(
    Array.from({ length: C }, (_, i) => C - i),
    [C],
    'down',
  ); // C..1
  const maxAll = (x: string) => g.op('ReduceMax', [x], { keepdims: 0 });
  const cellPx = g.scalar(STANDIN_CELL);
  const edges = (presence: string) => {
    const hi = g.op('Mul', [maxAll(g.op('Mul', [presence, up])), cellPx]); // (last index + 1) · 8
    const lo = g.op('Mul', [g.op('Sub', [g.scalar(C), maxAll(g.op('Mul', [presence, down]))]), cellPx]); // first index · 8
    return { lo, hi };
  };
  const x = edges(cols);
  const y = edges(rows);
  const half = g.scalar(0.5);
  const stride = g.scalar(32);
  const offset = g.scalar(last);
  // Raw YOLOX encoding at the anchor (gx = gy = last, stride 32): cx/s − gx, log(w/s).
  const centre = (e: { lo: string; hi: string }) =>
    g.op('Sub', [g.op('Div', [g.op('Mul', [g.op('Add', [e.lo, e.hi]), half]), stride]), offset]);
  const logSize = (e: { lo: string; hi: string }) =>
    g.op('Log', [g.op('Div', [g.op('Max', [g.op('Sub', [e.hi, e.lo]), g.scalar(1)]), stride])]);
  const objectness = g.op('Mul', [maxAll(mask), g.scalar(score)]);

  const shape111 = g.int64Tensor([1, 1, 1]);
  const cell = (v: string) => g.op('Reshape', [v, shape111]);
  const oneHot = new Float32Array(numClasses);
  oneHot[classIndex] = 1;
  const row = g.op(
    'Concat',
    [
      cell(centre(x)),
      cell(centre(y)),
      cell(logSize(x)),
      cell(logSize(y)),
      cell(objectness),
      g.floatTensor(oneHot, [1, 1, numClasses], 'cls'),
    ],
    { axis: 2 },
  ); // [1,1,85]
  const zeros = g.op('ConstantOfShape', [g.int64Tensor([1, N - 1, 5 + numClasses])]); // float 0 by default
  const output = g.op('Concat', [zeros, row], { axis: 1 });
  g.output(output, 'output', 'float32', [1, N, 5 + numClasses]);
  return g.toModel({
    docString: `YOLOX stand-in: one '${COCO_CLASSES[classIndex]}' box over the red region; input ${S}×${S}`,
  });
}

/** Files of a stand-in model folder: `yolox_nano.onnx` (or the name given) and `coco_classes.txt`. */
export function yoloxStandinFiles(
  opts: YoloxStandinOptions & { fileName?: string } = {},
): Map<string, Uint8Array | string> {
  return new Map<string, Uint8Array | string>([
    [opts.fileName ?? 'yolox_nano.onnx', yoloxStandinModel(opts)],
    ['coco_classes.txt', COCO_CLASSES.join('\n') + '\n'],
  ]);
}

/** Writes the stand-in ONNX file to `file`. */
export function writeYoloxStandin(file: string, opts: YoloxStandinOptions = {}): void {
  writeFileSync(file, yoloxStandinModel(opts));
}
