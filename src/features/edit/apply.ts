/**
 * Runs an edit plan on image bytes and encodes the result: the part of an
 * edit that knows nothing about HTTP, URLs or the library.
 */
import { background } from './operations/background.js';
import { adjust, blur, grade, sharpen } from './operations/colour.js';
import { crop, flip, rotate } from './operations/geometry.js';
import {
  decode,
  dropAlpha,
  encode,
  flatten,
  hasTransparency,
  type EditContext,
  type EditDeps,
  type Work,
} from './operations/image.js';
import { border, resize } from './operations/size.js';
import { describeOperation } from './parse.js';
import type { EditOperation, OutputFormat } from './types.js';

export interface ApplyOptions {
  /** The output format the request named; null = not named (the default applies). */
  format: OutputFormat | null;
  /** Used when neither the request nor the prompt names a format. */
  defaultFormat: OutputFormat;
  /** 1..100, for jpg and webp. */
  quality: number;
}

export interface ApplyResult {
  bytes: Buffer;
  format: OutputFormat;
  width: number;
  height: number;
  /** What was done, in order: the operation and a description. */
  applied: Array<EditOperation & { description: string }>;
  /** Fallbacks and choices the caller should know about. */
  notes: string[];
  /** Models used, by purpose (`matte`, `upscale`, `subject`). */
  models: Record<string, string>;
}

async function step(w: Work, op: EditOperation, ctx: EditContext): Promise<Work> {
  switch (op.op) {
    case 'rotate':
      return rotate(w, op);
    case 'flip':
      return flip(w, op);
    case 'crop':
      return crop(w, op, ctx);
    case 'background':
      return background(w, op, ctx);
    case 'grade':
      return grade(w, op);
    case 'adjust':
      return adjust(w, op);
    case 'sharpen':
      return sharpen(w, op);
    case 'blur':
      return blur(w, op);
    case 'resize':
      return resize(w, op, ctx);
    case 'border':
      return border(w, op);
    case 'format':
      return w;
  }
}

/**
 * Applies the operations in order. Output format: the request's, else the
 * prompt's ("convert to png"), else the default. A transparent result (the
 * background removed) asked for as JPEG: when the request named jpg the image
 * is flattened on white; when only the default said jpg it becomes a PNG, so
 * the transparency the prompt asked for survives. Both are noted.
 */
export async function applyPlan(
  deps: EditDeps,
  input: Buffer,
  operations: EditOperation[],
  opts: ApplyOptions,
): Promise<ApplyResult> {
  const ctx: EditContext = { deps, notes: [], models: {} };
  let w = await decode(input, deps.config.maxImagePixels);
  const applied: ApplyResult['applied'] = [];
  for (const op of operations) {
    w = await step(w, op, ctx);
    applied.push({ ...op, description: describeOperation(op) });
  }

  const promptFormat =
    [...operations].reverse().find((o): o is Extract<EditOperation, { op: 'format' }> => o.op === 'format')?.format ??
    null;
  if (opts.format && promptFormat && promptFormat !== opts.format) {
    ctx.notes.push(`the request's output format (${opts.format}) was kept over the prompt's (${promptFormat})`);
  }
  let format = opts.format ?? promptFormat ?? opts.defaultFormat;
  if (await hasTransparency(w)) {
    if (format === 'jpg' && (opts.format === 'jpg' || promptFormat === 'jpg')) {
      w = await flatten(w, { r: 255, g: 255, b: 255 });
      ctx.notes.push(
        'JPEG has no transparency: the transparent parts were filled with white (ask for png or webp to keep them)',
      );
    } else if (format === 'jpg') {
      format = 'png';
      ctx.notes.push('the result has transparency, so it is a PNG (JPEG cannot store it)');
    }
  } else {
    w = await dropAlpha(w);
  }
  const bytes = await encode(w, format, opts.quality);
  return { bytes, format, width: w.width, height: w.height, applied, notes: ctx.notes, models: ctx.models };
}
