/**
 * Warm-up: loading a generation's 1-bit codes (the in-memory first pass) and
 * then its int8 copies (the re-rank) into memory, in batches that leave the
 * event loop turns between them.
 */
import { setImmediate as turn } from 'node:timers/promises';
import { loadGenerations } from './registry.js';
import type { Generation, VectorIndexState } from './state.js';

/** int8 copies read per batch. */
const WARM_BATCH = 20_000;

/** Starts warming a generation (once; a call while one runs gets that one). Resolves to the int8 rows loaded. */
export function warmGeneration(state: VectorIndexState, gen: Generation): Promise<number> {
  if (gen.warm === 'running' && gen.warming) return gen.warming;
  if (gen.warm !== 'no') return Promise.resolve(0);
  gen.warm = 'running';
  gen.warming = loadGeneration(state, gen).finally(() => {
    gen.warming = null;
  });
  return gen.warming;
}

/** Loads a generation's codes (the first pass) and then its int8 copies (the re-rank) into memory. */
async function loadGeneration(state: VectorIndexState, gen: Generation): Promise<number> {
  const { db, cache } = state;
  let after = 0;
  let loaded = 0;
  try {
    await gen.codes.load();
    for (;;) {
      if (!db.open || !state.generations.has(gen.id)) break;
      const rows = gen.sql.q8After.all(after, WARM_BATCH) as Array<{ id: number; q: Buffer }>;
      for (const row of rows) cache.put(gen.id, row.id, row.q);
      loaded += rows.length;
      if (rows.length < WARM_BATCH) break;
      after = rows[rows.length - 1].id;
      // Full: let queries pick what stays.
      if (cache.size.bytes + WARM_BATCH * (gen.dims + 4) > state.tuning.cacheBytes) break;
      await turn();
    }
  } catch (err) {
    if (db.open) throw err; // closed under us (shutdown, tests): stop quietly
  } finally {
    gen.warm = 'done';
  }
  return loaded;
}

/** Warms every generation (of one model when named); a finished one is loaded again (what the cache dropped since). */
export async function warmAll(state: VectorIndexState, modelId?: string): Promise<{ rows: number }> {
  loadGenerations(state);
  let rows = 0;
  for (const gen of [...state.generations.values()]) {
    if (modelId !== undefined && gen.modelId !== modelId) continue;
    // One under way is waited for.
    if (gen.warm !== 'running') gen.warm = 'no';
    rows += await warmGeneration(state, gen);
  }
  return { rows };
}
