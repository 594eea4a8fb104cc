import type { SerializedError } from '../../platform/errors.js';

/** workerData of a HEIC decoding thread: the file to decode. */
export interface HeicRequest {
  path: string;
}

/** Its one answer: the primary image as 8-bit RGBA, or why it could not be decoded. */
export type HeicReply =
  { ok: true; width: number; height: number; data: ArrayBuffer } | { ok: false; error: SerializedError };
