/**
 * The HEIC decoding thread (heicDecode.ts starts one per image): libheif in
 * WebAssembly (heic-decode over libheif-js) decodes the primary image, grid
 * tiles, alpha and 10-bit included, with its transformations (rotation,
 * mirroring) applied, and the RGBA pixels go back as a transferred buffer.
 */
import { readFile } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { serializeError } from '../../platform/errors.js';
import type { HeicRequest, HeicReply } from './protocol.js';

const port = parentPort!;
const request = workerData as HeicRequest;

async function run(): Promise<HeicReply> {
  // libheif prints its parse errors itself; the reply carries them, the server's stderr need not.
  console.error = console.log = () => {};
  const { default: decode } = await import('heic-decode');
  const file = await readFile(request.path);
  const image = await decode({ buffer: file });
  const view = image.data;
  // Transfer exactly the pixels: a view into a larger buffer is copied out first.
  const whole = view.byteOffset === 0 && view.byteLength === view.buffer.byteLength;
  const data = (whole ? view.buffer : view.slice().buffer) as ArrayBuffer;
  return { ok: true, width: image.width, height: image.height, data };
}

run().then(
  (reply) => port.postMessage(reply, reply.ok ? [reply.data] : []),
  (err: unknown) => port.postMessage({ ok: false, error: serializeError(err) } satisfies HeicReply),
);
