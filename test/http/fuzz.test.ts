/**
 * Fuzz test (issue #16): a fixed seed, a few thousand requests against every operation of
 * /api/openapi.json, with path ids of both organizations, garbage, wrong-typed queries and
 * bodies, and five kinds of credentials. It fails on any 5xx, any error answer that is not
 * `{error, message}` JSON, any connection error, any 2xx for B's key or a forged token on an
 * A-owned id, and any 2xx write by A's viewer key. Every failure is collected and reported at once.
 *
 * Skipped or lightly covered, and why:
 * - POST /api/upload/multipart: no multipart body fuzzing (request edge tests cover multipart refusals);
 *   it only gets JSON and garbage bodies, which must be refused as 4xx.
 * - POST /api/ai/edit, /api/ai/generate and POST /api/admin/reindex: they start long jobs (image
 *   generation, a full re-index); only requests without valid credentials are sent to them.
 * - POST /api/ai/describe|tag|embed|embeddings: inline inference on the stand-in models; bodies never
 *   carry a URL (no network), so they only see garbage `image` values.
 * - POST /api/media/{id}/reprocess: queues an ingest job, harmless with ingestConcurrency 0.
 * - DELETE /api/keys/{keyId}: valid ids are only those of sacrificial keys, so the fuzz never
 *   revokes the credentials it uses.
 * - The owner's signed-in session (a cookie, with the CSRF header on most writes) is one more credential;
 *   it never calls POST /api/auth/logout (that would end it for the rest of the run).
 * - GET /api/events: an answer that opens a live stream (text/event-stream) is judged by its status and
 *   headers, then the fuzz hangs up (the stream would never end by itself).
 */
import { createHmac } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { seededRandom } from '../../src/platform/random.js';
import { setUpOwner, type Browser } from '../helpers/browser.js';
import { makeImage, startTestApp, TEST_KEY, type TestApp } from '../helpers/testApp.js';

const SEED = 0x16f022;
const PER_OPERATION = 90;
const CONCURRENCY = 4;

interface Pools {
  org: { A: string[]; B: string[] };
  dataset: { A: string[]; B: string[] };
  media: { A: string[]; B: string[] };
  folder: { A: string[]; B: string[] };
  key: { A: string[]; B: string[] };
}

interface Ctx {
  app: TestApp;
  viewerA: string;
  keyB: string;
  /** The owner signed in through the setup link: a session in A. */
  session: Browser;
  pools: Pools;
}

const t = suite<Ctx>('fuzz');

t.before(async (ctx) => {
  const app = await startTestApp({ ingestConcurrency: 0 });
  ctx.app = app;
  ctx.session = await setUpOwner(app);
  const must = (r: { status: number; body: any }, what: string) => {
    if (r.status !== 200) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const orgB = must(
    await app.request('POST', '/api/auth/organization/create', { body: { name: 'Fuzz B' } }),
    'create org B',
  ).organization.id as string;
  ctx.viewerA = must(await app.request('POST', '/api/keys', { body: { role: 'viewer' } }), 'viewer A').key;
  ctx.keyB = must(
    await app.request('POST', '/api/keys', { body: { organizationId: orgB, role: 'owner' } }),
    'owner B',
  ).key;
  const spareKeys = async (key: string, organizationId: string) => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        must(await app.request('POST', '/api/keys', { key, body: { organizationId, role: 'viewer' } }), 'key').id,
      );
    return ids;
  };
  const fill = async (key: string, org: string) => {
    const datasets: string[] = [];
    const media: string[] = [];
    const folders: string[] = [];
    for (let d = 0; d < 2; d++) {
      const ds = must(
        await app.request('POST', `/api/organization/${org}/datasets`, { key, body: { name: `ds ${d}` } }),
        'dataset',
      ).dataset.id as string;
      datasets.push(ds);
      for (let f = 0; f < 2; f++)
        folders.push(
          must(await app.request('POST', '/api/folder', { key, body: { datasetId: ds, name: `F${f}` } }), 'folder')
            .folder.id,
        );
      for (let i = 0; i < 3; i++) {
        const bytes = await makeImage({ color: { r: 10 * i, g: 40 * d, b: 90 }, format: 'png' });
        media.push(
          must(await app.upload({ datasetId: ds, name: `i${i}.png` }, { bytes, filename: `i${i}.png` }, key), 'upload')
            .mediaId,
        );
      }
    }
    return { datasets, media, folders };
  };
  const a = await fill(TEST_KEY, app.orgId);
  const b = await fill(ctx.keyB, orgB);
  ctx.pools = {
    org: { A: [app.orgId], B: [orgB] },
    dataset: { A: a.datasets, B: b.datasets },
    media: { A: a.media, B: b.media },
    folder: { A: a.folders, B: b.folders },
    key: { A: await spareKeys(TEST_KEY, app.orgId), B: await spareKeys(ctx.keyB, orgB) },
  };
});
t.after(async (ctx) => ctx.app?.close());

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];

