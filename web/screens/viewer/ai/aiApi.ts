/**
 * What the viewer's AI tools share: which picture they send, and how a failure is shown. A 503 for a model
 * that is not installed carries its name in `model` (README, "API decisions"): the tools say which model
 * and where to get it, instead of a bare error.
 */
import { ApiError, describeError } from '../../../lib/api';
import type { Frame, MediaItem } from '../types';

export interface AiFailure {
  message: string;
  /** The catalog name of the missing model, when the failure is one. */
  model?: string;
}

export function failureOf(err: unknown): AiFailure {
  if (err instanceof ApiError && typeof err.body.model === 'string')
    return { message: err.message, model: err.body.model };
  return { message: describeError(err) };
}

/** Describe and tag look at the frame shown: its 768 px preview when made, else the frame itself. */
export const frameImage = (frame: Frame): string => frame.previewUrl || frame.blob;

/** Formats the editor takes; anything else (HEIC, RAW, GIF) is edited from its processed frame. */
const EDITABLE = new Set(['image/jpeg', 'image/png', 'image/webp']);

/** The picture an edit starts from: the original file when the editor reads it, else the processed frame. */
export function editSource(media: MediaItem): string {
  return EDITABLE.has(media.mimeType ?? '') ? media.blob : (media.frames[0]?.blob ?? media.blob);
}

/** The ltree path of the folder holding an item ('' for the collection root). */
export function folderOf(media: MediaItem): string {
  const parts = media.path.split('.');
  return parts.length > 2 ? parts.slice(0, -1).join('.') : '';
}

/** A whole percentage for a 0..1 score. */
export const percent = (x: number): string => `${Math.round(x * 100)}%`;
