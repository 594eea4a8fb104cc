/**
 * People over HTTP: rename (found by `q`), hide, cover, merge, move faces, suggestions; viewers read only,
 * another organization's people answer 404, bad requests a clear 4xx; every route in the OpenAPI document.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { seedPeople, seedTwins } from '../helpers/people.js';
import { startTestApp, type Reply, type TestApp } from '../helpers/testApp.js';

const t = suite<{ app: TestApp; ds: string; viewer: string; stranger: string }>('people over HTTP');

t.before(async (ctx) => {
  ctx.app = await startTestApp();
  ctx.ds = await ctx.app.collection('Family');
  ctx.viewer = (await ctx.app.request('POST', '/api/keys', { body: { role: 'viewer' } })).body.key;
  const org = (await ctx.app.request('POST', '/api/auth/organization/create', { body: { name: 'Elsewhere' } })).body;
  ctx.stranger = (
    await ctx.app.request('POST', '/api/keys', { body: { organizationId: org.organization.id, role: 'owner' } })
  ).body.key;
});
t.after(async (ctx) => ctx.app.close());

const ok = (r: Reply, what: string) => assert.is(r.status, 200, `${what}: ${r.status} ${JSON.stringify(r.body)}`);
const fails = (r: Reply, status: number, what: string) => {
  assert.is(r.status, status, `${what}: ${r.status} ${JSON.stringify(r.body)}`);
  assert.type(r.body.error, 'string');
  assert.type(r.body.message, 'string');
};
const ids = (r: Reply) => (r.body.media as Array<{ id: string }>).map((m) => m.id);

t('rename: listed first with the name, found by q alone and with other words; cleared', async ({ app, ds }) => {
  const p = await seedPeople(app, ds, [4, 2, 3], {
    seed: 1,
    prefix: 'rn',
    captions: { 'rn1-0.jpg': 'a picnic on the beach' },
  });
  const [, bob] = p.clusterIds;
  const r = await app.request('PATCH', `/api/clusters/${bob}`, { body: { name: '  Alice   Martin ' } });
  ok(r, 'rename');
  assert.equal([r.body.cluster.name, r.body.cluster.datasetId, r.body.cluster.size], ['Alice Martin', ds, 2]);
  const list = await app.request('GET', `/api/dataset/${ds}/clusters`);
  assert.equal(
    list.body.clusters.map((c: { id: string; name: string | null }) => [c.id, c.name]),
    [
      [bob, 'Alice Martin'],
      [p.clusterIds[0], null],
      [p.clusterIds[2], null],
    ],
    'named first, then by size',
  );
  const alone = await app.request('GET', `/api/dataset/${ds}/media?q=Alice&recursive=true&limit=50`);
  ok(alone, 'q=Alice');
  assert.equal(ids(alone).slice(0, 2).sort(), [...p.items[1]].sort(), 'her photos first');
  const both = await app.request(
    'GET',
    `/api/dataset/${ds}/media?q=${encodeURIComponent('alice beach')}&recursive=true`,
  );
  assert.is(ids(both)[0], p.items[1][0], 'her photo on the beach first');
  const org = await app.request('GET', `/api/search?q=Martin&organizationId=${app.orgId}&limit=50`);
  ok(org, '/api/search');
  const found = (org.body.results as Array<{ media: { id: string } }>).map((x) => x.media.id);
  assert.equal(found.slice(0, 2).sort(), [...p.items[1]].sort(), '/api/search finds her by name too');
  ok(await app.request('PATCH', `/api/clusters/${bob}`, { body: { name: '' } }), 'clear');
  const gone = await app.request('GET', `/api/dataset/${ds}/media?q=Martin&recursive=true`);
  assert.not.ok(ids(gone).slice(0, 2).includes(p.items[1][0]) && ids(gone).includes(p.items[1][1]));
  fails(await app.request('PATCH', `/api/clusters/${bob}`, { body: { name: 'x'.repeat(150) } }), 400, 'too long');
  fails(await app.request('PATCH', `/api/clusters/${bob}`, { body: {} }), 400, 'nothing');
});

t('hide, cover, faces, merge many, move out, suggestions', async ({ app }) => {
  const ds = await app.collection('Edits');
  const p = await seedPeople(app, ds, [3, 2, 2, 2], { seed: 2, prefix: 'ed' });
  const [a, b, c, d] = p.clusterIds;
  ok(await app.request('PATCH', `/api/clusters/${d}`, { body: { hidden: true } }), 'hide');
  const visible = await app.request('GET', `/api/dataset/${ds}/clusters`);
  assert.is(visible.body.pagination.total, 3);
  const all = await app.request('GET', `/api/dataset/${ds}/clusters?includeHidden=true`);
  assert.is(all.body.pagination.total, 4);
  assert.ok(all.body.clusters.find((x: { id: string }) => x.id === d).hidden);

  const cover = await app.request('PATCH', `/api/clusters/${a}`, { body: { coverObjectId: p.faces[0][2] } });
  ok(cover, 'cover');
  assert.is(cover.body.cluster.previewObjectId, p.faces[0][2]);
  assert.is((await fetch(cover.body.cluster.preview)).status, 200, 'the crop is served');
  fails(await app.request('PATCH', `/api/clusters/${a}`, { body: { coverObjectId: p.faces[1][0] } }), 400, 'not hers');

  const faces = await app.request('GET', `/api/clusters/${a}/faces`);
  ok(faces, 'faces');
  assert.equal(faces.body.faces.map((f: { objectId: string }) => f.objectId).sort(), [...p.faces[0]].sort());

  const merged = await app.request('POST', `/api/clusters/${a}/merge`, { body: { clusterIds: [b, c] } });
  ok(merged, 'merge');
  assert.equal([merged.body.cluster.size, merged.body.cluster.mediaCount], [7, 7]);
  fails(await app.request('GET', `/api/clusters/${b}`), 404, 'merged away');
  const browse = await app.request('GET', `/api/dataset/${ds}/media?clusterId=${a}&recursive=true&limit=50`);
  assert.is(browse.body.media.length, 7);
  fails(await app.request('POST', `/api/clusters/${a}/merge`, { body: { clusterIds: [a] } }), 400, 'only itself');

  const moved = await app.request('POST', `/api/clusters/${a}/faces/move`, {
    body: { objectIds: [p.faces[1][0], p.faces[1][1]], to: null },
  });
  ok(moved, 'not this person');
  assert.is(moved.body.moved, 2);
  const fresh = await app.request('GET', `/api/clusters/${moved.body.clusterId}`);
  assert.is(fresh.body.cluster.size, 2);
  const back = await app.request('POST', `/api/clusters/${a}/faces/move`, {
    body: { objectIds: [p.faces[2][0]], to: moved.body.clusterId },
  });
  ok(back, 'to another person');
  assert.is((await app.request('GET', `/api/clusters/${a}`)).body.cluster.size, 4);
  fails(
    await app.request('POST', `/api/clusters/${a}/faces/move`, { body: { objectIds: [p.faces[3][0]], to: null } }),
    400,
    'a face not hers',
  );
  fails(await app.request('POST', `/api/clusters/${a}/faces/move`, { body: { objectIds: [], to: null } }), 400, 'none');
  const sugg = await app.request('GET', `/api/dataset/${ds}/clusters/suggestions`);
  ok(sugg, 'suggestions');
  assert.ok(Array.isArray(sugg.body.suggestions));
});

t('viewers read but never write; another organization sees 404; bad ids 404', async ({ app, ds, viewer, stranger }) => {
  const p = await seedPeople(app, ds, [2, 2], { seed: 3, prefix: 'ro' });
  const [a, b] = p.clusterIds;
  ok(await app.request('GET', `/api/clusters/${a}`, { key: viewer }), 'viewer reads');
  ok(await app.request('GET', `/api/clusters/${a}/faces`, { key: viewer }), 'viewer reads faces');
  ok(await app.request('GET', `/api/dataset/${ds}/clusters/suggestions`, { key: viewer }), 'viewer suggestions');
  const writes: Array<[string, string, unknown]> = [
    ['PATCH', `/api/clusters/${a}`, { name: 'Eve' }],
    ['POST', `/api/clusters/${a}/merge`, { clusterIds: [b] }],
    ['POST', `/api/clusters/${a}/faces/move`, { objectIds: [p.faces[0][0]], to: null }],
    ['POST', `/api/clusters/${a}/not-same-person`, { clusterId: b }],
  ];
  for (const [method, url, body] of writes) {
    fails(await app.request(method, url, { key: viewer, body }), 403, `viewer ${method} ${url}`);
    fails(await app.request(method, url, { key: stranger, body }), 404, `stranger ${method} ${url}`);
  }
  fails(await app.request('GET', `/api/clusters/${a}`, { key: stranger }), 404, 'stranger reads');
  fails(await app.request('GET', `/api/clusters/${a}/faces`, { key: stranger }), 404, 'stranger faces');
  fails(await app.request('GET', `/api/clusters/not-an-id`), 404, 'bad id');
  fails(await app.request('POST', `/api/clusters/${a}/merge`, { body: { clusterIds: ['f'.repeat(32)] } }), 404, 'none');
  fails(await app.request('PATCH', `/api/clusters/${a}`, { body: { hidden: 'yes' } }), 400, 'bad body');
  assert.is((await app.request('GET', `/api/clusters/${a}`)).body.cluster.name, null, 'nothing was changed');
  const spec = (await app.request('GET', '/api/openapi.json')).body;
  for (const path of [
    '/api/clusters/{clusterId}',
    '/api/clusters/{clusterId}/merge',
    '/api/clusters/{clusterId}/faces',
    '/api/clusters/{clusterId}/faces/move',
    '/api/dataset/{datasetId}/clusters/suggestions',
    '/api/clusters/{clusterId}/not-same-person',
  ])
    assert.ok(spec.paths[path], `${path} documented`);
});

const twins = seedTwins;
const pairsOf = async (app: TestApp, ds: string) =>
  (await app.request('GET', `/api/dataset/${ds}/clusters/suggestions`)).body.suggestions.map(
    (x: { a: { id: string }; b: { id: string } }) => [x.a.id, x.b.id].sort(),
  );

t('suggestions: two people the clustering left apart, at the configured threshold; one merge joins them', async () => {
  // Suggestions compare cluster centres with the model's threshold (here the FACE_CLUSTER_THRESHOLDS setting,
  // 0.3); the faces were clustered at 0.45, so two people whose identities are at cosine 0.4 stay apart.
  const app = await startTestApp({}, { FACE_CLUSTER_THRESHOLDS: 'testface=0.3' });
  try {
    const ds = await app.collection('Twins');
    const p = await twins(app, ds);
    assert.is(new Set(p.clusterIds).size, 3, 'three people after clustering');
    const s = await app.request('GET', `/api/dataset/${ds}/clusters/suggestions`);
    ok(s, 'suggestions');
    assert.equal(await pairsOf(app, ds), [[p.clusterIds[0], p.clusterIds[1]].sort()], JSON.stringify(s.body));
    assert.ok(s.body.suggestions[0].similarity >= 0.3);
    // Named differently, they are two people: no longer suggested.
    await app.request('PATCH', `/api/clusters/${p.clusterIds[0]}`, { body: { name: 'Ann' } });
    await app.request('PATCH', `/api/clusters/${p.clusterIds[1]}`, { body: { name: 'Anna' } });
    assert.equal((await app.request('GET', `/api/dataset/${ds}/clusters/suggestions`)).body.suggestions, []);
    await app.request('PATCH', `/api/clusters/${p.clusterIds[1]}`, { body: { name: null } });
    const merged = await app.request('POST', `/api/clusters/${p.clusterIds[0]}/merge`, {
      body: { clusterIds: [p.clusterIds[1]] },
    });
    ok(merged, 'merge');
    assert.equal([merged.body.cluster.name, merged.body.cluster.size], ['Ann', 9]);
    assert.equal((await app.request('GET', `/api/dataset/${ds}/clusters/suggestions`)).body.suggestions, []);
  } finally {
    await app.close();
  }
});

t('not the same person: a dismissed suggestion stays dismissed, through new faces and a re-cluster', async () => {
  const app = await startTestApp({}, { FACE_CLUSTER_THRESHOLDS: 'testface=0.3' });
  try {
    const ds = await app.collection('Twins');
    const p = await twins(app, ds);
    const [a, b, c] = p.clusterIds;
    fails(await app.request('POST', `/api/clusters/${a}/not-same-person`, { body: { clusterId: a } }), 400, 'self');
    fails(await app.request('POST', `/api/clusters/${a}/not-same-person`, { body: {} }), 400, 'no body');
    const other = await app.collection('Other');
    const q = await seedPeople(app, other, [2], { seed: 12, prefix: 'ot' });
    fails(
      await app.request('POST', `/api/clusters/${a}/not-same-person`, { body: { clusterId: q.clusterIds[0] } }),
      404,
      'another collection',
    );
    const r = await app.request('POST', `/api/clusters/${b}/not-same-person`, { body: { clusterId: a } });
    ok(r, 'dismiss');
    assert.equal(r.body.clusterIds, [a, b].sort());
    assert.equal(await pairsOf(app, ds), []);
    ok(await app.request('POST', `/api/clusters/${a}/not-same-person`, { body: { clusterId: b } }), 'twice is fine');
    // More faces of the third person, clustered: the dismissed pair does not come back.
    await seedPeople(app, ds, [2], { seed: 13, prefix: 'more' });
    assert.equal(await pairsOf(app, ds), []);
    assert.ok((await app.request('GET', `/api/clusters/${c}`)).status === 200);
  } finally {
    await app.close();
  }
});

t.run();
