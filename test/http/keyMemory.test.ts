/**
 * The guards remember a checked API key for KEY_MEMORY_MS (src/http/guards.ts):
 * fewer reads per request, revocation still within seconds, and at once for
 * a revocation this server handles itself.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Context } from 'koa';
import { createGuards, KEY_MEMORY_MS } from '../../src/features/accounts/guards.js';
import { startTestApp, type TestApp } from '../helpers/testApp.js';

interface Ctx {
  app: TestApp;
  /** findApiKeyByHash and getApiKey calls so far. */
  reads: { byHash: number; byId: number };
}
const t = suite<Ctx>('remembered API keys');

t.before(async (ctx) => {
  ctx.app = await startTestApp({ ingestConcurrency: 0 });
  const accounts = ctx.app.app.services.storage.accounts;
  ctx.reads = { byHash: 0, byId: 0 };
  const byHash = accounts.findApiKeyByHash.bind(accounts);
  const byId = accounts.getApiKey.bind(accounts);
  accounts.findApiKeyByHash = async (h) => (ctx.reads.byHash++, byHash(h));
  accounts.getApiKey = async (id) => (ctx.reads.byId++, byId(id));
});
t.after(async (ctx) => ctx.app.close());

/** Just what guards.authenticate reads of a Koa context. */
const fakeCtx = (headers: Record<string, string>, method = 'GET') =>
  ({ method, get: (name: string) => headers[name.toLowerCase()] ?? '', state: {} }) as unknown as Context;

const newKey = async (app: TestApp) => {
  const r = await app.request('POST', '/api/keys', { body: { name: 'memory', role: 'viewer' } });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body as { id: string; key: string };
};

t(
  'a key is read once per KEY_MEMORY_MS; a revocation elsewhere holds after it, one here at once',
  async ({ app, reads }) => {
    let clock = 1_000_000;
    const guards = createGuards(app.app.services, () => clock);
    const k = await newKey(app);
    const before = reads.byHash;
    const first = await guards.authenticate(fakeCtx({ 'x-api-key': k.key }));
    assert.is(first.keyId, k.id);
    assert.is(first.role, 'viewer');
    const again = await guards.authenticate(fakeCtx({ 'x-api-key': k.key }));
    assert.equal(again, first);
    assert.is.not(again, first, 'a copy: a handler changing its principal changes no other request');
    await guards.authenticate(fakeCtx({ authorization: `Bearer ${k.key}` }));
    await guards.authenticate(fakeCtx({ authorization: `Bearer ${k.key}` }));
    assert.is(reads.byHash - before, 2, 'one read per header form');
    await guards.authenticate(fakeCtx({ 'x-api-key': k.key }, 'POST'));
    await guards.authenticate(fakeCtx({ 'x-api-key': k.key }, 'POST'));
    assert.is(reads.byHash - before, 4, 'a write request reads its key every time');

    // Revoked by another process (straight in the database): accepted until the memory runs out.
    await app.app.services.storage.accounts.revokeApiKey(k.id, new Date().toISOString());
    clock += KEY_MEMORY_MS - 1;
    assert.is((await guards.authenticate(fakeCtx({ 'x-api-key': k.key }))).keyId, k.id);
    clock += 2;
    try {
      await guards.authenticate(fakeCtx({ 'x-api-key': k.key }));
      assert.unreachable('a revoked key past the memory');
    } catch (err) {
      assert.is((err as { code?: string }).code, 'unauthenticated');
    }

    // Forgotten at once after a write this server handles.
    const k2 = await newKey(app);
    await guards.authenticate(fakeCtx({ 'x-api-key': k2.key }));
    await app.app.services.storage.accounts.revokeApiKey(k2.id, new Date().toISOString());
    guards.forgetKeys();
    try {
      await guards.authenticate(fakeCtx({ 'x-api-key': k2.key }));
      assert.unreachable('a revoked key after forgetKeys');
    } catch (err) {
      assert.is((err as { code?: string }).code, 'unauthenticated');
    }
  },
);

t('a refused key is not remembered; tokens are checked every time', async ({ app, reads }) => {
  const guards = createGuards(app.app.services);
  try {
    await guards.authenticate(fakeCtx({ 'x-api-key': 'mlk_not-a-key' }));
    assert.unreachable();
  } catch (err) {
    assert.is((err as { code?: string }).code, 'unauthenticated');
  }
  const k = await newKey(app);
  const token = (await app.request('POST', '/api/auth/token', { key: k.key })).body.token as string;
  const before = reads.byId;
  for (let i = 0; i < 3; i++)
    assert.is((await guards.authenticate(fakeCtx({ authorization: `Bearer ${token}` }))).keyId, k.id);
  assert.is(reads.byId - before, 3);
});

t('over HTTP: a key revoked through the API fails on the very next read request', async ({ app }) => {
  const k = await newKey(app);
  for (let i = 0; i < 2; i++) assert.is((await app.request('GET', '/api/me', { key: k.key })).status, 200);
  assert.is((await app.request('DELETE', `/api/keys/${k.id}`)).status, 200);
  assert.is((await app.request('GET', '/api/me', { key: k.key })).status, 401);
});

t.run();