const GARBAGE_STRINGS = [
  '',
  ' ',
  'x',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  'a'.repeat(5000),
  '日本語のテキスト',
  '\u0000nul',
  '\u202eRTL\u200b zero width',
  '😀🙈'.repeat(50),
  '\ud800 lone surrogate',
  '../../etc/passwd',
  "' OR 1=1 --",
  '%',
  '%zz',
  'NaN',
  '-1',
  '1e309',
  'true',
  'null',
  '[]',
  '{}',
  'a.b.c',
  'path.with.dots',
  '*',
];
const GARBAGE_VALUES: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  Number.MAX_SAFE_INTEGER,
  1e308,
  -1e308,
  [],
  {},
  [1, 'a', null],
  { a: { b: { c: { d: { e: [[[[]]]] } } } } },
  'x'.repeat(20000),
];

function deep(n: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < n; i++) v = i % 2 ? { k: v } : [v];
  return v;
}

/** Which pool a path parameter or an id-like field draws from. */
function poolFor(name: string): keyof Pools | null {
  if (/^org(anization)?Id$/.test(name)) return 'org';
  if (name === 'datasetId') return 'dataset';
  if (name === 'mediaId' || name === 'versionId' || name === 'parentId') return 'media';
  if (name === 'folderId') return 'folder';
  if (name === 'keyId') return 'key';
  return null;
}

function idFor(r: Rand, pools: Pools, name: string, mode: 'own' | 'other'): string | undefined {
  const kind = poolFor(name);
  if (!kind) return undefined;
  return pick(r, pools[kind][mode === 'own' ? 'A' : 'B']);
}

/** A path parameter value (raw: already in the form it goes into the URL). */
function pathValue(r: Rand, pools: Pools, name: string): string {
  const x = r();
  if (x < 0.35) return idFor(r, pools, name, 'own') ?? pick(r, GARBAGE_STRINGS.slice(3, 5));
  if (x < 0.6) return idFor(r, pools, name, 'other') ?? pick(r, GARBAGE_STRINGS.slice(3, 5));
  if (x < 0.67) return '';
  if (x < 0.72) return pick(r, ['%E0%A4%A', '%', '%zz', '%00', '%2F..%2F', '..']); // malformed or tricky, raw
  return encodeURIComponent(pick(r, GARBAGE_STRINGS).replace(/\ud800/g, '\ufffd')) || 'x';
}

function queryValue(r: Rand, pools: Pools, name: string): string {
  const x = r();
  if (x < 0.25) return idFor(r, pools, name, r() < 0.5 ? 'own' : 'other') ?? String(Math.floor(r() * 100));
  if (x < 0.45) return pick(r, ['0', '1', '-5', '100000000000000000000', '1.5', 'true', 'false', 'asc', 'desc']);
  if (x < 0.55) return JSON.stringify(pick(r, GARBAGE_VALUES)).slice(0, 3000);
  return pick(r, GARBAGE_STRINGS);
}

