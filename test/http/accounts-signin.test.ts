/**
 * Accounts for people (issue #15), part 1: the setup link, signing in and out, the session cookie, CSRF,
 * lockout, sessions and passwords, all through real HTTP. API keys must behave exactly as before.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createRateLimiter } from '../../src/features/accounts/guards.js';
import { browser, OWNER_EMAIL, OWNER_PASSWORD, sessionSetCookie, setUpOwner, setupLink } from '../helpers/browser.js';
import { engineSql } from '../helpers/engine.js';
import { startTestApp, TEST_KEY, type Reply, type TestApp } from '../helpers/testApp.js';

const WRONG = { error: 'Unauthorized', message: 'wrong email or password' };

interface Ctx {
  app: TestApp;
}
const t = suite<Ctx>('accounts: sign-in, sessions, csrf');

t.before(async (ctx) => {
  // A generous per-address limit: these tests sign in many times from 127.0.0.1 (its own test lowers it).
  ctx.app = await startTestApp({ ingestConcurrency: 0, signInRateLimitPerMinute: 10_000 });
  await setUpOwner(ctx.app);
});
t.after(async (ctx) => ctx.app.close());

function fails(r: Reply, status: number, what: string): void {
  assert.is(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
  assert.equal(Object.keys(r.body ?? {}).sort(), ['error', 'message'], `${what}: {error, message}`);
}

/** Captures what the server prints on stdout while `fn` runs. */
async function capture<T>(fn: () => Promise<T>): Promise<{ value: T; printed: string }> {
  const write = process.stdout.write.bind(process.stdout);
  let printed = '';
  process.stdout.write = ((chunk: string | Uint8Array) => {
    printed += String(chunk);
    return true;
  }) as typeof process.stdout.write;
  try {
    return { value: await fn(), printed };
  } finally {
    process.stdout.write = write;
  }
}

