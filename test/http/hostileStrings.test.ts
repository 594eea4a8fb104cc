/**
 * Hostile strings (issue #29): a seeded generator of strings that break naive code — the names of
 * Object.prototype's properties, 10,000 characters, NUL, RTL and zero-width marks, emoji, lone surrogates
 * and mixes of them — sent through every route that takes a user string that becomes a key or a name:
 * tag groups and values, metadata keys, tag filters, folder and collection names, browse query values.
 *
 * The property: never a 5xx, every refusal a 4xx `{error, message}`, a refusal means the same for
 * the same string on every route (lone surrogates: 400; too long for the field: 400), and what is
 * accepted comes back exactly as it was sent (GET, the collection's tag list, a tag filter finds it, a
 * delete removes it). Object.prototype must be untouched at the end. A failure names the seed and the
 * string (as JSON) so it can be replayed.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { seededRandom } from '../../src/platform/random.js';
import { makeImage, startTestApp, type Reply, type TestApp } from '../helpers/testApp.js';

const SEED = Number(process.env.HOSTILE_SEED ?? 0x29a11);
const ROUNDS = Number(process.env.HOSTILE_ROUNDS ?? 40);

/** The names of Object.prototype's properties, and a few more JS internals. */
const PROTO_NAMES = [
  ...Object.getOwnPropertyNames(Object.prototype),
  'prototype',
  'length',
  'then',
  'toJSON',
  'caller',
  'arguments',
];
const PIECES = [
  '\u0000',
  '\u202e',
  '\u200f',
  '\u200b',
  '\ufeff',
  '😀',
  '👩‍👩‍👧',
  '\ud800',
  '\udfff',
  '\ud83d',
  'é',
  'e\u0301',
  '日本',
  '"',
  "'",
  '\\',
  '%00',
  '.',
  '/',
  ',',
  '{}',
  '\n',
  '\t',
  ' ',
];

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];

/** One hostile string: a prototype name, a long run, or a mix of pieces and random code points. */
function hostile(r: Rand): string {
  const x = r();
  if (x < 0.3) return pick(r, PROTO_NAMES);
  if (x < 0.38) return pick(r, PROTO_NAMES) + pick(r, PIECES);
  if (x < 0.45) return pick(r, ['x', '😀', 'é', '\u0000']).repeat(10_000);
  let s = '';
  const n = 1 + Math.floor(r() * 6);
  for (let i = 0; i < n; i++) {
    const y = r();
    if (y < 0.5) s += pick(r, PIECES);
    else if (y < 0.7) s += pick(r, PROTO_NAMES);
    else s += String.fromCodePoint(Math.floor(r() * 0x10ffff) & ~0x800 /* avoids surrogate code points */);
  }
  return s;
}

/** Whether the string is well-formed UTF-16 (no lone surrogate). */
const wellFormed = (s: string) => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);

interface Ctx {
  app: TestApp;
  datasetId: string;
  mediaId: string;
  failures: string[];
}

const t = suite<Ctx>('hostile strings');

t.before(async (ctx) => {
  ctx.app = await startTestApp({ ingestConcurrency: 0 });
  ctx.datasetId = await ctx.app.collection('hostile');
  const bytes = await makeImage({ color: { r: 9, g: 99, b: 199 }, format: 'png' });
  const up = await ctx.app.upload({ datasetId: ctx.datasetId, name: 'h.png' }, { bytes, filename: 'h.png' });
  assert.is(up.status, 200);
  ctx.mediaId = up.body.mediaId;
  ctx.failures = [];
});
t.after(async (ctx) => ctx.app?.close());

