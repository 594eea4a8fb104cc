import type { SerializedError } from '../../platform/errors.js';

/** One decode asked of a HEIC decoding thread: the file to decode, and the request's number. */
export interface HeicRequest {
  id: number;
  path: string;
}

/** Its answer: the primary image as 8-bit RGBA, or why it could not be decoded. */
export type HeicReply =
  | { id: number; ok: true; width: number; height: number; data: ArrayBuffer }
  | { id: number; ok: false; error: SerializedError };
