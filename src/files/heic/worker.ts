/**
 * A HEIC decoding thread (heicDecode.ts keeps up to two): libheif in WebAssembly (heic-decode over
 * libheif-js) decodes each requested file's primary image, grid tiles, alpha and 10-bit included, with its
 * transformations (rotation, mirroring) applied, and the RGBA pixels go back as a transferred buffer. The
 * thread lives on between requests, so the WebAssembly module is compiled once, not per image.
 */
import { readFile } from 'node:fs/promises';
import { parentPort } from 'node:worker_threads';
import { serializeError } from '../../platform/errors.js';
import type { HeicReply, HeicRequest } from './protocol.js';

const port = parentPort!;
// libheif prints its parse errors itself; the replies carry them, the server's stderr need not.
console.error = console.log = () => {};
const decoder = import('heic-decode').then((m) => m.default);

async function decode(request: HeicRequest): Promise<HeicReply> {
  const decodeHeic = await decoder;
  const image = await decodeHeic({ buffer: await readFile(request.path) });
  const view = image.data;
  // Transfer exactly the pixels: a view into a larger buffer is copied out first.
  const whole = view.byteOffset === 0 && view.byteLength === view.buffer.byteLength;
  const data = (whole ? view.buffer : view.slice().buffer) as ArrayBuffer;
  return { id: request.id, ok: true, width: image.width, height: image.height, data };
}

port.on('message', (request: HeicRequest) => {
  decode(request).then(
    (reply) => port.postMessage(reply, reply.ok ? [reply.data] : []),
    (err: unknown) => port.postMessage({ id: request.id, ok: false, error: serializeError(err) } satisfies HeicReply),
  );
});
