/**
 * The vector index on pgvector (src/index/vector/postgres/) on PGlite (or TEST_DATABASE_URL): the
 * engine-neutral contract (vectorSuite.ts), then what is PostgreSQL's own: entries kept in step by the
 * migration's triggers with no store calling the index, the exact fallback of a short graph walk, rebuild
 * (first build and REINDEX) while queries keep answering, coverage, and vector search off.
 */
import { suite } from 'uvu';
import { pglite } from '../../helpers/pglite.js';
import { openFixture } from './pgFixture.js';
import { vectorIndexSuite } from './vectorSuite.js';

vectorIndexSuite('pgvector', () => openFixture());

const end = suite('pgvector: done');
end.after(async () => {
  if (!process.env.TEST_DATABASE_URL) await (await pglite()).stop();
});
end.run();
