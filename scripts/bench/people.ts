/**
 * People section of `npm run bench` (issue #27): what a person's edits of face clusters cost over HTTP, on a
 * collection of N people (5,000; --quick 200) with two faces each, on SQLite.
 *
 *  - Merge 100 people (200 faces) into one: POST /api/clusters/{id}/merge, beside the background clusterer
 *    placing 200 new faces in the same library (assignPending, the cluster-faces job's body): a merge by hand
 *    should cost no more than clustering those faces did.
 *  - The People page: GET /api/dataset/{id}/clusters?limit=100, first and last page, and the suggestions
 *    ("these may be the same person"), each beside a browse page of the same collection
 *    (GET /api/dataset/{id}/media?limit=100), the screen the People page is opened from.
 *
 * Full: 5 merges, 50 page loads each. --quick: 2 merges, 10 page loads.
 */
import { seededRandom } from '../../src/platform/random.js';
import { faceOf, randomUnit } from '../../test/helpers/faceVectors.js';
import { addFace, FACE_THRESHOLDS, seedPeople } from '../../test/helpers/people.js';
import { startTestApp, type TestApp } from '../../test/helpers/testApp.js';
import { measure, now, type BenchOptions, type BenchRow, type SectionResult } from './harness.js';

const MERGE = 100;

async function get(app: TestApp, url: string) {
  const r = await app.request('GET', url);
  if (r.status !== 200) throw new Error(`GET ${url}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

export async function runPeopleBench(opts: BenchOptions): Promise<SectionResult> {
  const t0 = now();
  const people = opts.quick ? 200 : 5000;
  const merges = opts.quick ? 2 : 5;
  const loads = opts.quick ? 10 : 50;
  const app = await startTestApp({}, { RATE_LIMIT_PER_MINUTE: '100000000' });
  try {
    const ds = await app.collection('People bench');
    opts.log(`seeding ${people} people, two faces each`);
    const seeded = await seedPeople(app, ds, new Array(people).fill(2), { seed: 27, crops: false, prefix: 'p' });
    const seedMs = now() - t0;
    const total = (await get(app, `/api/dataset/${ds}/clusters?limit=1`)).pagination.total as number;
    const rows: BenchRow[] = [await mergeRow(app, ds, seeded.clusterIds, merges, opts)];
    const browse = await measure(() => get(app, `/api/dataset/${ds}/media?limit=100`), { reps: loads });
    const page = (label: string, id: string, url: string): Promise<BenchRow> =>
      measure(() => get(app, url), { reps: loads }).then((ours) => ({
        id,
        label,
        ours,
        baseline: { label: 'a browse page of the same collection (GET …/media?limit=100)', stats: browse },
      }));
    opts.log('People page: first and last page, suggestions');
    rows.push(
      await page(
        `People page 1 of ${total} people (limit 100)`,
        'people-page-first',
        `/api/dataset/${ds}/clusters?limit=100`,
      ),
    );
    rows.push(
      await page(
        `People page, the last one (offset ${total - 100})`,
        'people-page-last',
        `/api/dataset/${ds}/clusters?limit=100&offset=${Math.max(0, total - 100)}`,
      ),
    );
    rows.push(
      await page(
        'Suggestions (the 1,000 biggest compared)',
        'people-suggestions',
        `/api/dataset/${ds}/clusters/suggestions`,
      ),
    );
    return {
      section: 'people',
      quick: opts.quick,
      setup: {
        engine: 'sqlite',
        people,
        facesEach: 2,
        peopleListed: total,
        merges,
        loads,
        seedMs: Math.round(seedMs),
      },
      rows,
      findings: [],
      durationMs: now() - t0,
    };
  } finally {
    await app.close();
  }
}

/** Merging 100 people into one, beside clustering 200 new faces (each run on fresh ones). */
async function mergeRow(app: TestApp, ds: string, ids: string[], reps: number, opts: BenchOptions): Promise<BenchRow> {
  opts.log(`merge ${MERGE} people into one, ${reps} times`);
  let next = 0;
  const ours = await measure(
    async () => {
      const group = ids.slice(next, next + MERGE);
      next += MERGE;
      const r = await app.request('POST', `/api/clusters/${group[0]}/merge`, { body: { clusterIds: group.slice(1) } });
      if (r.status !== 200 || r.body.cluster.size !== 2 * MERGE)
        throw new Error(`merge: ${r.status} ${JSON.stringify(r.body)}`);
    },
    { reps, warmup: 0 },
  );
  const r = seededRandom(99);
  const baseline = await measure(
    () => app.app.services.storage.clusters.assignPending(ds, 10_000, { thresholds: FACE_THRESHOLDS }),
    {
      reps,
      warmup: 0,
      before: async (i) => {
        for (let k = 0; k < MERGE; k++) {
          const who = randomUnit(r);
          for (let f = 0; f < 2; f++) await addFace(app, ds, `new${i}-${k}-${f}.jpg`, faceOf(who, 0.9, r), 'crop-new');
        }
      },
    },
  );
  return {
    id: 'people-merge-100',
    label: `merge ${MERGE} people (${2 * MERGE} faces) into one: POST /api/clusters/{id}/merge`,
    ours,
    baseline: { label: `the background clusterer placing ${2 * MERGE} new faces (assignPending)`, stats: baseline },
  };
}