t('setup link: written (0600) and printed, the same across a restart, works once, then gone', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mlib-setup-'));
  try {
    const env = { LOG_LEVEL: 'info' };
    const first = await capture(() => startTestApp({ dataDir, ingestConcurrency: 0 }, env));
    const link = setupLink(first.value);
    const file = path.join(dataDir, 'setup-link');
    assert.is(statSync(file).mode & 0o777, 0o600);
    assert.match(link.url, new RegExp(`^${first.value.baseUrl}/setup\\?token=[A-Za-z0-9_-]{43}$`));
    assert.ok(first.printed.includes(link.url), 'printed on stdout');
    await first.value.close();

    const second = await capture(() => startTestApp({ dataDir, ingestConcurrency: 0 }, env));
    const app = second.value;
    try {
      assert.is(setupLink(app).token, link.token, 'the same token while unused');
      assert.ok(second.printed.includes(link.token), 'printed again at the next start');
      const b = browser(app);
      fails(await b.request('GET', '/api/auth/session'), 401, 'not signed in');
      const body = { token: 'x'.repeat(43), email: 'Me@Example.com', password: 'long enough pw' };
      fails(await b.request('POST', '/api/auth/setup', { body }), 403, 'wrong token');
      fails(
        await b.request('POST', '/api/auth/setup', { body: { ...body, token: link.token, password: 'short' } }),
        400,
        'short',
      );
      const ok = await b.request('POST', '/api/auth/setup', { body: { ...body, token: link.token, name: 'Me' } });
      assert.is(ok.status, 200, JSON.stringify(ok.body));
      assert.equal(Object.keys(ok.body).sort(), ['csrfToken', 'organizationId', 'organizations', 'role', 'user']);
      assert.equal(ok.body.user, { id: ok.body.user.id, email: 'me@example.com', name: 'Me' });
      assert.is(ok.body.role, 'owner');
      assert.is(ok.body.organizationId, app.orgId);
      assert.equal(ok.body.organizations, [{ id: app.orgId, name: 'Default', slug: 'default', role: 'owner' }]);
      assert.ok(b.cookie, 'signed in');
      assert.not.ok(existsSync(file), 'the link file is removed');
      fails(
        await browser(app).request('POST', '/api/auth/setup', { body: { ...body, token: link.token } }),
        403,
        'used',
      );
      const me = await b.request('GET', '/api/me');
      assert.is(me.status, 200);
      assert.is(me.body.email, 'me@example.com');
      assert.is(me.body.role, 'owner');
      assert.is((await browser(app).login('ME@example.com', 'long enough pw')).status, 200, 'email in any case');
      assert.is((await app.request('GET', '/api/me')).status, 200, 'the API key still works');
    } finally {
      await app.close();
    }
    const third = await capture(() => startTestApp({ dataDir, ingestConcurrency: 0 }, env));
    assert.not.ok(existsSync(file), 'no link once the owner has a password');
    assert.not.ok(third.printed.includes('/setup?token='), 'nothing printed');
    await third.value.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

t('login: good password signs in; wrong password and unknown email get the same 401', async ({ app }) => {
  const b = browser(app);
  const good = await b.login(OWNER_EMAIL, OWNER_PASSWORD);
  assert.is(good.status, 200, JSON.stringify(good.body));
  assert.is(good.body.user.email, OWNER_EMAIL);
  assert.is(good.body.user.name, 'Olive Owner');
  assert.type(good.body.csrfToken, 'string');
  const session = await b.request('GET', '/api/auth/session');
  assert.is(session.status, 200);
  assert.equal(session.body, good.body, 'GET /api/auth/session answers the sign-in body');

  const wrong = await browser(app).login(OWNER_EMAIL, 'not the password');
  const unknown = await browser(app).login('nobody@example.com', 'not the password');
  const notAnEmail = await browser(app).login('no at sign', 'whatever1');
  for (const r of [wrong, unknown, notAnEmail]) {
    assert.is(r.status, 401);
    assert.equal(r.body, WRONG);
    assert.is(sessionSetCookie(r), undefined, 'no cookie');
  }
  fails(await browser(app).request('POST', '/api/auth/login', { body: { email: OWNER_EMAIL } }), 400, 'no password');
  fails(await browser(app).request('POST', '/api/auth/login', { body: 'not json' }), 400, 'garbage');
  await browser(app).login(OWNER_EMAIL, OWNER_PASSWORD); // clears the failure
});

t(
  'lockout: 5 failures for an email within 15 minutes refuse the 6th, known or unknown, with retryAfter',
  async ({ app }) => {
    for (const email of ['nobody-locked@example.com', OWNER_EMAIL]) {
      for (let i = 0; i < 5; i++) assert.equal((await browser(app).login(email, `wrong ${i}!!`)).body, WRONG);
      const locked = await browser(app).login(email, email === OWNER_EMAIL ? OWNER_PASSWORD : 'anything');
      fails(locked, 429, `locked ${email}`);
      assert.is(locked.body.error, 'Too Many Requests');
      const retry = Number(locked.headers.get('retry-after'));
      assert.ok(retry > 800 && retry <= 900, `Retry-After ${retry}`);
    }
    // Other emails are unaffected; the window passing (moved back here) lets the owner in again.
    assert.equal((await browser(app).login('someone-else@example.com', 'wrong pw!')).body, WRONG);
    await engineSql(app).run(
      `UPDATE login_failures SET at = ? WHERE email = ?`,
      new Date(Date.now() - 16 * 60_000).toISOString(),
      OWNER_EMAIL,
    );
    assert.is((await browser(app).login(OWNER_EMAIL, OWNER_PASSWORD)).status, 200);
    // A success clears the count: 4 more failures still leave the right password working.
    for (let i = 0; i < 4; i++) await browser(app).login(OWNER_EMAIL, 'wrong again');
    assert.is((await browser(app).login(OWNER_EMAIL, OWNER_PASSWORD)).status, 200);
  },
);

t('the cookie: lumen_session, HttpOnly, SameSite=Lax, Path=/, Secure only over https', async ({ app }) => {
  const plain = sessionSetCookie(await browser(app).login(OWNER_EMAIL, OWNER_PASSWORD))!;
  assert.match(plain, /^lumen_session=[A-Za-z0-9_-]{43}; /);
  for (const attr of ['HttpOnly', 'SameSite=Lax', 'Path=/'])
    assert.ok(plain.split('; ').includes(attr), `${attr}: ${plain}`);
  assert.not.ok(/; Secure/i.test(plain), 'no Secure over http');
  const maxAge = Number(/Max-Age=(\d+)/.exec(plain)![1]);
  assert.ok(Math.abs(maxAge - 30 * 86_400) < 60, `Max-Age ${maxAge}`);
  const https = browser(app, { 'x-forwarded-proto': 'https' });
  const secure = sessionSetCookie(await https.login(OWNER_EMAIL, OWNER_PASSWORD))!;
  assert.ok(secure.split('; ').includes('Secure'), secure);
  assert.is((await https.request('GET', '/api/me')).status, 200);
});

t(
  'CSRF: a cookie write without x-csrf-token (or a wrong one) is 403; with it, it works; reads need none',
  async ({ app }) => {
    const b = browser(app);
    await b.login(OWNER_EMAIL, OWNER_PASSWORD);
    const url = `/api/organization/${app.orgId}/datasets`;
    for (const csrf of [false, 'wrong-token', b.csrf!.slice(0, -1)] as const) {
      const r = await b.request('POST', url, { body: { name: 'csrf' }, csrf });
      fails(r, 403, `csrf ${csrf}`);
      assert.is(r.body.error, 'Forbidden');
      assert.match(r.body.message, /csrf/);
    }
    assert.is(
      (await b.request('GET', url)).body.datasets.filter((d: any) => d.name === 'csrf').length,
      0,
      'nothing made',
    );
    const made = await b.request('POST', url, { body: { name: 'csrf' } });
    assert.is(made.status, 200, JSON.stringify(made.body));
    assert.is((await b.request('GET', `/api/dataset/${made.body.dataset.id}`)).status, 200, 'a read needs no token');
    // Another session's token is not this one's.
    const other = browser(app);
    await other.login(OWNER_EMAIL, OWNER_PASSWORD);
    fails(await b.request('POST', url, { body: { name: 'x' }, csrf: other.csrf! }), 403, "another session's token");
  },
);

t('API keys are unaffected by cookies: the key wins, no CSRF header needed', async ({ app }) => {
  const viewerKey = (await app.request('POST', '/api/keys', { body: { role: 'viewer' } })).body.key as string;
  const b = browser(app);
  await b.login(OWNER_EMAIL, OWNER_PASSWORD);
  const url = `/api/organization/${app.orgId}/datasets`;
  const cookie = { cookie: `lumen_session=${b.cookie}` };
  // The owner key with the owner's cookie and no csrf header: a key request, so it works.
  assert.is((await app.request('POST', url, { body: { name: 'by key' }, headers: cookie })).status, 200);
  // A viewer key with an owner's cookie is a viewer.
  fails(await app.request('POST', url, { key: viewerKey, body: { name: 'no' }, headers: cookie }), 403, 'viewer key');
  const viaBearer = await app.request('GET', '/api/me', {
    key: null,
    headers: { ...cookie, authorization: `Bearer ${viewerKey}` },
  });
  assert.is(viaBearer.body.role, 'viewer', 'Authorization wins too');
  // A wrong key with a good cookie is a wrong key: the exact spec 401.
  const bad = await app.request('GET', '/api/me', { key: 'mlk_wrongwrongwrongwrong', headers: cookie });
  assert.equal(bad.body, { error: 'Unauthorized', message: 'Invalid or missing API key' });
  // Garbage cookies beside a key change nothing.
  const junk = { cookie: 'lumen_session=%%%; other=1; lumen_session=' };
  assert.is((await app.request('GET', '/api/me', { headers: junk })).status, 200);
  assert.equal((await app.request('GET', '/api/me', { key: null, headers: junk })).body, {
    error: 'Unauthorized',
    message: 'Invalid or missing API key',
  });
  // Sessions have no key to issue a Bearer token for.
  fails(await b.request('POST', '/api/auth/token'), 403, 'token from a session');
});

t(
  'logout: needs the csrf token, ends the session, clears the cookie; a dead session just gets 204',
  async ({ app }) => {
    const b = browser(app);
    await b.login(OWNER_EMAIL, OWNER_PASSWORD);
    const cookie = b.cookie!;
    fails(await b.request('POST', '/api/auth/logout', { csrf: false }), 403, 'no csrf');
    assert.is((await b.request('GET', '/api/me')).status, 200, 'still signed in');
    const out = await b.request('POST', '/api/auth/logout');
    assert.is(out.status, 204);
    assert.match(sessionSetCookie(out)!, /^lumen_session=; .*Expires=Thu, 01 Jan 1970/);
    assert.is(b.cookie, null);
    const old = await app.request('GET', '/api/me', { key: null, headers: { cookie: `lumen_session=${cookie}` } });
    fails(old, 401, 'the old cookie');
    assert.match(old.body.message, /session/);
    assert.ok(sessionSetCookie(old), 'a dead cookie is cleared');
    const again = await app.request('POST', '/api/auth/logout', {
      key: null,
      headers: { cookie: `lumen_session=${cookie}` },
    });
    assert.is(again.status, 204, 'no csrf needed for an ended session');
    assert.is((await app.request('POST', '/api/auth/logout', { key: null })).status, 204, 'no cookie at all');
  },
);

t('rotation: each sign-in is a new session; the cookie presented at sign-in is ended', async ({ app }) => {
  const b = browser(app);
  await b.login(OWNER_EMAIL, OWNER_PASSWORD);
  const first = b.cookie!;
  const elsewhere = browser(app);
  await elsewhere.login(OWNER_EMAIL, OWNER_PASSWORD);
  await b.login(OWNER_EMAIL, OWNER_PASSWORD);
  assert.is.not(b.cookie, first, 'a new secret');
  const old = await app.request('GET', '/api/me', { key: null, headers: { cookie: `lumen_session=${first}` } });
  fails(old, 401, 'the presented cookie ended');
  assert.is((await b.request('GET', '/api/me')).status, 200);
  assert.is((await elsewhere.request('GET', '/api/me')).status, 200, 'another browser is untouched');
});

t('sessions: listed with current, one ended by id, expiry (absolute and idle) ends them', async ({ app }) => {
  const a = browser(app, { 'user-agent': 'Browser A' });
  const b = browser(app, { 'user-agent': 'Browser B' });
  await a.login(OWNER_EMAIL, OWNER_PASSWORD);
  await b.login(OWNER_EMAIL, OWNER_PASSWORD);
  const list = await a.request('GET', '/api/auth/sessions');
  assert.is(list.status, 200);
  const mine = list.body.sessions.find((s: any) => s.current);
  const theirs = list.body.sessions.find((s: any) => s.userAgent === 'Browser B');
  assert.is(mine.userAgent, 'Browser A');
  assert.equal(Object.keys(mine).sort(), ['createdAt', 'current', 'expiresAt', 'id', 'ip', 'lastSeenAt', 'userAgent']);
  assert.is(mine.ip, '127.0.0.1');
  assert.not.ok(theirs.current);
  assert.ok(list.body.sessions.every((s: any) => s.expiresAt > s.createdAt));
  fails(await a.request('DELETE', `/api/auth/sessions/${theirs.id}`, { csrf: false }), 403, 'csrf');
  assert.is((await a.request('DELETE', `/api/auth/sessions/${theirs.id}`)).status, 204);
  fails(await b.request('GET', '/api/me'), 401, 'B ended');
  fails(await a.request('DELETE', `/api/auth/sessions/${theirs.id}`), 404, 'ended already');
  fails(await a.request('DELETE', '/api/auth/sessions/nope'), 404, 'no such session');
  fails(await app.request('GET', '/api/auth/sessions'), 403, 'an API key has no sessions');

  const sessionIdOf = async (x: ReturnType<typeof browser>) =>
    (await x.request('GET', '/api/auth/sessions')).body.sessions.find((s: any) => s.current).id as string;
  const c = browser(app);
  await c.login(OWNER_EMAIL, OWNER_PASSWORD);
  await engineSql(app).run(
    `UPDATE sessions SET expires_at = ? WHERE id = ?`,
    new Date(Date.now() - 1000).toISOString(),
    await sessionIdOf(c),
  );
  fails(await c.request('GET', '/api/me'), 401, 'past its absolute expiry');
  const d = browser(app);
  await d.login(OWNER_EMAIL, OWNER_PASSWORD);
  const idle = new Date(Date.now() - 15 * 86_400_000).toISOString();
  await engineSql(app).run(`UPDATE sessions SET last_seen_at = ? WHERE id = ?`, idle, await sessionIdOf(d));
  fails(await d.request('GET', '/api/me'), 401, 'idle too long');
  // Activity is recorded at most once a minute.
  const e = browser(app);
  await e.login(OWNER_EMAIL, OWNER_PASSWORD);
  const id = await sessionIdOf(e);
  const seen = async () => (await app.app.services.storage.sessions.get(id))!.lastSeenAt;
  const before = await seen();
  await e.request('GET', '/api/me');
  assert.is(await seen(), before, 'not written again within the minute');
  await app.app.services.storage.sessions.touch(id, new Date(Date.now() - 120_000).toISOString());
  await e.request('GET', '/api/me');
  assert.ok(Date.parse(await seen()) > Date.now() - 10_000, 'written after a minute');
});

t(
  'password change: needs the current one, ends the other sessions, the old password stops working',
  async ({ app }) => {
    const a = browser(app);
    const other = browser(app);
    await a.login(OWNER_EMAIL, OWNER_PASSWORD);
    await other.login(OWNER_EMAIL, OWNER_PASSWORD);
    const change = (currentPassword: string, newPassword: string, csrf?: false) =>
      a.request('POST', '/api/auth/password', { body: { currentPassword, newPassword }, csrf });
    fails(await change('wrong current', 'a new password'), 403, 'wrong current password');
    fails(await change(OWNER_PASSWORD, 'short'), 400, 'too short');
    fails(await change(OWNER_PASSWORD, 'x'.repeat(1025)), 400, 'too long');
    fails(await change(OWNER_PASSWORD, 'a new password', false), 403, 'csrf');
    fails(
      await app.request('POST', '/api/auth/password', {
        body: { currentPassword: OWNER_PASSWORD, newPassword: 'a new password' },
      }),
      403,
      'API key',
    );
    assert.is((await change(OWNER_PASSWORD, 'a new password')).status, 204);
    assert.is((await a.request('GET', '/api/me')).status, 200, 'this session goes on');
    fails(await other.request('GET', '/api/me'), 401, 'the other session ended');
    assert.equal((await browser(app).login(OWNER_EMAIL, OWNER_PASSWORD)).body, WRONG);
    assert.is((await browser(app).login(OWNER_EMAIL, 'a new password')).status, 200);
    assert.is((await change('a new password', OWNER_PASSWORD)).status, 204, 'back again for the other tests');
  },
);

t('a session acts as its person: /api/me, keys in any organization they administer', async ({ app }) => {
  const b = browser(app);
  await b.login(OWNER_EMAIL, OWNER_PASSWORD);
  const me = await b.request('GET', '/api/me');
  assert.is(me.body.email, OWNER_EMAIL);
  assert.is(me.body.organizationId, app.orgId);
  const org = await b.request('POST', '/api/auth/organization/create', { body: { name: 'Made by session' } });
  assert.is(org.status, 200, JSON.stringify(org.body));
  const orgB = org.body.organization.id as string;
  // From organization A the session mints a key in B (a key could not: README, "a key acts in its own organization").
  const key = await b.request('POST', '/api/keys', { body: { organizationId: orgB, role: 'admin' } });
  assert.is(key.status, 200, JSON.stringify(key.body));
  assert.is((await app.request('GET', '/api/me', { key: key.body.key })).body.organizationId, orgB);
  const switched = await b.request('POST', '/api/auth/session/organization', { body: { organizationId: orgB } });
  assert.is(switched.status, 200);
  assert.is(switched.body.organizationId, orgB);
  assert.is(switched.body.organizations.length, 2);
  assert.is((await b.request('GET', '/api/me')).body.organizationId, orgB);
  const keys = await b.request('GET', '/api/keys');
  assert.equal(
    keys.body.keys.map((k: any) => k.id),
    [key.body.id],
    "B's keys",
  );
  fails(
    await b.request('POST', '/api/auth/session/organization', {
      body: { organizationId: '00000000-0000-0000-0000-000000000000' },
    }),
    404,
    'no such org',
  );
  fails(
    await b.request('POST', '/api/auth/session/organization', { body: { organizationId: 'x' } }),
    404,
    'garbage id',
  );
  assert.is(
    (await b.request('POST', '/api/auth/session/organization', { body: { organizationId: app.orgId } })).status,
    200,
  );
});

t('the public sign-in routes are rate limited per client address', async () => {
  const app = await startTestApp({ ingestConcurrency: 0, signInRateLimitPerMinute: 3 });
  try {
    for (let i = 0; i < 3; i++) assert.is((await browser(app).login('a@b.c', 'whatever!')).status, 401);
    const limited = await browser(app).login('a@b.c', 'whatever!');
    fails(limited, 429, 'fourth');
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    fails(await browser(app).request('GET', '/api/auth/invite?token=x'), 429, 'the same budget for invites');
    // Another address (as the proxy reports it) has its own budget; key requests are not counted.
    assert.is((await browser(app, { 'x-forwarded-for': '198.51.100.7' }).login('a@b.c', 'whatever!')).status, 401);
    assert.is((await app.request('GET', '/api/me')).status, 200);
  } finally {
    await app.close();
  }
});

t('the per-address limiter keeps its memory bounded: stale buckets go first, fresh ones are kept', () => {
  let clock = 0;
  const limit = createRateLimiter(2, () => clock, 3);
  assert.ok(limit('a').ok && limit('a').ok);
  assert.not.ok(limit('a').ok, 'a spent');
  limit('b');
  limit('c');
  clock = 30_000;
  limit('d'); // full of fresh buckets: starts over
  assert.ok(limit('a').ok, 'forgotten');
  clock = 100_000;
  limit('e');
  limit('f'); // a and d are stale now: they go; e stays and f comes in
  assert.ok(limit('f').ok);
  assert.not.ok(limit('f').ok, 'f kept its spending');
});

t('OpenAPI: public routes say security [], the cookie scheme is documented', async ({ app }) => {
  const doc = (await app.request('GET', '/api/openapi.json')).body;
  assert.equal(doc.components.securitySchemes.session, {
    ...doc.components.securitySchemes.session,
    type: 'apiKey',
    in: 'cookie',
    name: 'lumen_session',
  });
  for (const [p, m] of [
    ['/api/auth/login', 'post'],
    ['/api/auth/logout', 'post'],
    ['/api/auth/setup', 'post'],
    ['/api/auth/invite', 'get'],
    ['/api/auth/accept-invite', 'post'],
  ])
    assert.equal(doc.paths[p][m].security, [], `${m} ${p}`);
  assert.equal(doc.paths['/api/me'].get.security, [{ apiKey: [] }, { bearer: [] }, { session: [] }]);
  assert.equal(doc.paths['/api/auth/sessions'].get.security.length, 3);
});

t('garbage on the public routes is a 4xx, never a crash', async ({ app }) => {
  const bodies = [
    undefined,
    'null',
    '[]',
    '"x"',
    '{"email":{"$gt":""},"password":["a"]}',
    `{"token":"${'a'.repeat(500)}"}`,
  ];
  for (const p of ['/api/auth/login', '/api/auth/setup', '/api/auth/accept-invite', '/api/auth/logout'])
    for (const body of bodies) {
      const r = await app.request('POST', p, { key: null, body, headers: { 'content-type': 'application/json' } });
      assert.ok(r.status >= 200 && r.status < 500, `${p} ${body}: ${r.status}`);
    }
  const big = await app.request('POST', '/api/auth/login', {
    key: null,
    body: { email: 'a@b.c', password: 'x'.repeat(40_000) },
  });
  assert.is(big.status, 413, 'public bodies are small');
  for (const q of ['', '?token=', '?token=%00', `?token=${'a'.repeat(300)}`, '?token=a&token=b'])
    assert.ok((await app.request('GET', `/api/auth/invite${q}`, { key: null })).status < 500, q);
  assert.is((await app.request('GET', '/api/me', { key: TEST_KEY })).status, 200);
});

t.run();
