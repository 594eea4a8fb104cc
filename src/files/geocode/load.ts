/**
 * The process's one geocoder, built on first use in a worker thread (reading and indexing 170,000 places
 * takes about half a second of CPU; the event loop only receives the finished typed arrays) and kept.
 */
import { deserializeError, type SerializedError } from '../../platform/errors.js';
import { spawnWorker, stopWorker } from '../../platform/spawnWorker.js';
import { geocoderOf, type Geocoder } from './geocoder.js';
import type { PackedIndex } from './packedIndex.js';

let loading: Promise<Geocoder> | null = null;

type Reply = { ok: true; index: PackedIndex } | { ok: false; error: SerializedError };

function build(): Promise<Geocoder> {
  return new Promise<Geocoder>((resolve, reject) => {
    const worker = spawnWorker(import.meta.url, 'worker', null);
    worker.once('message', (reply: Reply) => {
      void stopWorker(worker);
      if (reply.ok) resolve(geocoderOf(reply.index));
      else reject(deserializeError(reply.error, (message) => new Error(message)));
    });
    worker.once('error', reject);
  });
}

/** The geocoder, built once per process (a failed build is tried again at the next call). */
export function loadGeocoder(): Promise<Geocoder> {
  if (!loading) {
    loading = build();
    loading.catch(() => (loading = null));
  }
  return loading;
}