/** A value for one body field: valid-looking ids, right or wrong types, nulls, huge and nested things. */
function fieldValue(r: Rand, pools: Pools, name: string, schema: any): unknown {
  const x = r();
  if (x < 0.3) {
    const id = idFor(r, pools, name, r() < 0.6 ? 'own' : 'other');
    if (id) return id;
  }
  if (x < 0.5) {
    const type = schema?.type ?? schema?.anyOf?.[0]?.type;
    if (type === 'string')
      return schema.enum ? pick(r, schema.enum) : pick(r, ['ok name', 'tag', 'a-b', 'x'.repeat(300)]);
    if (type === 'integer' || type === 'number') return pick(r, [0, 1, 7, -3, 1e12]);
    if (type === 'boolean') return r() < 0.5;
    if (type === 'array') return [pick(r, ['a', 'b', 1, null])];
    if (type === 'object') return { k: pick(r, ['v', 1, null]) };
  }
  if (x < 0.55) return deep(Math.floor(r() * 60));
  if (x < 0.75) return pick(r, GARBAGE_VALUES);
  return pick(r, GARBAGE_STRINGS);
}

function bodyFor(r: Rand, pools: Pools, schema: any): string | undefined {
  const x = r();
  if (x < 0.05) return undefined;
  if (x < 0.1) return pick(r, ['not json', '{"unterminated', '', 'null', '[]', '42', '"str"', '{"a":1}{"b":2}']);
  if (x < 0.13) return JSON.stringify(deep(200));
  const props: Record<string, any> = schema?.properties ?? {};
  const body: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(props)) if (r() < 0.75) body[name] = fieldValue(r, pools, name, s);
  if (r() < 0.15) body[pick(r, ['__proto__', 'constructor', 'extra', '日本'])] = pick(r, GARBAGE_VALUES);
  return JSON.stringify(body);
}

type Cred = 'none' | 'ownerA' | 'viewerA' | 'ownerB' | 'forged' | 'sessionA';

function forgedToken(r: Rand, orgA: string): string {
  const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const payload = b64({ sub: 'x', org: orgA, organizationId: orgA, role: 'owner', exp: 4102444800 });
  const kind = Math.floor(r() * 3);
  if (kind === 0) return `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`;
  const head = b64({ alg: 'HS256', typ: 'JWT' });
  const sig = createHmac('sha256', kind === 1 ? 'guessed-secret' : TEST_KEY)
    .update(`${head}.${payload}`)
    .digest('base64url');
  return `${head}.${payload}.${sig}`;
}

interface Op {
  method: string;
  path: string;
  params: Array<{ in: string; name: string; schema?: any }>;
  bodySchema?: any;
  json: boolean;
  /** No key needed (OpenAPI `security: []`): /healthz. */
  open: boolean;
}

/** Operations only sent without valid credentials: they would start long jobs. */
const LONG_JOBS = new Set(['POST /api/ai/edit', 'POST /api/ai/generate', 'POST /api/admin/reindex']);
/** Successful non-GET calls a viewer may make: they change nothing the organization owns. */
const VIEWER_MAY = new Set([
  'POST /api/auth/token',
  'POST /api/auth/logout',
  'POST /api/ai/describe',
  'POST /api/ai/tag',
  'POST /api/ai/embed',
  'POST /api/ai/embeddings',
  // A read sent as POST (a list of hashes): which of them the collection holds; open to viewers.
  'POST /api/dataset/{datasetId}/media/lookup',
]);

interface Failure {
  what: string;
  method: string;
  url: string;
  cred: Cred;
  status: number | string;
  sample: string;
}

