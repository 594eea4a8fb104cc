/**
 * Model worker thread: runs the Engine off the main event loop. Handles one
 * job at a time (the pool never sends a second before the first answers), so
 * the CPU-heavy inference of one batch never interleaves with another.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { DomainError } from '../../errors.js';
import { Engine } from '../engine/engine.js';
import type { JobRequest, SerializedError, WorkerMessage, WorkerSetup } from './protocol.js';

const port = parentPort;
if (!port) throw new Error('src/models/worker/entry must run in a worker thread');

const post = (msg: WorkerMessage, transfer: ArrayBuffer[] = []) => port.postMessage(msg, transfer);

const engine = new Engine(
  workerData as WorkerSetup,
  (level, msg, fields) => post({ type: 'log', level, msg, fields }),
  (loaded) => post({ type: 'models', loaded }),
);

function serialize(err: unknown): SerializedError {
  if (err instanceof DomainError) return { code: err.code, message: err.message, details: err.details };
  return { message: err instanceof Error ? err.message : String(err) };
}

port.on('message', async (msg: JobRequest) => {
  try {
    const outputs = await engine.run(msg);
    const transfer = outputs.filter((o): o is Float32Array => o instanceof Float32Array).map((o) => o.buffer as ArrayBuffer);
    post({ type: 'result', id: msg.id, outputs }, transfer);
  } catch (err) {
    post({ type: 'error', id: msg.id, error: serialize(err) });
  }
});

post({ type: 'ready' });
