/**
 * The near-duplicate scanner in a worker thread (nearDuplicateThread.ts starts it): batches of vectors come in,
 * are quantised and kept here; `groups` runs the whole scan here and answers the groups. Nothing of it runs
 * on the server's event loop.
 */
import { parentPort } from 'node:worker_threads';
import { NearDuplicateScanner } from './nearDuplicates.js';
import type { NearDuplicateRequest, NearDuplicateReply } from './nearDuplicateThread.js';

let scanner: NearDuplicateScanner | null = null;

parentPort!.on('message', (m: NearDuplicateRequest) => {
  try {
    if (m.type === 'add') {
      scanner ??= new NearDuplicateScanner(m.dims);
      for (let i = 0; i < m.vectors.length; i += m.dims) scanner.add(m.vectors.subarray(i, i + m.dims));
      return;
    }
    const groups = scanner ? scanner.groups(m.threshold) : [];
    parentPort!.postMessage({ type: 'groups', groups } satisfies NearDuplicateReply);
  } catch (err) {
    parentPort!.postMessage({ type: 'error', message: (err as Error).message } satisfies NearDuplicateReply);
  }
});
