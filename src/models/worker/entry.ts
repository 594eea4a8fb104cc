/**
 * Model worker thread: runs the Engine off the main event loop. Handles one
 * request at a time (the pool never sends a second before the first answers), so
 * the CPU-heavy inference of one batch never interleaves with another.
 */
import { readlinkSync } from 'node:fs';
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { serializeError } from '../../platform/errors.js';
import { Engine } from '../engine/engine.js';
import type { WorkerRequest, WorkerMessage, WorkerSetup } from './protocol.js';

const port = parentPort;
if (!port) throw new Error('src/models/worker/entry must run in a worker thread');

// Inference yields the CPU to the HTTP thread, so browse stays quick while models run
// (docs/measurements/models.md has the effect of nice 10).
// onnxruntime's threads are created from this thread and inherit its niceness.
const setup = workerData as WorkerSetup;
if (setup.nice > 0 && process.platform === 'linux') {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    os.setPriority(tid, setup.nice);
  } catch {
    /* not permitted or not Linux: run at normal priority */
  }
}

const post = (msg: WorkerMessage, transfer: ArrayBuffer[] = []) => port.postMessage(msg, transfer);

const engine = await Engine.create(
  workerData as WorkerSetup,
  (level, msg, fields) => post({ type: 'log', level, msg, fields }),
  (loaded) => post({ type: 'models', loaded }),
);

port.on('message', async (request: WorkerRequest) => {
  try {
    const outputs = await engine.run(request, (done, total) => post({ type: 'progress', id: request.id, done, total }));
    // Only buffers a typed array owns whole are transferred (never a slice of a shared Buffer pool).
    const transfer = outputs
      .filter(
        (o): o is Float32Array | Uint8Array =>
          typeof o !== 'string' && o.byteOffset === 0 && o.byteLength === o.buffer.byteLength,
      )
      .map((o) => o.buffer as ArrayBuffer);
    post({ type: 'result', id: request.id, outputs }, transfer);
  } catch (err) {
    post({ type: 'error', id: request.id, error: serializeError(err) });
  }
});

post({ type: 'ready' });
