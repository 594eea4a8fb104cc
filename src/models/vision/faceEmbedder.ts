/**
 * Face embeddings for the `faces` similarity model: SFace (OpenCV Zoo
 * `face_recognition_sface_2021dec.onnx`, Apache-2.0) through onnxruntime-node.
 *
 *   data [1,3,112,112]  raw 0–255 floats, NCHW, RGB by default (see below)
 *   →   [1,128]         one feature vector (the output's name is not relied on:
 *                       the session's first output is read); L2-normalised
 *                       here, so dot product = cosine and L2 on these vectors
 *                       ranks the same way.
 *
 * Channel order: OpenCV's FaceRecognizerSF::feature() builds its blob with
 * `blobFromImage(aligned, 1, Size(112,112), Scalar(0,0,0), swapRB=true)` from
 * an OpenCV (BGR) image, so the network sees RGB. `channelOrder` can flip it.
 *
 * Cropping. SFace was trained on faces aligned by five landmarks (eyes, nose,
 * mouth corners) onto the ArcFace 112×112 template. UltraFace gives boxes
 * only, so there is NO similarity alignment here: each face is cut as a square
 * around its box (the longer side plus `margin` on every side, centred on the
 * box), padded with black where it leaves the image, and resized to 112×112.
 * Upright faces embed well enough that way; rolled or profile faces embed
 * worse than with landmark alignment (a landmark-giving detector such as YuNet
 * would fix that: feed its five points to a similarity transform instead).
 */
import * as ort from 'onnxruntime-node';
import sharp from 'sharp';
import type { Detection, RawImage } from './types.js';
import { toRawImage } from './rawImage.js';
import { openModel, sessionLifetime } from './session.js';
import { normalize } from '../../index/vector/math.js';

/** Catalog name of the model; the embedder's modelId is `<name>:<first 12 hex of the file's sha256>`. */
export const SFACE_MODEL_NAME = 'sface';
export const FACE_SIZE = 112;
/**
 * Default margin: with UltraFace boxes (brow to chin, about as wide as the
 * cheeks) a square of the box's longer side plus 20% on each side puts the
 * eyes about where the ArcFace/SFace template has them (eye distance ≈ 35 of
 * 112 px, eye line near y = 52), checked by eye on the fixture photos.
 */
export const DEFAULT_FACE_MARGIN = 0.2;

export interface FaceEmbedderOptions {
  modelPath: string;
  /** Model name for modelId (default `sface`); the id adds the file's sha256 prefix. */
  modelName?: string;
  /** Added on every side of the square crop, as a fraction of the box's longer side (default 0.2). */
  margin?: number;
  /** Channel order the network expects (default `rgb`, as OpenCV feeds SFace). */
  channelOrder?: 'rgb' | 'bgr';
  /** onnxruntime intra-op threads (default: onnxruntime's choice). */
  threads?: number;
}

export interface FaceEmbedderTimings {
  /** embed() calls and faces embedded. */
  images: number;
  faces: number;
  /** Decoding, cropping, resizing and tensor packing. */
  preprocessMs: number;
  /** session.run. */
  inferenceMs: number;
}

export interface FaceEmbedder {
  /** Store with every vector: `sface:<sha256 prefix>`; never mix vectors of two ids in one index. */
  readonly modelId: string;
  /** Vector width (128 for SFace). */
  readonly dims: number;
  /** One unit vector per face (from its `box`), in the order given; [] for no faces. */
  embed(image: Buffer | RawImage, faces: Detection[]): Promise<Float32Array[]>;
  timings(): FaceEmbedderTimings;
  close(): Promise<void>;
}

/** The square crop of a face box: left/top may be negative and the square may leave the image. */
export interface FaceSquare {
  left: number;
  top: number;
  side: number;
}

export function faceSquare(box: Detection['box'], margin = DEFAULT_FACE_MARGIN): FaceSquare {
  const longer = Math.max(1, box.width, box.height);
  const side = Math.max(1, Math.round(longer * (1 + 2 * margin)));
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  return { left: Math.round(cx - side / 2), top: Math.round(cy - side / 2), side };
}

