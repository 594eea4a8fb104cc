import sharp from 'sharp';
import { captionTerms } from '../ai/index.js';
import type { Services } from '../kernel/services.js';
import { newMediaId } from '../../platform/ids.js';
import type { FrameRecord, NewCaption, NewObject, ObjectRecord, Point } from '../../storage/types.js';
import type { Detection } from '../../models/vision/types.js';

/** The Florence-2 task for frame captions. */
export const FRAME_CAPTION_TASK = '<DETAILED_CAPTION>';
/** Crops smaller than this (either side, pixels) are not worth a file or an embedding. */
const MIN_CROP = 8;

export interface FrameAnalysis {
  captions: NewCaption[];
  objects: NewObject[];
  /** The caption's text, for the item's description. */
  captionText: string | null;
}

const wholeFrame = (w: number, h: number): Point[] => [
  { x: 0, y: 0 },
  { x: w, y: 0 },
  { x: w, y: h },
  { x: 0, y: h },
];

function iou(a: Point[], b: Point[]): number {
  const box = (p: Point[]) => {
    const xs = p.map((q) => q.x);
    const ys = p.map((q) => q.y);
    return { x1: Math.min(...xs), y1: Math.min(...ys), x2: Math.max(...xs), y2: Math.max(...ys) };
  };
  const A = box(a);
  const B = box(b);
  const iw = Math.max(0, Math.min(A.x2, B.x2) - Math.max(A.x1, B.x1));
  const ih = Math.max(0, Math.min(A.y2, B.y2) - Math.max(A.y1, B.y1));
  const inter = iw * ih;
  const union = (A.x2 - A.x1) * (A.y2 - A.y1) + (B.x2 - B.x1) * (B.y2 - B.y1) - inter;
  return union > 0 ? inter / union : 0;
}

/**
 * What analysing a video's previous frame left for the next: its vector and caption. A frame whose
 * vector's cosine with the previous one is at least the embedder's `nearDuplicate` (catalog) keeps that
 * caption instead of running the captioner (the most expensive model by far). Make one per item.
 */
export interface FrameSequence {
  previous: { vector: Float32Array; captions: NewCaption[]; captionText: string | null } | null;
  /** Frames whose caption was carried over (for progress and the bench). */
  reused: number;
}

export const newFrameSequence = (): FrameSequence => ({ previous: null, reused: 0 });

/** Cosine of two L2-normalised vectors. */
function cosine(a: Float32Array, b: Float32Array): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) d += a[i] * b[i];
  return d;
}

/** Whether `vector` repeats the sequence's previous frame under the model's threshold (null: never). */
export function isNearDuplicate(seq: FrameSequence | undefined, vector: Float32Array | null, threshold: number | null) {
  const prev = seq?.previous;
  return !!(
    prev &&
    vector &&
    threshold !== null &&
    prev.vector.length === vector.length &&
    cosine(prev.vector, vector) >= threshold
  );
}

/** What one frame's analysis computes besides what the installed models allow. */
export interface FramePlan {
  /** Whether the default embedder is installed: the frame's and the crops' vectors. */
  embed: boolean;
  /** Whether text crops are embedded now (INGEST_TEXT_VECTORS=eager) or on first use (scoring.ts). */
  textVectors: boolean;
}

/**
 * Everything the models say about one frame: a caption, the whole-frame
 * object (carrying the frame's embedding, so every frame is reachable by
 * similarToObjectId; none without the embedder), detected objects, faces and
 * text, each with a crop file and an embedding under its similarity model. A
 * model that is not installed is skipped (without the embedder, objects are
 * kept without vectors); any other failure throws (the job retries).
 * Objects the user edited or deleted on this frame are not detected again. With `sequence` (a video's
 * frames in order), a near-duplicate of the previous frame keeps its caption (see FrameSequence).
 */
export async function analyzeFrame(
  deps: Pick<Services, 'storage' | 'blobs' | 'models'>,
  frame: FrameRecord,
  bytes: Buffer,
  plan: FramePlan = { embed: true, textVectors: false },
  sequence?: FrameSequence,
): Promise<FrameAnalysis> {
  const m = deps.models;
  const embedInfo = plan.embed ? m.modelInfo() : null;
  // The whole-frame object carries the frame's vector: without the embedder there is none to carry. Phase 2
  // stored it already (this model's): read, not computed again.
  const frameVector = embedInfo
    ? ((await deps.storage.analysis.frameVector(frame.id, embedInfo.id)) ??
      (await m.embedImages(embedInfo.name, [bytes]))[0])
    : null;
  const repeat = isNearDuplicate(sequence, frameVector, embedInfo?.nearDuplicate ?? null);
  const { captions, captionText } = repeat ? carriedCaption(sequence!) : await captionFrame(deps, bytes);
  if (sequence && frameVector) sequence.previous = { vector: frameVector, captions, captionText };
  const objects: NewObject[] = [];
  if (embedInfo && frameVector) {
    objects.push({
      id: newMediaId(),
      type: 'frame',
      label: (captionText && captionTerms(captionText)[0]) || 'frame',
      blobKey: frame.blobKey,
      polygon: wholeFrame(frame.width, frame.height),
      confidence: null,
      model: embedInfo.id,
      similarityModel: 'objects',
      embedding: { modelId: embedInfo.id, vector: frameVector },
    });
  }

  const userObjects = await deps.storage.analysis.userObjects(frame.id);
  const notTheUsers = (type: string, d: Detection) =>
    !userObjects.some((u: ObjectRecord) => u.type === type && iou(u.polygon, d.polygon) > 0.5);

  const [found, faces, texts] = await Promise.all([
    m.detect('detect', bytes),
    m.detect('detectFaces', bytes),
    m.detect('ocr', bytes),
  ]);

  const cropped: Array<{ type: string; d: Detection; modelId: string }> = [];
  for (const d of found?.detections ?? [])
    if (notTheUsers('object', d)) cropped.push({ type: 'object', d, modelId: found!.modelId });
  for (const d of texts?.detections ?? [])
    if (notTheUsers('text', d)) cropped.push({ type: 'text', d, modelId: texts!.modelId });
  const embeds = (type: string) => type !== 'text' || plan.textVectors;
  objects.push(...(await croppedObjects(deps, bytes, cropped, embedInfo, embeds)));

  const faceDetections = (faces?.detections ?? []).filter((d) => notTheUsers('face', d));
  if (faces && faceDetections.length) objects.push(...(await faceObjects(deps, bytes, faceDetections, faces.modelId)));
  return { captions, objects, captionText };
}