t(
  'a seeded fuzz of every OpenAPI operation finds no 5xx, no bad error body, no cross-organization access',
  async (ctx) => {
    const { app, pools } = ctx;
    const doc = (await app.request('GET', '/api/openapi.json')).body;
    const ops: Op[] = [];
    for (const [p, item] of Object.entries<any>(doc.paths))
      for (const [method, op] of Object.entries<any>(item)) {
        const content = op.requestBody?.content ?? {};
        ops.push({
          method: method.toUpperCase(),
          path: p,
          params: op.parameters ?? [],
          bodySchema: content['application/json']?.schema,
          json: Boolean(content['application/json']) || Boolean(content['multipart/form-data']),
          open: Array.isArray(op.security) && op.security.length === 0,
        });
      }
    assert.ok(ops.length > 30, `found ${ops.length} operations`);

    const r = seededRandom(SEED);
    const aIds = new Set<string>(Object.values(pools).flatMap((p) => p.A));
    const requests: Array<() => Promise<void>> = [];
    const failures: Failure[] = [];
    let sent = 0;
    let streams = 0;

    for (const op of ops) {
      const name = `${op.method} ${op.path}`;
      for (let i = 0; i < PER_OPERATION; i++) {
        let cred = pick<Cred>(r, ['none', 'ownerA', 'ownerA', 'viewerA', 'ownerB', 'ownerB', 'forged', 'sessionA']);
        if (LONG_JOBS.has(name) && cred !== 'none') cred = 'forged';
        if (name === 'POST /api/auth/logout' && cred === 'sessionA') cred = 'none';
        const headers: Record<string, string> = {};
        if (cred === 'ownerA') headers['x-api-key'] = TEST_KEY;
        if (cred === 'viewerA') {
          if (r() < 0.5) headers['x-api-key'] = ctx.viewerA;
          else headers.authorization = `Bearer ${ctx.viewerA}`;
        }
        if (cred === 'ownerB') headers['x-api-key'] = ctx.keyB;
        if (cred === 'forged') headers.authorization = `Bearer ${forgedToken(r, app.orgId)}`;
        if (cred === 'sessionA') {
          headers.cookie = `lumen_session=${ctx.session.cookie}`;
          if (r() < 0.9) headers['x-csrf-token'] = ctx.session.csrf!;
        }

        const mentioned: string[] = [];
        let url = op.path.replace(/\{(\w+)\}/g, (_m, p: string) => {
          let v = pathValue(r, pools, p);
          // Never revoke the keys the fuzz itself uses: only spare key ids are valid ones.
          if (p === 'keyId' && (v === ctx.viewerA || v === ctx.keyB)) v = 'x';
          mentioned.push(v);
          return v;
        });
        const query = op.params.filter((p) => p.in === 'query');
        const qs: string[] = [];
        for (const q of query)
          if (r() < 0.45) {
            const v = queryValue(r, pools, q.name);
            if (q.name === 'organizationId') mentioned.push(v);
            qs.push(`${encodeURIComponent(q.name)}=${encodeURIComponent(v.replace(/\ud800/g, '\ufffd'))}`);
          }
        if (r() < 0.05) qs.push(`${pick(r, ['limit', 'offset', 'q'])}=1&${pick(r, ['limit', 'offset', 'q'])}=2`);
        if (qs.length) url += `?${qs.join('&')}`;

        let body: string | undefined;
        if (op.json && op.method !== 'GET') {
          body = bodyFor(r, pools, op.bodySchema);
          if (body) {
            try {
              const parsed = JSON.parse(body);
              if (parsed && typeof parsed === 'object')
                for (const k of ['datasetId', 'organizationId', 'folderId', 'parentId'])
                  if (typeof parsed[k] === 'string') mentioned.push(parsed[k]);
            } catch {
              /* not JSON on purpose */
            }
            headers['content-type'] = r() < 0.95 ? 'application/json' : pick(r, ['text/plain', 'application/xml', '']);
          }
        } else if (r() < 0.05) {
          body = '{"stray":"body"}';
          headers['content-type'] = 'application/json';
        }
        if (body !== undefined && op.method === 'GET') body = undefined;

        const touchesA = mentioned.some((v) => aIds.has(v));
        requests.push(async () => {
          sent++;
          const fail = (what: string, status: number | string, sample: string) =>
            failures.push({
              what,
              method: op.method,
              url: url.slice(0, 160),
              cred,
              status,
              sample: sample.slice(0, 200),
            });
          let status: number;
          let text: string;
          try {
            const aborter = new AbortController();
            const res = await fetch(app.baseUrl + url, { method: op.method, headers, body, signal: aborter.signal });
            status = res.status;
            // A live stream (GET /api/events) never ends by itself: its headers are the answer; hang up.
            if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
              aborter.abort();
              text = '';
              streams++;
            } else text = await res.text();
          } catch (err) {
            fail(
              'connection error',
              'ERR',
              `${(err as Error).message} ${(err as { cause?: Error }).cause?.message ?? ''}`,
            );
            return;
          }
          if (status >= 500) fail('5xx', status, text);
          if (status >= 400) {
            let parsed: any;
            try {
              parsed = JSON.parse(text);
            } catch {
              /* checked below */
            }
            if (typeof parsed?.error !== 'string' || typeof parsed?.message !== 'string')
              fail('error body not {error, message} JSON', status, text);
          }
          const okStatus = status >= 200 && status < 300;
          if (okStatus && touchesA && (cred === 'ownerB' || cred === 'forged'))
            fail(`${cred} succeeded on an A-owned id`, status, text);
          if (okStatus && !op.open && (cred === 'forged' || cred === 'none'))
            fail(`${cred} credentials succeeded`, status, text);
          if (okStatus && cred === 'viewerA' && op.method !== 'GET' && !VIEWER_MAY.has(name))
            fail('viewer key succeeded on a write', status, text);
        });
      }
    }

    // A few requests under /files: the file server answers its own errors, also as {error, message} JSON.
    for (const p of [
      '/files/x/y',
      '/files/',
      '/files/%E0%A4%A/z',
      `/files/${'a'.repeat(3000)}/b`,
      '/files/../../etc/passwd',
    ])
      for (const method of ['GET', 'HEAD', 'POST', 'DELETE'])
        requests.push(async () => {
          sent++;
          try {
            const res = await fetch(app.baseUrl + p, { method });
            const text = await res.text();
            if (res.status >= 500)
              failures.push({
                what: '5xx',
                method,
                url: p,
                cred: 'none',
                status: res.status,
                sample: text.slice(0, 200),
              });
            if (method !== 'HEAD' && res.status >= 400) {
              let parsed: any;
              try {
                parsed = JSON.parse(text);
              } catch {
                /* checked below */
              }
              if (typeof parsed?.error !== 'string' || typeof parsed?.message !== 'string')
                failures.push({
                  what: 'error body not {error, message} JSON',
                  method,
                  url: p.slice(0, 160),
                  cred: 'none',
                  status: res.status,
                  sample: text.slice(0, 200),
                });
            }
          } catch (err) {
            failures.push({
              what: 'connection error',
              method,
              url: p.slice(0, 160),
              cred: 'none',
              status: 'ERR',
              sample: String(err),
            });
          }
        });

    const started = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < requests.length) await requests[next++]();
      }),
    );
    const ms = Date.now() - started;
    if (process.env.FUZZ_VERBOSE) console.log(`fuzz: ${sent} requests (${streams} event streams) in ${ms} ms`);

    assert.ok(sent >= 2000, `sent ${sent} requests`);
    assert.ok(
      failures.length === 0,
      `${failures.length} fuzz failures (seed ${SEED}):\n` +
        failures.map((f) => `${f.what}: ${f.method} ${f.url} [${f.cred}] → ${f.status} ${f.sample}`).join('\n'),
    );

    assert.is((await ctx.session.request('GET', '/api/me')).status, 200, 'the session lived through the fuzz');
    const health = await app.request('GET', '/healthz', { key: null });
    assert.is(health.status, 200, JSON.stringify(health.body));
    const tmp = path.join(app.dataDir, 'tmp');
    assert.equal(existsSync(tmp) ? readdirSync(tmp) : [], [], 'DATA_DIR/tmp is empty');
  },
);

t.run();
