/**
 * Rotate, flip and crop. Right-angle rotations and flips are lossless pixel
 * moves; other angles enlarge the canvas and fill the corners (transparent
 * when the image has alpha, else white). "Crop to the subject" uses the object
 * detector when one is installed and sharp's attention strategy (saliency:
 * skin tones, saturation, edges) otherwise.
 */
import sharp from 'sharp';
import type { EditOperation } from '../types.js';
import { fromSharp, toSharp, type EditContext, type Work } from './image.js';

type Rotate = Extract<EditOperation, { op: 'rotate' }>;
type Flip = Extract<EditOperation, { op: 'flip' }>;
type Crop = Extract<EditOperation, { op: 'crop' }>;

export async function rotate(w: Work, op: Rotate): Promise<Work> {
  const background = w.channels === 4 ? { r: 0, g: 0, b: 0, alpha: 0 } : { r: 255, g: 255, b: 255, alpha: 1 };
  return fromSharp(toSharp(w).rotate(op.degrees, { background }));
}

export async function flip(w: Work, op: Flip): Promise<Work> {
  return fromSharp(op.axis === 'vertical' ? toSharp(w).flip() : toSharp(w).flop());
}

interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** The largest window of the aspect ratio that fits the image. */
export function maxWindow(width: number, height: number, aspect: [number, number]): { width: number; height: number } {
  const ratio = aspect[0] / aspect[1];
  if (width / height > ratio) return { width: Math.max(1, Math.round(height * ratio)), height };
  return { width, height: Math.max(1, Math.round(width / ratio)) };
}

/** A window of the given size placed to contain `focus` as centrally as possible, inside the image. */
function placeAround(size: { width: number; height: number }, focus: Box, w: Work): Box {
  const cx = focus.left + focus.width / 2;
  const cy = focus.top + focus.height / 2;
  const left = Math.min(Math.max(0, Math.round(cx - size.width / 2)), w.width - size.width);
  const top = Math.min(Math.max(0, Math.round(cy - size.height / 2)), w.height - size.height);
  return { left, top, width: size.width, height: size.height };
}

export async function crop(w: Work, op: Crop, ctx: EditContext): Promise<Work> {
  if (!op.subject) {
    const size = maxWindow(w.width, w.height, op.aspect!);
    const box = placeAround(size, { left: 0, top: 0, width: w.width, height: w.height }, w);
    return extract(w, box);
  }
  const subject = await findSubject(w, ctx);
  if (subject) {
    // Pad the subject by 10% a side, then grow to the aspect ratio (or keep the padded box's shape).
    const pad = 0.1;
    let width = Math.min(w.width, Math.round(subject.width * (1 + 2 * pad)));
    let height = Math.min(w.height, Math.round(subject.height * (1 + 2 * pad)));
    if (op.aspect) {
      const ratio = op.aspect[0] / op.aspect[1];
      if (width / height < ratio) width = Math.round(height * ratio);
      else height = Math.round(width / ratio);
      if (width > w.width || height > w.height) ({ width, height } = maxWindow(w.width, w.height, op.aspect));
    }
    return extract(w, placeAround({ width: Math.max(1, width), height: Math.max(1, height) }, subject, w));
  }
  // No detector (or nothing found): the most salient window. Without an aspect ratio, 80% of each side.
  const size = op.aspect
    ? maxWindow(w.width, w.height, op.aspect)
    : { width: Math.max(1, Math.round(w.width * 0.8)), height: Math.max(1, Math.round(w.height * 0.8)) };
  ctx.notes.push('subject crop used saliency (sharp attention strategy): no object detector found a subject');
  return fromSharp(toSharp(w).resize(size.width, size.height, { fit: 'cover', position: sharp.strategy.attention }));
}

function extract(w: Work, box: Box): Promise<Work> {
  if (box.left === 0 && box.top === 0 && box.width === w.width && box.height === w.height) return Promise.resolve(w);
  return fromSharp(toSharp(w).extract(box));
}

/**
 * The main subject by the object detector (if installed): the detection with
 * the best score × √area, found on a copy at most 1280 px on its longer side.
 */
async function findSubject(w: Work, ctx: EditContext): Promise<Box | null> {
  if (!ctx.deps.models.roles().detect) return null;
  const scale = Math.min(1, 1280 / Math.max(w.width, w.height));
  const small = await toSharp(w)
    .resize(Math.max(1, Math.round(w.width * scale)), Math.max(1, Math.round(w.height * scale)), { kernel: 'lanczos3' })
    .removeAlpha()
    .jpeg({ quality: 90 })
    .toBuffer();
  let result;
  try {
    result = await ctx.deps.models.detect('detect', small, { minScore: 0.3 });
  } catch (err) {
    ctx.deps.logger.warn('edit: subject detection failed; using saliency', { err });
    return null;
  }
  if (!result || result.detections.length === 0) return null;
  const best = [...result.detections].sort(
    (a, b) => b.score * Math.sqrt(b.box.width * b.box.height) - a.score * Math.sqrt(a.box.width * a.box.height),
  )[0];
  ctx.models.subject = result.model;
  const left = Math.max(0, Math.floor(best.box.x / scale));
  const top = Math.max(0, Math.floor(best.box.y / scale));
  return {
    left,
    top,
    width: Math.max(1, Math.min(w.width - left, Math.ceil(best.box.width / scale))),
    height: Math.max(1, Math.min(w.height - top, Math.ceil(best.box.height / scale))),
  };
}
