/** The geocoder's build thread (load.ts): reads the package, builds the packed index and transfers it back. */
import { parentPort } from 'node:worker_threads';
import { serializeError } from '../../platform/errors.js';
import { loadPackedIndex } from './data.js';
import { transferables } from './packedIndex.js';

const port = parentPort!;
try {
  const index = loadPackedIndex();
  port.postMessage({ ok: true, index }, transferables(index));
} catch (err) {
  port.postMessage({ ok: false, error: serializeError(err) });
}