/** Records a failure unless the answer is a 2xx or a 4xx `{error, message}`; answers whether it was a 2xx. */
function judge(ctx: Ctx, what: string, s: string, r: Reply, mustRefuse: boolean): boolean {
  const where = `${what} ${JSON.stringify(s).slice(0, 80)} (seed ${SEED})`;
  if (r.status >= 500) ctx.failures.push(`${where}: ${r.status} ${JSON.stringify(r.body)}`);
  else if (r.status >= 400 && (typeof r.body?.error !== 'string' || typeof r.body?.message !== 'string'))
    ctx.failures.push(`${where}: ${r.status} without {error, message}: ${JSON.stringify(r.body)}`);
  else if (mustRefuse && r.status < 400) ctx.failures.push(`${where}: accepted (${r.status}) but must be refused`);
  return r.status >= 200 && r.status < 300;
}

/** Asserts a condition on accepted data, collecting the failure. */
function expect(ctx: Ctx, ok: boolean, what: string, s: string) {
  if (!ok) ctx.failures.push(`${what} ${JSON.stringify(s).slice(0, 80)} (seed ${SEED})`);
}

const own = (o: unknown, k: string) => o !== null && typeof o === 'object' && Object.hasOwn(o, k);

async function tagRoundTrip(ctx: Ctx, group: string, value: string) {
  const { app, mediaId, datasetId } = ctx;
  const s = `${group} = ${value}`;
  const bad = !wellFormed(group) || !wellFormed(value);
  const tooLong = group.length > 200 || value.length > 500;
  const blank = !group.trim() || !value.trim();
  const add = await app.request('POST', `/api/media/${mediaId}/tags`, { body: { label: group, value } });
  if (!judge(ctx, 'POST tags', s, add, bad || tooLong || blank)) return;
  const [g, v] = [group.trim(), value.trim()];
  const tags = add.body.media.metadata.tags;
  expect(ctx, own(tags, g) && Array.isArray(tags[g]) && tags[g].includes(v), 'POST tags answer lacks', s);
  const got = await app.request('GET', `/api/media/${mediaId}`);
  const gotTags = got.body.media.metadata.tags;
  expect(ctx, own(gotTags, g) && gotTags[g].includes(v), 'GET media lacks tag', s);
  const list = await app.request('GET', `/api/dataset/${datasetId}/tags`);
  judge(ctx, 'GET tags', s, list, false);
  expect(ctx, own(list.body.tags, g) && list.body.tags[g].includes(v), 'collection tag list lacks', s);
  const filter = encodeURIComponent(JSON.stringify({ [g]: [v] }));
  const found = await app.request('GET', `/api/dataset/${datasetId}/media?recursive=true&tagFilters=${filter}`);
  if (judge(ctx, 'browse tagFilters', s, found, false))
    expect(
      ctx,
      found.body.media.some((m: any) => m.id === mediaId),
      'tag filter does not find',
      s,
    );
  const del = await app.request('DELETE', `/api/media/${mediaId}/tags`, { body: { label: g, value: v } });
  judge(ctx, 'DELETE tags', s, del, false);
  const left = del.body?.media?.metadata?.tags;
  expect(ctx, del.status === 200 && !(own(left, g) && left[g].includes(v)), 'DELETE left the value', s);
}

async function metadataRoundTrip(ctx: Ctx, key: string) {
  const { app, mediaId } = ctx;
  const metadata = Object.fromEntries([[key, key]]);
  const r = await app.request('PATCH', `/api/media/${mediaId}`, { body: { metadata } });
  const refuse = !wellFormed(key) || key === '__proto__';
  if (!judge(ctx, 'PATCH metadata', key, r, refuse)) return;
  expect(ctx, own(r.body.media.metadata, key) && r.body.media.metadata[key] === key, 'metadata lost key', key);
  const tagged = Object.fromEntries([[key, [key]]]);
  const t2 = await app.request('PATCH', `/api/media/${mediaId}`, { body: { metadata: { tags: tagged } } });
  if (!judge(ctx, 'PATCH metadata.tags', key, t2, false) || !key.trim()) return;
  const tags = t2.body.media.metadata.tags;
  expect(ctx, own(tags, key.trim()) && tags[key.trim()].includes(key.trim()), 'metadata.tags lost group', key);
}

