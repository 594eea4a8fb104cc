/**
 * The edit plan: what the instruction parser (./parse.ts) produces and the
 * operations (./operations/*) carry out. Every operation is plain data, so a
 * plan can be shown in the answer and compared in tests.
 */

/** An sRGB colour; `alpha` 0..1 (absent = opaque). */
export interface Rgb {
  r: number;
  g: number;
  b: number;
  alpha?: number;
}

export type OutputFormat = 'jpg' | 'png' | 'webp';

/** Colour grades: named looks applied to the whole image. */
export type GradePreset = 'greyscale' | 'sepia' | 'vintage' | 'warm' | 'cool' | 'invert' | 'noir' | 'auto';

export type EditOperation =
  /** Clockwise degrees; right angles are lossless, others fill the corners. */
  | { op: 'rotate'; degrees: number }
  /** horizontal = mirror left/right; vertical = top/bottom. */
  | { op: 'flip'; axis: 'horizontal' | 'vertical' }
  /**
   * Crop to an aspect ratio (width:height) and/or to the main subject.
   * aspect null + subject: a tighter crop around the subject keeping the shape.
   */
  | { op: 'crop'; aspect: [number, number] | null; subject: boolean }
  /** scale (e.g. 2 = twice as large) or a target width and/or height in pixels. */
  | { op: 'resize'; scale?: number; width?: number; height?: number }
  | { op: 'grade'; preset: GradePreset }
  /** Multipliers: 1 = unchanged. */
  | { op: 'adjust'; brightness?: number; contrast?: number; saturation?: number }
  /** Unsharp-mask sigma in pixels. */
  | { op: 'sharpen'; sigma: number }
  /**
   * Gaussian sigma for an image whose longer side is 1000 px (scaled with the image, so a prompt looks alike
   * at any size; at least 1 px).
   */
  | { op: 'blur'; sigma: number }
  | { op: 'background'; action: 'remove' }
  /** sigma as for blur. */
  | { op: 'background'; action: 'blur'; sigma: number }
  | { op: 'background'; action: 'replace'; color: Rgb }
  /** Width of each side: pixels, or percent of the longer side. */
  | { op: 'border'; size: number; unit: 'px' | 'percent'; color: Rgb }
  /** Not a pixel operation: the output format the prompt asked for. */
  | { op: 'format'; format: OutputFormat };

export type OperationName = EditOperation['op'];

/** What parsePrompt returns. */
export interface EditPlan {
  /** Operations in the order they run (see parse.ts for the order). */
  operations: EditOperation[];
  /** Parts of the prompt that name something the editor did not understand (after filler words are removed). */
  unrecognised: string[];
  /** Negated parts that were dropped ("don't crop it"). */
  ignored: string[];
}
