/**
 * The scale bench's `/api/search` rows: the organization search use case (features/search/orgSearch.ts, what
 * GET /api/search runs: text and vector search, scoring, the page's items and frames read and presented) over
 * each engine's stores and indexes. Only the query's embedding is the bench's: a stand-in for the text
 * embedder hands back a vector chosen here (the library's vectors are synthetic too), so recall@10 of the
 * page can be checked against an exact scan of the same vectors.
 */
import type { Principal, Services } from '../../src/features/kernel/services.js';
import { searchOrganization } from '../../src/features/search/orgSearch.js';
import { FileUrls } from '../../src/files/fileUrls.js';
import { seededRandom } from '../../src/platform/random.js';
import type { Storage } from '../../src/storage/storage.js';
import type { SearchIndexes } from '../../src/index/searchIndexes.js';
import type { BenchRow } from './harness.js';
import { clustersOf, MODEL, unitVector, type ScaleLibrary } from './scaleFill.js';

type Engine = Storage & { indexes: SearchIndexes };
type Both = (id: string, label: string, fn: (s: Engine) => Promise<unknown>) => Promise<BenchRow>;

/** The query side of the models: the catalog facts of the bench's embedder and the vector each query text maps to. */
function queryModels(vectorOf: (text: string) => Float32Array): Services['models'] {
  const calibration = { lo: -1, hi: 1 };
  const info = {
    ...{ id: MODEL, name: MODEL, installed: true, task: 'embed' },
    calibration: { textToImage: calibration, imageToImage: calibration },
  };
  return {
    modelInfo: () => info,
    modelInfoById: (id: string) => (id === MODEL ? info : undefined),
    roles: () => ({}),
    embedTexts: async (_model: string, texts: string[]) => texts.map(vectorOf),
  } as unknown as Services['models'];
}

/** GET /api/search rows: a query by meaning only (recall@10 against exact), and one words and meaning both match. */
export async function orgSearchRows(
  lib: ScaleLibrary,
  engines: { sqlite: Engine; postgres: Engine },
  both: Both,
  reps: number,
): Promise<BenchRow[]> {
  const rand = seededRandom(23);
  const queries = Array.from({ length: reps }, (_, i) => ({
    text: `zyxquery${i}`,
    vector: unitVector(rand, Math.floor(rand() * clustersOf(lib.size))),
  }));
  const byText = new Map(queries.map((q) => [q.text, q.vector]));
  const wordsVector = unitVector(rand, 7);
  const models = queryModels((t) => byText.get(t) ?? wordsVector);
  const urls = new FileUrls('bench-url-key', 'http://localhost');
  const principal: Principal = {
    ...{ userId: lib.userId, organizationId: lib.organizationId, role: 'owner' },
    ...{ keyId: null, sessionId: null },
  };
  const search = (s: Engine, q: string) =>
    searchOrganization({ storage: s, indexes: s.indexes, models, urls, blobs: {} as Services['blobs'] }, principal, {
      q,
      organizationId: lib.organizationId,
      limit: 10,
    });
  const recall: Record<string, number> = { sqlite: 0, postgres: 0 };
  for (const [name, engine] of Object.entries(engines)) {
    for (const q of queries) {
      const exact = await engine.indexes.vectors.search({
        ...{ modelId: MODEL, similarityModel: 'objects', vector: q.vector, collectionIds: [lib.collectionId], k: 10 },
        strategy: 'exact',
      });
      const truth = new Set(exact.map((h) => h.mediaId));
      const page = (await search(engine, q.text)).results.map((r) => r.media.id);
      recall[name] += page.filter((id) => truth.has(id)).length / Math.max(1, truth.size) / queries.length;
    }
  }
  let n = 0;
  const meaning = await both('org-search', '/api/search by meaning, limit 10', (s) =>
    search(s, queries[n++ % queries.length].text),
  );
  meaning.check = {
    ok: recall.postgres >= 0.9 && recall.sqlite >= 0.9,
    text: `recall@10 of the page PostgreSQL ${recall.postgres.toFixed(3)}, SQLite ${recall.sqlite.toFixed(3)}`,
  };
  const words = await both('org-search-words', '/api/search "red photo" (words and meaning), limit 10', (s) =>
    search(s, 'red photo'),
  );
  return [meaning, words];
}