async function namesRoundTrip(ctx: Ctx, name: string) {
  const { app, datasetId } = ctx;
  const refuse = !wellFormed(name) || !name.trim() || name.length > 255;
  const folder = await app.request('POST', '/api/folder', { body: { datasetId, name } });
  if (judge(ctx, 'POST folder', name, folder, refuse)) {
    expect(ctx, folder.body.folder.name === name.trim(), 'folder name changed', name);
    const del = await app.request('DELETE', `/api/folder/${folder.body.folder.id}`);
    judge(ctx, 'DELETE folder', name, del, false);
  }
  const coll = await app.request('POST', `/api/organization/${app.orgId}/datasets`, { body: { name } });
  if (judge(ctx, 'POST dataset', name, coll, !wellFormed(name) || !name.trim())) {
    expect(ctx, coll.body.dataset.name === name.trim(), 'collection name changed', name);
  }
}

async function browseQuery(ctx: Ctx, s: string) {
  const { app, datasetId } = ctx;
  // Query strings carry UTF-8: a lone surrogate cannot be encoded, and 10,000 characters would pass the header limit.
  const q = wellFormed(s) ? s.slice(0, 1000) : s.replace(/[\ud800-\udfff]/g, '\ufffd').slice(0, 1000);
  for (const name of ['tags', 'tagFilters', 'path', 'q', 'mediaId', 'clusterId', 'sortBy', 'dateFrom', q]) {
    const url = `/api/dataset/${datasetId}/media?${new URLSearchParams([[name, q]])}`;
    judge(ctx, `GET media?${name.slice(0, 20)}=`, q, await app.request('GET', url), false);
  }
  const filters = encodeURIComponent(JSON.stringify(Object.fromEntries([[q, [q]]])));
  judge(
    ctx,
    'GET media?tagFilters',
    q,
    await app.request('GET', `/api/dataset/${datasetId}/media?tagFilters=${filters}`),
    false,
  );
}

t('every route that takes a hostile string answers it: stored exactly, or refused with a 400', async (ctx) => {
  const r = seededRandom(SEED);
  const strings = [...PROTO_NAMES, ...Array.from({ length: ROUNDS }, () => hostile(r))];
  for (const s of strings) {
    await tagRoundTrip(ctx, s, 'v');
    await tagRoundTrip(ctx, 'g', s);
    await tagRoundTrip(ctx, s, s);
    await metadataRoundTrip(ctx, s);
    await namesRoundTrip(ctx, s);
    await browseQuery(ctx, s);
  }
  assert.equal(Object.getOwnPropertyNames(Object.prototype).sort(), PROTO_NAMES.slice(0, -6).sort());
  assert.is(({} as Record<string, unknown>).v, undefined);
  if (ctx.failures.length) assert.unreachable(`${ctx.failures.length} failures:\n${ctx.failures.join('\n')}`);
});

t('an upload takes hostile names and form field names without a 5xx', async (ctx) => {
  const { app, datasetId } = ctx;
  const bytes = await makeImage({ color: { r: 1, g: 2, b: 3 }, format: 'png' });
  const r = seededRandom(SEED + 1);
  const names = ['__proto__', 'constructor', 'toString', ...Array.from({ length: 8 }, () => hostile(r))];
  for (const name of names) {
    const up = await app.upload({ datasetId, name, [name]: name }, { bytes, filename: `${name}.png` });
    if (judge(ctx, 'upload name', name, up, false))
      expect(ctx, typeof up.body.mediaId === 'string', 'no mediaId', name);
  }
  assert.is(({} as Record<string, unknown>)[0], undefined);
  if (ctx.failures.length) assert.unreachable(`${ctx.failures.length} failures:\n${ctx.failures.join('\n')}`);
});

t.run();
