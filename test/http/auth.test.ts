/**
 * Authentication, API keys, Bearer tokens, roles, organizations, rate limit
 * and first-start bootstrap, all through real HTTP.
 */
import { createHash, createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/platform/logger.js';
import { makeImage, startTestApp, TEST_KEY, type Reply, type TestApp } from '../helpers/testApp.js';

const UNAUTHORIZED = { error: 'Unauthorized', message: 'Invalid or missing API key' };

interface Ctx {
  app: TestApp;
  ds: string;
  /** An image in `ds`, and a folder in `ds`. */
  img: string;
  folder: { id: string; path: string };
}

const t = suite<Ctx>('auth, keys, roles, organizations');

t.before(async (ctx) => {
  ctx.app = await startTestApp();
  ctx.ds = await ctx.app.collection('Auth');
  ctx.folder = (await ctx.app.request('POST', '/api/folder', { body: { datasetId: ctx.ds, name: 'F' } })).body.folder;
  const up = await ctx.app.upload({ datasetId: ctx.ds }, { bytes: await makeImage(), filename: 'a.jpg' });
  ctx.img = up.body.mediaId;
});
t.after(async (ctx) => ctx.app.close());

/** A request with arbitrary headers and no x-api-key added by the helper. */
function raw(
  app: TestApp,
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Reply> {
  return app.request(method, url, { key: null, headers, body });
}

/** Multipart upload with arbitrary auth headers. */
async function uploadWith(
  app: TestApp,
  headers: Record<string, string>,
  fields: Record<string, string>,
  bytes: Buffer,
  filename = 'x.jpg',
): Promise<Reply> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([bytes], { type: 'image/jpeg' }), filename);
  const res = await fetch(app.baseUrl + '/api/upload/multipart', { method: 'POST', headers, body: form });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/** Asserts a 2xx whose body carries no `error` field (compat: clients treat a truthy `error` as failure). */
function ok(r: Reply, what: string): void {
  assert.ok(r.status >= 200 && r.status < 300, `${what}: ${r.status} ${JSON.stringify(r.body)}`);
  if (r.body && typeof r.body === 'object')
    assert.is((r.body as { error?: unknown }).error, undefined, `${what}: success body has no error`);
}

/** Asserts an error status with an `{error, message}` body and nothing else. */
function fails(r: Reply, status: number, what: string): void {
  assert.is(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
  assert.type(r.body?.error, 'string', `${what}: error field`);
  assert.type(r.body?.message, 'string', `${what}: message field`);
  assert.equal(Object.keys(r.body).sort(), ['error', 'message'], `${what}: no data beside error and message`);
}

const b64url = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');

async function newKey(app: TestApp, body: object, key = TEST_KEY) {
  const r = await app.request('POST', '/api/keys', { body, key });
  ok(r, `create key ${JSON.stringify(body)}`);
  return r.body as { id: string; key: string; name: string; organizationId: string; role: string; createdAt: string };
}

t('401 with the exact body for missing, wrong and garbage credentials on several routes', async ({ app, ds, img }) => {
  const routes: Array<[string, string, unknown?]> = [
    ['GET', `/api/dataset/${ds}/media`],
    ['GET', `/api/media/${img}`],
    ['GET', '/api/me'],
    ['POST', '/api/auth/token'],
    ['GET', '/api/keys'],
    ['PATCH', `/api/media/${img}/move`, { destinationPath: ds.replace(/-/g, '') }],
    ['POST', `/api/media/${img}/tags`, { label: 'a', value: 'b' }],
    ['GET', `/api/dataset/${ds}/tags`],
    ['POST', '/api/folder', { datasetId: ds, name: 'nope' }],
  ];
  const creds: Array<[string, Record<string, string>]> = [
    ['missing', {}],
    ['wrong x-api-key', { 'x-api-key': 'mlk_wrongwrongwrongwrongwrongwrong' }],
    ['empty x-api-key', { 'x-api-key': '' }],
    ['wrong Bearer key', { authorization: 'Bearer mlk_wrongwrongwrongwrongwrongwrong' }],
    ['garbage Bearer', { authorization: 'Bearer !!!not-a-token' }],
    ['garbage three-part Bearer', { authorization: 'Bearer a.b.c' }],
    ['Basic scheme', { authorization: `Basic ${Buffer.from(`user:${TEST_KEY}`).toString('base64')}` }],
    ['Bearer without credential', { authorization: 'Bearer ' }],
  ];
  for (const [method, url, body] of routes) {
    for (const [label, headers] of creds) {
      const r = await raw(app, method, url, headers, body);
      assert.is(r.status, 401, `${label} on ${method} ${url}`);
      assert.equal(r.body, UNAUTHORIZED, `${label} on ${method} ${url}`);
    }
  }
  // The upload route refuses before reading the file.
  const up = await uploadWith(app, {}, { datasetId: ds }, await makeImage());
  assert.is(up.status, 401);
  assert.equal(up.body, UNAUTHORIZED);
  // Nothing was stored by the refused upload.
  const list = await app.request('GET', `/api/dataset/${ds}/media?recursive=true&limit=100`);
  assert.is(list.body.pagination.total, 2);
});

t('x-api-key, Bearer key and Bearer token all work on every kind of route', async ({ app, ds, folder }) => {
  const tok = await app.request('POST', '/api/auth/token');
  ok(tok, 'token');
  assert.equal(Object.keys(tok.body).sort(), ['expiresAt', 'token']);
  assert.type(tok.body.token, 'string');
  assert.is(tok.body.token.split('.').length, 3);
  const ahead = Date.parse(tok.body.expiresAt) - Date.now();
  assert.ok(Math.abs(ahead - 3600_000) < 60_000, `expiresAt about an hour ahead (${ahead} ms)`);
  assert.match(tok.body.expiresAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

  const variants: Array<[string, Record<string, string>]> = [
    ['x-api-key', { 'x-api-key': TEST_KEY }],
    ['Bearer key', { authorization: `Bearer ${TEST_KEY}` }],
    ['Bearer token', { authorization: `Bearer ${tok.body.token}` }],
    ['lower-case bearer token', { authorization: `bearer ${tok.body.token}` }],
  ];
  const root = ds.replace(/-/g, '');
  for (const [label, h] of variants) {
    ok(await raw(app, 'GET', '/api/me', h), `${label}: me`);
    ok(await raw(app, 'GET', `/api/organization/${app.orgId}/datasets`, h), `${label}: list collections`);
    ok(await raw(app, 'GET', `/api/dataset/${ds}`, h), `${label}: get collection`);
    ok(await raw(app, 'GET', `/api/dataset/${ds}/media`, h), `${label}: browse`);
    ok(await raw(app, 'GET', `/api/dataset/${ds}/tags`, h), `${label}: tags aggregate`);
    const up = await uploadWith(
      app,
      h,
      { datasetId: ds },
      await makeImage({ color: { r: 1, g: 2, b: label.length } }),
      `${label}.jpg`,
    );
    ok(up, `${label}: upload`);
    const id = up.body.mediaId as string;
    ok(await raw(app, 'GET', `/api/media/${id}`, h), `${label}: get media`);
    ok(await raw(app, 'POST', `/api/media/${id}/tags`, h, { label: 'via', value: label }), `${label}: add tag`);
    ok(
      await raw(app, 'PATCH', `/api/media/${id}/tags`, h, { oldLabel: 'via', newLabel: 'by' }),
      `${label}: rename tag group`,
    );
    ok(await raw(app, 'DELETE', `/api/media/${id}/tags`, h, { label: 'by', value: label }), `${label}: remove tag`);
    ok(await raw(app, 'PATCH', `/api/media/${id}`, h, { name: `${label} renamed` }), `${label}: rename`);
    const mv = await raw(app, 'PATCH', `/api/media/${id}/move`, h, { destinationPath: folder.path });
    ok(mv, `${label}: move`);
    assert.is(mv.body.newPath, `${folder.path}.${id}`);
    ok(await raw(app, 'PATCH', `/api/media/${id}/move`, h, { destinationPath: root }), `${label}: move back`);
    const f = await raw(app, 'POST', '/api/folder', h, { datasetId: ds, name: `by ${label}` });
    ok(f, `${label}: folder create`);
    ok(await raw(app, 'GET', `/api/folder/${f.body.folder.id}`, h), `${label}: get folder`);
    ok(await raw(app, 'DELETE', `/api/folder/${f.body.folder.id}`, h), `${label}: delete folder`);
    ok(await raw(app, 'GET', `/api/media/${id}/versions`, h), `${label}: versions`);
    ok(await raw(app, 'DELETE', `/api/media/${id}`, h), `${label}: delete`);
    ok(await raw(app, 'GET', '/api/keys', h), `${label}: list keys`);
    ok(await raw(app, 'GET', '/api/auth/organization/list', h), `${label}: org list`);
    ok(await raw(app, 'POST', '/api/auth/token', h), `${label}: token from token`);
  }
});

t('expired, forged and re-signed-with-other-key tokens are 401', async ({ app, ds }) => {
  const { token } = (await app.request('POST', '/api/auth/token')).body as { token: string };
  const [h, p, sig] = token.split('.');
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8'));
  const check = async (tkn: string, what: string) => {
    for (const url of [`/api/dataset/${ds}/media`, '/api/me', `/api/dataset/${ds}/tags`]) {
      const r = await raw(app, 'GET', url, { authorization: `Bearer ${tkn}` });
      assert.is(r.status, 401, `${what} on ${url}`);
      assert.equal(r.body, UNAUTHORIZED, `${what} on ${url}`);
    }
  };
  // Forged: one payload character changed, signature kept.
  const i = Math.floor(p.length / 2);
  const forgedPayload = p.slice(0, i) + (p[i] === 'A' ? 'B' : 'A') + p.slice(i + 1);
  await check(`${h}.${forgedPayload}.${sig}`, 'payload char changed');
  // Forged: role raised, signature kept.
  await check(`${h}.${b64url({ ...claims, role: 'owner', exp: claims.exp + 999_999 })}.${sig}`, 'claims rewritten');
  // Signature changed.
  await check(`${h}.${p}.${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BB' : 'AA'}`, 'signature changed');
  await check(`${h}.${p}.`, 'signature removed');
  // alg none.
  await check(`${b64url({ alg: 'none', typ: 'JWT' })}.${p}.`, 'alg none');
  // Signed with some other secret.
  const other = `${h}.${p}`;
  await check(
    `${other}.${createHmac('sha256', 'not the server key').update(other).digest('base64url')}`,
    'wrong signing key',
  );
  // Expired but correctly signed with the server's own token key.
  const expiredBody = `${h}.${b64url({ ...claims, iat: claims.iat - 7200, exp: Math.floor(Date.now() / 1000) - 5 })}`;
  const expiredSig = createHmac('sha256', app.app.services.tokenKey).update(expiredBody).digest('base64url');
  await check(`${expiredBody}.${expiredSig}`, 'expired');
  // The same construction with a future exp does work: the expiry is what refused it above.
  const freshBody = `${h}.${b64url({ ...claims, exp: Math.floor(Date.now() / 1000) + 60 })}`;
  const freshSig = createHmac('sha256', app.app.services.tokenKey).update(freshBody).digest('base64url');
  ok(
    await raw(app, 'GET', '/api/me', { authorization: `Bearer ${freshBody}.${freshSig}` }),
    'control: re-signed fresh token',
  );
  // A token as x-api-key is not a key.
  const asKey = await raw(app, 'GET', '/api/me', { 'x-api-key': token });
  assert.is(asKey.status, 401);
  assert.equal(asKey.body, UNAUTHORIZED);
});

t('keys: create, use, list without secrets, revoke at once (key and its tokens)', async ({ app, ds }) => {
  const k = await newKey(app, { name: 'ci key', role: 'member' });
  assert.equal(Object.keys(k).sort(), ['createdAt', 'id', 'key', 'name', 'organizationId', 'role']);
  assert.is(k.name, 'ci key');
  assert.is(k.role, 'member');
  assert.is(k.organizationId, app.orgId);
  assert.type(k.key, 'string');
  assert.ok(k.key.length >= 20);
  assert.match(k.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  ok(await app.request('GET', `/api/dataset/${ds}/media`, { key: k.key }), 'new key works');
  const me = await app.request('GET', '/api/me', { key: k.key });
  assert.is(me.body.organizationId, app.orgId);

  // Role defaults to the caller's.
  const dflt = await newKey(app, {});
  assert.is(dflt.role, 'owner');
  assert.is(dflt.organizationId, app.orgId);

  const list = await app.request('GET', '/api/keys');
  ok(list, 'list keys');
  const keys = list.body.keys as Array<Record<string, unknown>>;
  assert.ok(Array.isArray(keys));
  const mine = keys.find((x) => x.id === k.id);
  assert.ok(mine, 'new key listed');
  assert.is(mine!.name, 'ci key');
  assert.is(mine!.role, 'member');
  const text = JSON.stringify(list.body);
  for (const x of keys) {
    for (const field of ['key', 'keyHash', 'hash', 'secret', 'key_hash'])
      assert.is(x[field], undefined, `listing has no ${field}`);
  }
  assert.not.ok(text.includes(k.key), 'the secret is not in the listing');
  assert.not.ok(text.includes(TEST_KEY), 'the bootstrap secret is not in the listing');
  assert.not.ok(text.includes(sha256(k.key)), 'the hash is not in the listing');

  // Revoke: the key and the tokens issued from it stop working at once.
  const tok = (await app.request('POST', '/api/auth/token', { key: k.key })).body.token as string;
  ok(
    await raw(app, 'GET', `/api/dataset/${ds}/media`, { authorization: `Bearer ${tok}` }),
    'token works before revoke',
  );
  const del = await app.request('DELETE', `/api/keys/${k.id}`, { headers: { 'content-type': 'application/json' } });
  ok(del, 'revoke');
  for (const h of <Array<Record<string, string>>>[
    { 'x-api-key': k.key },
    { authorization: `Bearer ${k.key}` },
    { authorization: `Bearer ${tok}` },
  ]) {
    const r = await raw(app, 'GET', `/api/dataset/${ds}/media`, h);
    assert.is(r.status, 401, JSON.stringify(h).slice(0, 30));
    assert.equal(r.body, UNAUTHORIZED);
  }
  assert.not.ok(
    (await app.request('GET', '/api/keys')).body.keys.some((x: { id: string }) => x.id === k.id),
    'revoked key no longer listed',
  );
  fails(await app.request('DELETE', `/api/keys/${k.id}`), 404, 'revoking twice');
  fails(await app.request('DELETE', '/api/keys/00000000-0000-0000-0000-000000000000'), 404, 'unknown key');
  // Other keys keep working.
  ok(await app.request('GET', '/api/me', { key: dflt.key }), 'other key still works');
  ok(await app.request('GET', '/api/me'), 'bootstrap key still works');
  // Bad input.
  fails(await app.request('POST', '/api/keys', { body: { role: 'superuser' } }), 400, 'unknown role');
  fails(
    await app.request('POST', '/api/keys', { body: { organizationId: '00000000-0000-0000-0000-000000000000' } }),
    404,
    'unknown org',
  );
});

const sha256 = (v: string) => createHash('sha256').update(v).digest('hex');

t(
  'role matrix: viewer reads only; member writes items; admin manages folders and keys',
  async ({ app, ds, folder }) => {
    const admin = await newKey(app, { role: 'admin', name: 'admin' });
    const member = await newKey(app, { role: 'member', name: 'member' });
    const viewer = await newKey(app, { role: 'viewer', name: 'viewer' });
    assert.equal([admin.role, member.role, viewer.role], ['admin', 'member', 'viewer']);
    const root = ds.replace(/-/g, '');
    const fresh = async () =>
      (
        await app.upload(
          { datasetId: ds },
          { bytes: await makeImage({ color: { r: 9, g: 9, b: 9 } }), filename: 'r.jpg' },
        )
      ).body.mediaId as string;
    const target = await fresh();
    await app.request('POST', `/api/media/${target}/tags`, { body: { label: 'g', value: 'v' } });

    // Viewer: reads work.
    const v = viewer.key;
    ok(await app.request('GET', `/api/dataset/${ds}/media`, { key: v }), 'viewer browse');
    ok(
      await app.request('GET', `/api/dataset/${ds}/media?recursive=true&type=folder`, { key: v }),
      'viewer browse folders',
    );
    ok(await app.request('GET', `/api/dataset/${ds}`, { key: v }), 'viewer get collection');
    ok(await app.request('GET', `/api/organization/${app.orgId}/datasets`, { key: v }), 'viewer list collections');
    ok(await app.request('GET', `/api/media/${target}`, { key: v }), 'viewer get media');
    ok(await app.request('GET', `/api/media/${target}/versions`, { key: v }), 'viewer versions');
    ok(await app.request('GET', `/api/folder/${folder.id}`, { key: v }), 'viewer get folder');
    const agg = await app.request('GET', `/api/dataset/${ds}/tags`, { key: v });
    ok(agg, 'viewer tag aggregate');
    assert.ok(agg.body.tags.g.includes('v'));
    ok(await app.request('POST', '/api/auth/token', { key: v }), 'viewer token');
    // Viewer: every write is 403, and nothing changes.
    const vUp = await app.upload({ datasetId: ds }, { bytes: await makeImage(), filename: 'v.jpg' }, v);
    fails(vUp, 403, 'viewer upload');
    fails(
      await app.request('POST', `/api/media/${target}/tags`, { key: v, body: { label: 'g', value: 'w' } }),
      403,
      'viewer tag add',
    );
    fails(
      await app.request('DELETE', `/api/media/${target}/tags`, { key: v, body: { label: 'g', value: 'v' } }),
      403,
      'viewer tag remove',
    );
    fails(
      await app.request('DELETE', `/api/media/${target}/tags`, { key: v, body: { label: 'g' } }),
      403,
      'viewer tag group remove',
    );
    fails(
      await app.request('PATCH', `/api/media/${target}/tags`, { key: v, body: { oldLabel: 'g', newLabel: 'h' } }),
      403,
      'viewer tag rename',
    );
    fails(
      await app.request('PATCH', `/api/media/${target}`, { key: v, body: { name: 'viewer was here' } }),
      403,
      'viewer rename',
    );
    fails(
      await app.request('PATCH', `/api/media/${target}/move`, { key: v, body: { destinationPath: folder.path } }),
      403,
      'viewer move',
    );
    fails(await app.request('DELETE', `/api/media/${target}`, { key: v }), 403, 'viewer delete');
    fails(
      await app.request('POST', '/api/folder', { key: v, body: { datasetId: ds, name: 'viewer folder' } }),
      403,
      'viewer folder create',
    );
    fails(
      await app.request('PATCH', `/api/folder/${folder.id}`, { key: v, body: { name: 'x' } }),
      403,
      'viewer folder rename',
    );
    fails(await app.request('DELETE', `/api/folder/${folder.id}`, { key: v }), 403, 'viewer folder delete');
    fails(
      await app.request('POST', `/api/organization/${app.orgId}/datasets`, { key: v, body: { name: 'x' } }),
      403,
      'viewer collection create',
    );
    fails(
      await app.request('PATCH', `/api/dataset/${ds}`, { key: v, body: { name: 'x' } }),
      403,
      'viewer collection rename',
    );
    fails(
      await app.request('POST', '/api/keys', { key: v, body: { role: 'owner' } }),
      403,
      'viewer creates an owner key',
    );
    fails(await app.request('POST', '/api/keys', { key: v, body: {} }), 403, 'viewer creates a key');
    fails(await app.request('GET', '/api/keys', { key: v }), 403, 'viewer lists keys');
    fails(await app.request('DELETE', `/api/keys/${member.id}`, { key: v }), 403, 'viewer revokes a key');
    const after = (await app.request('GET', `/api/media/${target}`)).body.media;
    assert.equal(after.metadata.tags, { g: ['v'] }, 'viewer changed nothing');
    assert.is(after.name, 'r.jpg');
    assert.is(after.path, `${root}.${target}`);
    // A viewer's token carries the viewer role.
    const vTok = (await app.request('POST', '/api/auth/token', { key: v })).body.token as string;
    fails(
      await raw(app, 'DELETE', `/api/media/${target}`, { authorization: `Bearer ${vTok}` }),
      403,
      'viewer token delete',
    );

    // Member: item writes work.
    const m = member.key;
    const mUp = await app.upload(
      { datasetId: ds, path: folder.path },
      { bytes: await makeImage({ color: { r: 5, g: 50, b: 5 } }), filename: 'm.jpg' },
      m,
    );
    ok(mUp, 'member upload');
    const mid = mUp.body.mediaId as string;
    ok(
      await app.request('POST', `/api/media/${mid}/tags`, { key: m, body: { label: 'who', value: 'member' } }),
      'member tag add',
    );
    ok(
      await app.request('PATCH', `/api/media/${mid}/tags`, { key: m, body: { oldLabel: 'who', newLabel: 'by' } }),
      'member tag rename',
    );
    ok(
      await app.request('DELETE', `/api/media/${mid}/tags`, { key: m, body: { label: 'by', value: 'member' } }),
      'member tag remove',
    );
    ok(await app.request('PATCH', `/api/media/${mid}`, { key: m, body: { name: 'by member' } }), 'member rename');
    ok(
      await app.request('PATCH', `/api/media/${mid}/move`, { key: m, body: { destinationPath: root } }),
      'member move',
    );
    ok(await app.request('DELETE', `/api/media/${mid}`, { key: m }), 'member delete');
    fails(
      await app.request('POST', '/api/folder', { key: m, body: { datasetId: ds, name: 'member folder' } }),
      403,
      'member folder create',
    );
    fails(
      await app.request('POST', `/api/organization/${app.orgId}/datasets`, { key: m, body: { name: 'x' } }),
      403,
      'member collection create',
    );
    fails(await app.request('POST', '/api/keys', { key: m, body: {} }), 403, 'member creates a key');
    fails(
      await app.request('POST', '/api/keys', { key: m, body: { role: 'viewer' } }),
      403,
      'member creates a viewer key',
    );
    fails(await app.request('GET', '/api/keys', { key: m }), 403, 'member lists keys');
    fails(await app.request('DELETE', `/api/keys/${viewer.id}`, { key: m }), 403, 'member revokes a key');
    ok(await app.request('GET', '/api/me', { key: v }), 'the viewer key survived the member');

    // Admin: folders, collections, keys (up to admin).
    const a = admin.key;
    const af = await app.request('POST', '/api/folder', { key: a, body: { datasetId: ds, name: 'admin folder' } });
    ok(af, 'admin folder create');
    ok(
      await app.request('POST', `/api/organization/${app.orgId}/datasets`, {
        key: a,
        body: { name: 'admin collection' },
      }),
      'admin collection create',
    );
    const ak = await app.request('POST', '/api/keys', { key: a, body: { name: 'from admin' } });
    ok(ak, 'admin creates a key');
    assert.is(ak.body.role, 'admin', 'role defaults to the caller’s');
    const av = await app.request('POST', '/api/keys', { key: a, body: { role: 'viewer' } });
    ok(av, 'admin creates a viewer key');
    assert.is(av.body.role, 'viewer');
    fails(
      await app.request('POST', '/api/keys', { key: a, body: { role: 'owner' } }),
      403,
      'admin cannot create an owner key',
    );
    ok(await app.request('GET', '/api/keys', { key: a }), 'admin lists keys');
    ok(await app.request('DELETE', `/api/keys/${av.body.id}`, { key: a }), 'admin revokes a key');
    ok(
      await app.request('PATCH', `/api/media/${target}/move`, {
        key: a,
        body: { destinationPath: af.body.folder.path },
      }),
      'admin move',
    );
    // A token from an admin key cannot mint an owner key either.
    const aTok = (await app.request('POST', '/api/auth/token', { key: a })).body.token as string;
    fails(
      await raw(app, 'POST', '/api/keys', { authorization: `Bearer ${aTok}` }, { role: 'owner' }),
      403,
      'admin token creates an owner key',
    );
  },
);

t(
  'organizations: create, list, isolated keys; other org gives 403 (collections) or 404 (media), never data',
  async ({ app, ds, img, folder }) => {
    const me = await app.request('GET', '/api/me');
    ok(me, 'me');
    for (const f of ['userId', 'email', 'name', 'organizationId', 'organizationName'])
      assert.type(me.body[f], 'string', `me.${f}`);
    assert.is(me.body.organizationName, 'Default');
    assert.is(me.body.organizationId, app.orgId);

    const created = await app.request('POST', '/api/auth/organization/create', {
      body: { name: 'Second Org', slug: 'second-org' },
    });
    ok(created, 'org create');
    const org = created.body.organization;
    assert.equal(Object.keys(created.body), ['organization']);
    assert.match(org.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.is(org.name, 'Second Org');
    assert.is(org.slug, 'second-org');
    fails(
      await app.request('POST', '/api/auth/organization/create', { body: { name: 'Again', slug: 'second-org' } }),
      409,
      'duplicate slug',
    );
    const sameName = await app.request('POST', '/api/auth/organization/create', { body: { name: 'Second Org' } });
    ok(sameName, 'same name without slug gets a fresh slug');
    assert.is.not(sameName.body.organization.slug, 'second-org');
    fails(await app.request('POST', '/api/auth/organization/create', { body: {} }), 400, 'no name');

    const list = await app.request('GET', '/api/auth/organization/list');
    ok(list, 'org list');
    const orgs = (Array.isArray(list.body) ? list.body : list.body.organizations) as Array<{
      id: string;
      name: string;
      slug: string;
    }>;
    assert.ok(
      orgs.some((o) => o.id === app.orgId && o.name === 'Default'),
      'Default listed',
    );
    assert.ok(
      orgs.some((o) => o.id === org.id && o.slug === 'second-org'),
      'new org listed',
    );
    assert.is(orgs.filter((o) => o.name === 'Default').length, 1);

    // A key for the new org.
    const k2 = await newKey(app, { organizationId: org.id, name: 'second' });
    assert.is(k2.organizationId, org.id);
    assert.is(k2.role, 'owner', 'the creator owns the new org');
    const key2 = k2.key;
    const me2 = await app.request('GET', '/api/me', { key: key2 });
    assert.is(me2.body.organizationId, org.id);
    assert.is(me2.body.organizationName, 'Second Org');
    const ds2 = (
      await app.request('POST', `/api/organization/${org.id}/datasets`, {
        key: key2,
        body: { name: 'Second collection' },
      })
    ).body.dataset.id as string;
    assert.ok(ds2);
    const img2 = (
      await app.upload(
        { datasetId: ds2 },
        { bytes: await makeImage({ color: { r: 0, g: 0, b: 255 } }), filename: 'blue.jpg' },
        key2,
      )
    ).body.mediaId as string;
    assert.match(img2, /^[0-9a-f]{32}$/);
    const seen = await app.request('GET', `/api/organization/${org.id}/datasets`, { key: key2 });
    assert.equal(
      seen.body.datasets.map((d: { id: string }) => d.id),
      [ds2],
    );
    ok(await app.request('GET', `/api/dataset/${ds2}/media`, { key: key2 }), 'own collection browse');

    // The Default org's collections: 403. Its media and folders: 404. Never data.
    const noData = (r: Reply, status: number, what: string) => {
      fails(r, status, what);
      const s = JSON.stringify(r.body);
      assert.not.ok(s.includes(img) || s.includes(ds) || s.includes('a.jpg'), `${what}: leaks nothing`);
    };
    noData(
      await app.request('GET', `/api/organization/${app.orgId}/datasets`, { key: key2 }),
      403,
      'list other org collections',
    );
    noData(
      await app.request('POST', `/api/organization/${app.orgId}/datasets`, { key: key2, body: { name: 'x' } }),
      403,
      'create in other org',
    );
    noData(await app.request('GET', `/api/dataset/${ds}`, { key: key2 }), 403, 'other collection');
    noData(
      await app.request('PATCH', `/api/dataset/${ds}`, { key: key2, body: { name: 'pwned' } }),
      403,
      'rename other collection',
    );
    noData(await app.request('GET', `/api/dataset/${ds}/media`, { key: key2 }), 403, 'browse other collection');
    noData(
      await app.request('GET', `/api/dataset/${ds}/media?recursive=true&mediaId=${img}`, { key: key2 }),
      403,
      'browse other collection by mediaId',
    );
    noData(await app.request('GET', `/api/dataset/${ds}/tags`, { key: key2 }), 403, 'tags of other collection');
    noData(
      await app.request('POST', '/api/folder', { key: key2, body: { datasetId: ds, name: 'x' } }),
      403,
      'folder in other collection',
    );
    noData(
      await app.upload({ datasetId: ds }, { bytes: await makeImage(), filename: 'x.jpg' }, key2),
      403,
      'upload into other collection',
    );
    noData(await app.request('GET', `/api/media/${img}`, { key: key2 }), 404, 'other media');
    noData(await app.request('GET', `/api/media/${img}/versions`, { key: key2 }), 404, 'other media versions');
    noData(
      await app.request('PATCH', `/api/media/${img}`, { key: key2, body: { name: 'pwned' } }),
      404,
      'rename other media',
    );
    noData(await app.request('DELETE', `/api/media/${img}`, { key: key2 }), 404, 'delete other media');
    noData(
      await app.request('PATCH', `/api/media/${img}/move`, { key: key2, body: { destinationPath: folder.path } }),
      404,
      'move other media',
    );
    noData(
      await app.request('PATCH', `/api/media/${img}/move`, {
        key: key2,
        body: { destinationPath: ds2.replace(/-/g, '') },
      }),
      404,
      'move other media into mine',
    );
    noData(
      await app.request('POST', `/api/media/${img}/tags`, { key: key2, body: { label: 'x', value: 'y' } }),
      404,
      'tag other media',
    );
    noData(
      await app.request('DELETE', `/api/media/${img}/tags`, { key: key2, body: { label: 'x' } }),
      404,
      'untag other media',
    );
    noData(
      await app.request('PATCH', `/api/media/${img}/tags`, { key: key2, body: { oldLabel: 'x', newLabel: 'y' } }),
      404,
      'rename tag on other media',
    );
    noData(await app.request('GET', `/api/folder/${folder.id}`, { key: key2 }), 404, 'other folder');
    noData(
      await app.request('PATCH', `/api/folder/${folder.id}`, { key: key2, body: { name: 'pwned' } }),
      404,
      'rename other folder',
    );
    noData(await app.request('DELETE', `/api/folder/${folder.id}`, { key: key2 }), 404, 'delete other folder');
    // Moving own media into the other org's folder is refused too.
    const into = await app.request('PATCH', `/api/media/${img2}/move`, {
      key: key2,
      body: { destinationPath: folder.path },
    });
    assert.ok([400, 403, 404].includes(into.status), `move into other org: ${into.status}`);
    // The Default key cannot reach the new org's things either.
    noData(await app.request('GET', `/api/dataset/${ds2}/media`), 403, 'default key browses second org');
    noData(await app.request('GET', `/api/media/${img2}`), 404, 'default key reads second org media');
    // Keys of the other org are not listed or revocable from here.
    const keys2 = await app.request('GET', '/api/keys', { key: key2 });
    assert.ok(keys2.body.keys.every((x: { organizationId: string }) => x.organizationId === org.id));
    const defaultKeyId = (await app.request('GET', '/api/keys')).body.keys[0].id as string;
    fails(await app.request('DELETE', `/api/keys/${defaultKeyId}`, { key: key2 }), 404, 'revoke a key of another org');
    // Nothing changed in the Default org.
    const still = (await app.request('GET', `/api/media/${img}`)).body.media;
    assert.is(still.name, 'a.jpg');
    assert.is((await app.request('GET', `/api/dataset/${ds}`)).body.dataset.name, 'Auth');
    // A token of the second-org key is scoped the same way.
    const tok2 = (await app.request('POST', '/api/auth/token', { key: key2 })).body.token as string;
    noData(
      await raw(app, 'GET', `/api/dataset/${ds}/media`, { authorization: `Bearer ${tok2}` }),
      403,
      'second-org token browses default',
    );
    ok(
      await raw(app, 'GET', `/api/dataset/${ds2}/media`, { authorization: `Bearer ${tok2}` }),
      'second-org token browses its own',
    );
  },
);

t('key scope: a viewer or member key cannot mint keys for another organization its user owns', async ({ app }) => {
  const org = (await app.request('POST', '/api/auth/organization/create', { body: { name: 'Escalation target' } })).body
    .organization;
  assert.ok(org?.id);
  // A key's role caps what it can do everywhere: a viewer or member key of the
  // Default org must not mint keys (let alone owner keys) for another org its user owns.
  const vDefault = await newKey(app, { role: 'viewer', name: 'read-only dashboard' });
  const mDefault = await newKey(app, { role: 'member', name: 'uploader' });
  for (const [label, k] of [
    ['viewer', vDefault.key],
    ['member', mDefault.key],
  ] as const) {
    const esc = await app.request('POST', '/api/keys', { key: k, body: { organizationId: org.id, role: 'owner' } });
    assert.is(
      esc.status,
      403,
      `${label} key of Default mints an owner key for the second org: ${esc.status} ${JSON.stringify(esc.body).slice(0, 120)}`,
    );
    const esc2 = await app.request('POST', '/api/keys', { key: k, body: { organizationId: org.id } });
    assert.is(esc2.status, 403, `${label} key of Default mints a key for the second org: ${esc2.status}`);
  }
  // The owner key can, and the new key is confined to that org.
  const okKey = await newKey(app, { organizationId: org.id, role: 'viewer' });
  assert.is(okKey.organizationId, org.id);
});

t('compat: DELETE with Content-Type json and no body is not a 400; POST with no body too', async ({ app, ds }) => {
  const id = (
    await app.upload({ datasetId: ds }, { bytes: await makeImage({ color: { r: 77, g: 1, b: 1 } }), filename: 'd.jpg' })
  ).body.mediaId as string;
  const f = (await app.request('POST', '/api/folder', { body: { datasetId: ds, name: 'del me' } })).body.folder;
  const k = await newKey(app, { role: 'viewer' });
  const json = { 'content-type': 'application/json' };
  // fetch: no body at all.
  ok(await app.request('DELETE', `/api/media/${id}`, { headers: json }), 'DELETE media');
  ok(await app.request('DELETE', `/api/folder/${f.id}`, { headers: json }), 'DELETE folder');
  ok(await app.request('DELETE', `/api/keys/${k.id}`, { headers: json }), 'DELETE key');
  ok(await app.request('POST', '/api/auth/token', { headers: json }), 'POST token without body');
  // An explicit empty body with Content-Length: 0.
  const id2 = (
    await app.upload({ datasetId: ds }, { bytes: await makeImage({ color: { r: 78, g: 1, b: 1 } }), filename: 'e.jpg' })
  ).body.mediaId as string;
  const r = await nodeRequest(app.baseUrl, 'DELETE', `/api/media/${id2}`, {
    ...json,
    'content-length': '0',
    'x-api-key': TEST_KEY,
  });
  assert.is(r.status, 200, r.text);
  assert.is(JSON.parse(r.text).error, undefined);
  ok(await app.request('POST', '/api/auth/token', { headers: json, body: '' }), 'POST token with an empty string body');
});

function nodeRequest(
  base: string,
  method: string,
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(base + url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

t('rate limit: 429 with Retry-After after the per-key budget; other keys unaffected', async () => {
  // Make a key in a normal app, then reopen the same DATA_DIR with a limit of 5 per minute.
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mlib-rate-'));
  try {
    const first = await startTestApp({ dataDir });
    const k = (await first.request('POST', '/api/keys', { body: { name: 'limited' } })).body.key as string;
    await first.close();
    const limited = await startTestApp({ dataDir, rateLimitPerMinute: 5 });
    try {
      for (let i = 1; i <= 5; i++) ok(await limited.request('GET', '/api/me', { key: k }), `request ${i}`);
      const sixth = await limited.request('GET', '/api/me', { key: k });
      assert.is(sixth.status, 429);
      assert.is(sixth.body.error, 'Too Many Requests');
      assert.type(sixth.body.message, 'string');
      const retry = Number(sixth.headers.get('retry-after'));
      assert.ok(
        Number.isInteger(retry) && retry >= 1 && retry <= 60,
        `Retry-After ${sixth.headers.get('retry-after')}`,
      );
      // A Bearer token of the same key shares its budget.
      const viaBearer = await limited.request('GET', '/api/me', {
        key: null,
        headers: { authorization: `Bearer ${k}` },
      });
      assert.is(viaBearer.status, 429);
      // Another key is not affected (the bootstrap key used 1 of its 5 at start-up).
      ok(await limited.request('GET', '/api/me'), 'other key');
      ok(await limited.request('GET', `/api/organization/${limited.orgId}/datasets`), 'other key again');
      // Unauthenticated requests are still 401, not 429.
      const anon = await limited.request('GET', '/api/me', { key: 'mlk_nope_nope_nope_nope_nope' });
      assert.is(anon.status, 401);
    } finally {
      await limited.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

t('bootstrap: initial-api-key (0600) on first start; restart keeps everything, one Default org', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mlib-boot-'));
  const env = { DATA_DIR: dataDir, LOG_LEVEL: 'silent', MODEL_PROFILE: 'test' } as NodeJS.ProcessEnv;
  const serve = async () => {
    const app = await createApp(loadConfig(env), createLogger('silent'));
    const server = http.createServer(app.koa.callback());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const req = async (method: string, url: string, key: string, body?: unknown) => {
      const res = await fetch(base + url, {
        method,
        headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const close = async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await app.close();
    };
    return { req, close };
  };
  // The bootstrap prints the key once on stdout; keep the test output clean.
  const write = process.stdout.write.bind(process.stdout);
  let printed = '';
  process.stdout.write = ((chunk: string | Uint8Array) => {
    printed += String(chunk);
    return true;
  }) as typeof process.stdout.write;
  let s1;
  try {
    s1 = await serve();
  } finally {
    process.stdout.write = write;
  }
  try {
    const file = path.join(dataDir, 'initial-api-key');
    const st = statSync(file);
    assert.is(st.mode & 0o777, 0o600, `mode ${(st.mode & 0o777).toString(8)}`);
    const key = readFileSync(file, 'utf8').trim();
    assert.ok(key.length >= 20, 'a real key');
    assert.ok(printed.includes(key), 'printed once at first start');
    const me = await s1.req('GET', '/api/me', key);
    assert.is(me.status, 200);
    assert.is(me.body.organizationName, 'Default');
    const orgId = me.body.organizationId as string;
    const ds = await s1.req('POST', `/api/organization/${orgId}/datasets`, key, { name: 'Survives' });
    assert.is(ds.status, 200);
    const made = await s1.req('POST', '/api/keys', key, { role: 'viewer' });
    assert.is(made.status, 200);
    await s1.close();

    // Restart over the same DATA_DIR.
    let again = '';
    process.stdout.write = ((chunk: string | Uint8Array) => {
      again += String(chunk);
      return true;
    }) as typeof process.stdout.write;
    let s2;
    try {
      s2 = await serve();
    } finally {
      process.stdout.write = write;
    }
    try {
      assert.not.ok(again.includes(key), 'the key is not printed again');
      assert.is(readFileSync(file, 'utf8').trim(), key, 'initial-api-key unchanged');
      const me2 = await s2.req('GET', '/api/me', key);
      assert.is(me2.status, 200, 'the initial key still works');
      assert.is(me2.body.organizationId, orgId);
      assert.is((await s2.req('GET', '/api/me', made.body.key)).status, 200, 'a created key still works');
      const got = await s2.req('GET', `/api/dataset/${ds.body.dataset.id}`, key);
      assert.is(got.status, 200);
      assert.is(got.body.dataset.name, 'Survives');
      const orgs = await s2.req('GET', '/api/auth/organization/list', key);
      const list = (Array.isArray(orgs.body) ? orgs.body : orgs.body.organizations) as Array<{ name: string }>;
      assert.is(list.filter((o) => o.name === 'Default').length, 1, 'one Default org');
      assert.is(list.length, 1);
    } finally {
      await s2.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

t('a key acts in its own organization: no keys minted for another one, no role above its own', async ({ app, ds }) => {
  // The issue's case: a key scoped to organization B, whose user also owns A (Default), asks for an owner key in A.
  const b = await app.request('POST', '/api/auth/organization/create', { body: { name: 'Org B', slug: 'org-b' } });
  ok(b, 'org B create');
  const orgB = b.body.organization.id as string;
  const kB = await newKey(app, { organizationId: orgB, role: 'owner', name: 'B owner' });
  assert.is(kB.organizationId, orgB, 'the key that created B mints its first key there');
  fails(
    await app.request('POST', '/api/keys', { key: kB.key, body: { organizationId: app.orgId, role: 'owner' } }),
    403,
    "B's key mints an owner key in A",
  );
  fails(
    await app.request('POST', '/api/keys', { key: kB.key, body: { organizationId: app.orgId, role: 'viewer' } }),
    403,
    "B's key mints a viewer key in A",
  );
  const tok = (await app.request('POST', '/api/auth/token', { key: kB.key })).body.token as string;
  const viaToken = await app.request('POST', '/api/keys', {
    key: null,
    headers: { authorization: `Bearer ${tok}` },
    body: { organizationId: app.orgId },
  });
  assert.is(viaToken.status, 403, `B's token mints a key in A: ${JSON.stringify(viaToken.body)}`);
  fails(await app.request('GET', `/api/dataset/${ds}/media`, { key: kB.key }), 403, "B's key still cannot read A");
  // Another key of A, not the one that created B, cannot mint in B either.
  const aAdmin = await newKey(app, { role: 'admin', name: 'A admin' });
  fails(
    await app.request('POST', '/api/keys', { key: aAdmin.key, body: { organizationId: orgB, role: 'viewer' } }),
    403,
    'an A key that did not create B mints in B',
  );
  const inB = await newKey(app, { organizationId: orgB, role: 'viewer', name: 'B viewer' });
  assert.is(inB.role, 'viewer', "B's creator key mints more keys in B");

  // Role escalation: an admin key asks for owner, in its own organization and in one it created.
  fails(
    await app.request('POST', '/api/keys', { key: aAdmin.key, body: { role: 'owner' } }),
    403,
    'admin key mints an owner key',
  );
  const c = await app.request('POST', '/api/auth/organization/create', { key: aAdmin.key, body: { name: 'Org C' } });
  ok(c, 'an admin key creates an organization');
  const orgC = c.body.organization.id as string;
  fails(
    await app.request('POST', '/api/keys', { key: aAdmin.key, body: { organizationId: orgC, role: 'owner' } }),
    403,
    'admin key mints an owner key in the organization it created',
  );
  const cAdmin = await newKey(app, { organizationId: orgC, role: 'admin' }, aAdmin.key);
  assert.is(cAdmin.role, 'admin');
  const cDefault = await newKey(app, { organizationId: orgC }, aAdmin.key);
  assert.is(cDefault.role, 'admin', "the default role is the key's own, not the user's");
  fails(
    await app.request('POST', '/api/keys', { key: cAdmin.key, body: { role: 'owner' } }),
    403,
    "C's admin key mints an owner key in C",
  );

  // Viewer and member keys may not create organizations (reaching one takes minting keys, an admin's right).
  const viewer = await newKey(app, { role: 'viewer' });
  const member = await newKey(app, { role: 'member' });
  for (const [label, k] of [
    ['viewer', viewer.key],
    ['member', member.key],
  ] as const) {
    fails(
      await app.request('POST', '/api/auth/organization/create', { key: k, body: { name: `By ${label}` } }),
      403,
      `${label} creates an organization`,
    );
  }
  const names = (
    (await app.request('GET', '/api/auth/organization/list')).body.organizations as Array<{ name: string }>
  ).map((o) => o.name);
  assert.not.ok(names.includes('By viewer') || names.includes('By member'), 'nothing was created');
});

t.run();