/** The face's square crop resized to size×size packed RGB; what lies outside the image is black. */
export async function cropFace(
  img: RawImage,
  box: Detection['box'],
  opts: { margin?: number; size?: number } = {},
): Promise<Buffer> {
  const size = opts.size ?? FACE_SIZE;
  const sq = faceSquare(box, opts.margin);
  const x0 = Math.max(0, sq.left);
  const y0 = Math.max(0, sq.top);
  const x1 = Math.min(img.width, sq.left + sq.side);
  const y1 = Math.min(img.height, sq.top + sq.side);
  if (x1 - x0 < 1 || y1 - y0 < 1) return Buffer.alloc(size * size * 3); // entirely outside: black
  const k = size / sq.side;
  // Place the visible part at its scaled offset inside the square, pad the rest.
  const left = Math.min(size - 1, Math.round((x0 - sq.left) * k));
  const top = Math.min(size - 1, Math.round((y0 - sq.top) * k));
  const w = Math.max(1, Math.min(size - left, Math.round((x1 - x0) * k)));
  const h = Math.max(1, Math.min(size - top, Math.round((y1 - y0) * k)));
  let s = sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } })
    .extract({ left: x0, top: y0, width: x1 - x0, height: y1 - y0 })
    .resize(w, h, { fit: 'fill' });
  if (w < size || h < size) {
    s = s.extend({ left, top, right: size - left - w, bottom: size - top - h, background: { r: 0, g: 0, b: 0 } });
  }
  return s.raw().toBuffer();
}

export async function loadFaceEmbedder(opts: FaceEmbedderOptions): Promise<FaceEmbedder> {
  const { modelId, session } = await openModel(opts.modelPath, opts.modelName ?? SFACE_MODEL_NAME, {
    threads: opts.threads,
  });
  const inputName = session.inputNames[0];
  const outputName = session.outputNames[0];
  const inMeta = session.inputMetadata.find((m) => m.name === inputName);
  if (inMeta?.isTensor) {
    const [, c, h, w] = inMeta.shape;
    const bad = (d: unknown, want: number) => typeof d === 'number' && d > 0 && d !== want;
    if (inMeta.shape.length !== 4 || bad(c, 3) || bad(h, FACE_SIZE) || bad(w, FACE_SIZE)) {
      throw new Error(
        `${opts.modelPath}: input ${inputName} is [${inMeta.shape.join(',')}], want [1,3,${FACE_SIZE},${FACE_SIZE}]`,
      );
    }
  }
  const outMeta = session.outputMetadata.find((m) => m.name === outputName);
  const declared = outMeta?.isTensor ? outMeta.shape[outMeta.shape.length - 1] : undefined;
  const dims = typeof declared === 'number' && declared > 0 ? declared : 128;
  const margin = opts.margin ?? DEFAULT_FACE_MARGIN;
  const bgr = opts.channelOrder === 'bgr';
  const plane = FACE_SIZE * FACE_SIZE;
  const stats: FaceEmbedderTimings = { images: 0, faces: 0, preprocessMs: 0, inferenceMs: 0 };
  const lifetime = sessionLifetime(`face embedder ${modelId} is closed`, [session]);

  async function embedOne(img: RawImage, box: Detection['box']): Promise<Float32Array> {
    let t = performance.now();
    const rgb = await cropFace(img, box, { margin });
    const input = new Float32Array(3 * plane);
    const [r, b] = bgr ? [2, 0] : [0, 2];
    for (let i = 0, p = 0; i < plane; i++, p += 3) {
      input[r * plane + i] = rgb[p];
      input[plane + i] = rgb[p + 1];
      input[b * plane + i] = rgb[p + 2];
    }
    const tensor = new ort.Tensor('float32', input, [1, 3, FACE_SIZE, FACE_SIZE]);
    stats.preprocessMs += performance.now() - t;
    t = performance.now();
    const out = await session.run({ [inputName]: tensor });
    stats.inferenceMs += performance.now() - t;
    stats.faces++;
    const raw = out[outputName].data as Float32Array;
    if (raw.length !== dims) throw new Error(`face embedder returned ${raw.length} values, expected ${dims}`);
    return normalize(raw, 'firstAxis'); // a featureless crop still gives a unit vector
  }

  return {
    modelId,
    dims,
    async embed(image, faces) {
      lifetime.assertOpen();
      stats.images++;
      if (faces.length === 0) return [];
      const t = performance.now();
      const img = await toRawImage(image);
      stats.preprocessMs += performance.now() - t;
      const vectors: Float32Array[] = [];
      for (const face of faces) vectors.push(await embedOne(img, face.box));
      return vectors;
    },
    timings() {
      return { ...stats };
    },
    close: lifetime.close,
  };
}

/** Cosine similarity of two unit vectors (their dot product). */
export function cosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
