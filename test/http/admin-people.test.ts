/**
 * Issue #28, people and keys through the real HTTP app: the member list, role changes under the ceilings (never
 * above your own, an admin never touches an owner, never the last owner), removal ending the member's sessions
 * and keys at once, a role change racing with that member's write, invite resend, key rename, scope and revoke.
 */
import http from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { browser, setUpOwner, type Browser } from '../helpers/browser.js';
import { startTestApp, type Reply, type TestApp } from '../helpers/testApp.js';

interface Ctx {
  app: TestApp;
  owner: Browser;
}
const t = suite<Ctx>('admin: people and keys');

t.before(async (ctx) => {
  ctx.app = await startTestApp({ ingestConcurrency: 0, signInRateLimitPerMinute: 10_000 });
  ctx.owner = await setUpOwner(ctx.app);
});
t.after(async (ctx) => ctx.app.close());

const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;

function fails(r: Reply, status: number, what: string): void {
  assert.is(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
  assert.equal(Object.keys(r.body ?? {}).sort(), ['error', 'message'], `${what}: {error, message}`);
}

/** Invites `email` as `role` and accepts it in a new browser; returns the browser and the user's id. */
async function join(app: TestApp, by: Browser, email: string, role: string) {
  const invite = await by.request('POST', '/api/invites', { body: { email, role } });
  assert.is(invite.status, 200, JSON.stringify(invite.body));
  const b = browser(app);
  const r = await b.request('POST', '/api/auth/accept-invite', {
    body: { token: tokenOf(invite.body.url), password: 'invited password', name: email.split('@')[0] },
  });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return { b, userId: r.body.user.id as string };
}

t('the member list: roles and last activity, admins only', async (ctx) => {
  const { app, owner } = ctx;
  const { b: viewer, userId } = await join(app, owner, 'vera@example.com', 'viewer');
  const list = await owner.request('GET', '/api/members');
  assert.is(list.status, 200, JSON.stringify(list.body));
  const vera = list.body.members.find((m: any) => m.userId === userId);
  assert.is(vera.role, 'viewer');
  assert.is(vera.email, 'vera@example.com');
  assert.ok(vera.lastSeenAt, 'her session was seen');
  assert.is(vera.you, false);
  assert.ok(list.body.members.some((m: any) => m.you && m.role === 'owner'));
  fails(await viewer.request('GET', '/api/members'), 403, 'a viewer lists members');
  // A key's use is recorded: the bootstrap key listed the members just now.
  await app.request('GET', '/api/members');
  const again = await owner.request('GET', '/api/members');
  assert.ok(
    again.body.members.some((m: any) => m.keyLastUsedAt),
    'a key use is recorded',
  );
});

t('role ceilings: never above your own; an admin never changes an owner; the last owner stays', async (ctx) => {
  const { app, owner } = ctx;
  const { b: admin, userId: adminId } = await join(app, owner, 'ada@example.com', 'admin');
  const { userId: memberId } = await join(app, owner, 'max@example.com', 'member');
  const me = (await owner.request('GET', '/api/me')).body.userId;
  fails(await admin.request('PATCH', `/api/members/${memberId}`, { body: { role: 'owner' } }), 403, 'admin → owner');
  fails(await admin.request('PATCH', `/api/members/${me}`, { body: { role: 'viewer' } }), 403, 'admin demotes owner');
  fails(await admin.request('DELETE', `/api/members/${me}`), 403, 'admin removes owner');
  const ok = await admin.request('PATCH', `/api/members/${memberId}`, { body: { role: 'admin' } });
  assert.equal(ok.body, { userId: memberId, role: 'admin' });
  fails(await owner.request('PATCH', `/api/members/${me}`, { body: { role: 'admin' } }), 409, 'last owner demoted');
  fails(await owner.request('DELETE', `/api/members/${me}`), 409, 'last owner removed');
  fails(await owner.request('PATCH', '/api/members/nobody', { body: { role: 'admin' } }), 404, 'no such member');
  fails(await owner.request('PATCH', `/api/members/${memberId}`, { body: { role: 'god' } }), 400, 'no such role');
  const member = await join(app, owner, 'mo@example.com', 'member');
  fails(await member.b.request('PATCH', `/api/members/${adminId}`, { body: { role: 'viewer' } }), 403, 'member');
  // Two owners: either may step down, not both.
  assert.is((await owner.request('PATCH', `/api/members/${adminId}`, { body: { role: 'owner' } })).status, 200);
  assert.is((await owner.request('PATCH', `/api/members/${me}`, { body: { role: 'admin' } })).status, 200);
  fails(await admin.request('PATCH', `/api/members/${adminId}`, { body: { role: 'admin' } }), 409, 'now the last');
  assert.is((await admin.request('PATCH', `/api/members/${me}`, { body: { role: 'owner' } })).status, 200);
});

t('removal ends the member’s open session and keys at once', async (ctx) => {
  const { app, owner } = ctx;
  const { b: rita, userId } = await join(app, owner, 'rita@example.com', 'admin');
  const key = await rita.request('POST', '/api/keys', { body: { name: 'rita laptop', role: 'member' } });
  assert.is(key.status, 200, JSON.stringify(key.body));
  assert.is((await app.request('GET', '/api/me', { key: key.body.key })).status, 200);
  assert.is((await rita.request('GET', '/api/auth/session')).status, 200);
  const removed = await owner.request('DELETE', `/api/members/${userId}`);
  assert.equal(removed.body, { userId, removed: true });
  fails(await app.request('GET', '/api/me', { key: key.body.key }), 401, 'the removed member’s key (remembered read)');
  fails(await rita.request('GET', '/api/auth/session'), 401, 'the removed member’s session');
  const list = await owner.request('GET', '/api/members');
  assert.not.ok(list.body.members.some((m: any) => m.userId === userId));
  const keys = await owner.request('GET', '/api/keys');
  assert.not.ok(
    keys.body.keys.some((k: any) => k.id === key.body.id),
    'the key is revoked',
  );
});

/** Starts a POST whose JSON body arrives only when `finish` is called; `reply` resolves with its status. */
function slowWrite(app: TestApp, path: string, cookie: string, csrf: string, body: object) {
  const text = JSON.stringify(body);
  const req = http.request(app.baseUrl + path, {
    method: 'POST',
    headers: {
      cookie: `lumen_session=${cookie}`,
      'x-csrf-token': csrf,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
    },
  });
  const reply = new Promise<number>((resolve, reject) => {
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
  });
  req.write(text.slice(0, 5));
  return { reply, finish: () => req.end(text.slice(5)) };
}

t(
  'a role change racing with the member’s write is answered only after that write; later writes see it',
  async (ctx) => {
    const { app, owner } = ctx;
    const { b: mel, userId } = await join(app, owner, 'mel@example.com', 'admin'); // admins create collections
    const write = slowWrite(app, `/api/organization/${app.orgId}/datasets`, mel.cookie!, mel.csrf!, { name: 'Mel' });
    await new Promise((r) => setTimeout(r, 100)); // the write has authenticated as a member and reads its body
    let answeredAt = 0;
    const change = owner.request('PATCH', `/api/members/${userId}`, { body: { role: 'member' } }).then((r) => {
      answeredAt = Date.now();
      return r;
    });
    await new Promise((r) => setTimeout(r, 300));
    assert.is(answeredAt, 0, 'the change waits for the write in flight');
    const finishedAt = Date.now();
    write.finish();
    assert.is(await write.reply, 200, 'the write that started as an admin completes');
    assert.is((await change).status, 200);
    assert.ok(answeredAt >= finishedAt);
    fails(
      await mel.request('POST', `/api/organization/${app.orgId}/datasets`, { body: { name: 'Mel 2' } }),
      403,
      'a write after the change',
    );
  },
);

t('invites: resend gives a new link and ends the old one', async (ctx) => {
  const { app, owner } = ctx;
  const made = await owner.request('POST', '/api/invites', { body: { email: 'rex@example.com', role: 'viewer' } });
  const again = await owner.request('POST', `/api/invites/${made.body.id}/resend`);
  assert.is(again.status, 200, JSON.stringify(again.body));
  assert.is(again.body.email, 'rex@example.com');
  assert.is(again.body.role, 'viewer');
  assert.is.not(again.body.token, made.body.token);
  fails(await browser(app).request('GET', `/api/auth/invite?token=${made.body.token}`), 403, 'the old link');
  assert.is((await browser(app).request('GET', `/api/auth/invite?token=${again.body.token}`)).status, 200);
  fails(await owner.request('POST', `/api/invites/${made.body.id}/resend`), 404, 'the withdrawn invite');
  const pending = await owner.request('GET', '/api/invites');
  assert.equal(
    pending.body.invites.filter((i: any) => i.email === 'rex@example.com').map((i: any) => i.id),
    [again.body.id],
  );
});

t('keys: scoped to a role up to the creator’s, renamed, revoked with 401 at once', async (ctx) => {
  const { app, owner } = ctx;
  const { b: admin } = await join(app, owner, 'kim@example.com', 'admin');
  fails(await admin.request('POST', '/api/keys', { body: { name: 'too much', role: 'owner' } }), 403, 'above creator');
  const made = await admin.request('POST', '/api/keys', { body: { name: 'scanner', role: 'viewer' } });
  assert.is(made.status, 200);
  assert.is(made.body.role, 'viewer');
  fails(
    await app.request('POST', `/api/organization/${app.orgId}/datasets`, { key: made.body.key, body: { name: 'x' } }),
    403,
    'a viewer key writes',
  );
  const renamed = await admin.request('PATCH', `/api/keys/${made.body.id}`, { body: { name: 'Scanner 2' } });
  assert.equal(renamed.body, { id: made.body.id, name: 'Scanner 2' });
  fails(await admin.request('PATCH', `/api/keys/${made.body.id}`, { body: { name: '  ' } }), 400, 'blank name');
  const listed = (await owner.request('GET', '/api/keys')).body.keys.find((k: any) => k.id === made.body.id);
  assert.is(listed.name, 'Scanner 2');
  assert.ok(listed.lastUsedAt, 'its use is recorded');
  assert.is((await app.request('GET', '/api/me', { key: made.body.key })).status, 200); // remembered now
  assert.is((await admin.request('DELETE', `/api/keys/${made.body.id}`)).status, 200);
  fails(await app.request('GET', '/api/me', { key: made.body.key }), 401, 'the revoked key');
});

t.run();