/** The previous frame's caption, as new rows for this frame. */
function carriedCaption(sequence: FrameSequence): { captions: NewCaption[]; captionText: string | null } {
  sequence.reused++;
  const prev = sequence.previous!;
  return { captions: prev.captions.map((c) => ({ ...c, id: newMediaId() })), captionText: prev.captionText };
}

/** The frame's caption, when a caption model is installed. */
async function captionFrame(
  deps: Pick<Services, 'models'>,
  bytes: Buffer,
): Promise<{ captions: NewCaption[]; captionText: string | null }> {
  const m = deps.models;
  const roles = m.roles();
  const captions: NewCaption[] = [];
  let captionText: string | null = null;
  if (roles.caption && m.modelInfo(roles.caption).installed) {
    const [c] = await m.caption([bytes], FRAME_CAPTION_TASK);
    captionText = c.text.trim();
    if (captionText) captions.push({ id: newMediaId(), text: captionText, model: m.modelInfo(c.model).id });
  }
  return { captions, captionText };
}

/**
 * Objects and text: crop, store, embed the crops of the types `embeds` names with the default embedder
 * ('objects' model). A crop left without a vector has no similarity model until it is embedded.
 */
async function croppedObjects(
  deps: Pick<Services, 'blobs' | 'models'>,
  bytes: Buffer,
  cropped: Array<{ type: string; d: Detection; modelId: string }>,
  embedInfo: { name: string; id: string } | null,
  embeds: (type: string) => boolean,
): Promise<NewObject[]> {
  const crops = await Promise.all(cropped.map((c) => crop(bytes, c.d)));
  const usable = cropped.map((c, i) => ({ ...c, crop: crops[i] })).filter((c) => c.crop !== null);
  const toEmbed = embedInfo ? usable.filter((c) => embeds(c.type)) : [];
  const vectors = toEmbed.length
    ? await embedInBatches(
        deps,
        embedInfo!.name,
        toEmbed.map((c) => c.crop!),
      )
    : [];
  const objects: NewObject[] = [];
  for (const c of usable) {
    const { type, d, modelId, crop: bytesOfCrop } = c;
    const stored = await deps.blobs.putBuffer(bytesOfCrop!, 'jpg');
    const vector = vectors[toEmbed.indexOf(c)];
    objects.push({
      id: newMediaId(),
      type,
      label: d.label,
      blobKey: stored.key,
      polygon: d.polygon,
      confidence: d.score,
      model: modelId,
      similarityModel: vector ? 'objects' : null,
      embedding: vector ? { modelId: embedInfo!.id, vector } : null,
    });
  }
  return objects;
}

/** Faces: crop and store; embed with the face model ('faces' similarity model). */
async function faceObjects(
  deps: Pick<Services, 'blobs' | 'models'>,
  bytes: Buffer,
  faceDetections: Detection[],
  modelId: string,
): Promise<NewObject[]> {
  const faceVectors = await deps.models.embedFaces(bytes, faceDetections);
  const objects: NewObject[] = [];
  for (let i = 0; i < faceDetections.length; i++) {
    const d = faceDetections[i];
    const c = await crop(bytes, d);
    const stored = c ? await deps.blobs.putBuffer(c, 'jpg') : null;
    objects.push({
      id: newMediaId(),
      type: 'face',
      label: 'face',
      blobKey: stored?.key ?? null,
      polygon: d.polygon,
      confidence: d.score,
      model: modelId,
      similarityModel: faceVectors ? 'faces' : null,
      embedding: faceVectors ? { modelId: faceVectors.modelId, vector: faceVectors.vectors[i] } : null,
    });
  }
  return objects;
}

async function embedInBatches(
  deps: Pick<Services, 'models'>,
  model: string,
  images: Buffer[],
): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let i = 0; i < images.length; i += 16)
    out.push(...(await deps.models.embedImages(model, images.slice(i, i + 16))));
  return out;
}

/** The detection's bounding box cut from the frame, as JPEG; null when too small. */
async function crop(frame: Buffer, d: Detection): Promise<Buffer | null> {
  const left = Math.max(0, Math.floor(d.box.x));
  const top = Math.max(0, Math.floor(d.box.y));
  const width = Math.floor(d.box.width);
  const height = Math.floor(d.box.height);
  if (width < MIN_CROP || height < MIN_CROP) return null;
  try {
    return await sharp(frame).extract({ left, top, width, height }).jpeg({ quality: 85 }).toBuffer();
  } catch {
    return null; // a box reaching past the edge by rounding: not worth failing the frame
  }
}
