/**
 * Accounts for people (issue #15), part 2: invites, roles of signed-in people, organizations and the
 * limits of a session (it acts only where its person may).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { engineSql } from '../helpers/engine.js';
import { browser, OWNER_EMAIL, OWNER_PASSWORD, setUpOwner, type Browser } from '../helpers/browser.js';
import { makeImage, startTestApp, type Reply, type TestApp } from '../helpers/testApp.js';

interface Ctx {
  app: TestApp;
  owner: Browser;
  /** Organization B (the owner's too) and a collection in it; a collection in A. */
  orgB: string;
  collB: string;
  collA: string;
}
const t = suite<Ctx>('accounts: invites and what signed-in people may do');

t.before(async (ctx) => {
  ctx.app = await startTestApp({ ingestConcurrency: 0, signInRateLimitPerMinute: 10_000 });
  ctx.owner = await setUpOwner(ctx.app);
  const org = await ctx.owner.request('POST', '/api/auth/organization/create', { body: { name: 'Org B' } });
  ctx.orgB = org.body.organization.id;
  await ctx.owner.request('POST', '/api/auth/session/organization', { body: { organizationId: ctx.orgB } });
  const b = await ctx.owner.request('POST', `/api/organization/${ctx.orgB}/datasets`, { body: { name: 'B only' } });
  ctx.collB = b.body.dataset.id;
  await ctx.owner.request('POST', '/api/auth/session/organization', { body: { organizationId: ctx.app.orgId } });
  ctx.collA = await ctx.app.collection('A stuff');
});
t.after(async (ctx) => ctx.app.close());

function fails(r: Reply, status: number, what: string): void {
  assert.is(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
  assert.equal(Object.keys(r.body ?? {}).sort(), ['error', 'message'], `${what}: {error, message}`);
}

const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;

/** Invites `email` as `role` with `by` (a signed-in browser) and accepts it in a new browser. */
async function join(app: TestApp, by: Browser, email: string, role: string, password = 'invited password') {
  const invite = await by.request('POST', '/api/invites', { body: { email, role } });
  assert.is(invite.status, 200, JSON.stringify(invite.body));
  const b = browser(app);
  const r = await b.request('POST', '/api/auth/accept-invite', {
    body: { token: tokenOf(invite.body.url), password, name: email.split('@')[0] },
  });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return b;
}

t('an invite: made by an admin, listed without its token, shown to its page, accepted once', async (ctx) => {
  const { app, owner } = ctx;
  const made = await owner.request('POST', '/api/invites', { body: { email: ' Mia@Example.com ', role: 'member' } });
  assert.is(made.status, 200, JSON.stringify(made.body));
  assert.equal(Object.keys(made.body).sort(), ['email', 'expiresAt', 'id', 'organizationId', 'role', 'token', 'url']);
  assert.is(made.body.email, 'mia@example.com');
  assert.is(made.body.organizationId, app.orgId);
  assert.is(made.body.url, `${app.baseUrl}/invite?token=${made.body.token}`);
  const days = (Date.parse(made.body.expiresAt) - Date.now()) / 86_400_000;
  assert.ok(days > 6.99 && days <= 7, `expires in ${days} days`);

  const listed = await owner.request('GET', '/api/invites');
  const entry = listed.body.invites.find((i: any) => i.id === made.body.id);
  assert.ok(entry);
  assert.not.ok(JSON.stringify(listed.body).includes(made.body.token), 'no token in the listing');
  assert.is(entry.invitedBy, (await owner.request('GET', '/api/me')).body.userId);

  const page = await browser(app).request('GET', `/api/auth/invite?token=${made.body.token}`);
  assert.equal(page.body, {
    email: 'mia@example.com',
    role: 'member',
    organizationName: 'Default',
    expiresAt: made.body.expiresAt,
    accountExists: false,
  });
  const mia = browser(app);
  const accept = (b: Browser, password = 'mia password') =>
    b.request('POST', '/api/auth/accept-invite', { body: { token: made.body.token, password, name: 'Mia' } });
  fails(await accept(mia, 'short'), 400, 'the new-password rule');
  const ok = await accept(mia);
  assert.is(ok.status, 200, JSON.stringify(ok.body));
  assert.equal(ok.body.user, { id: ok.body.user.id, email: 'mia@example.com', name: 'Mia' });
  assert.is(ok.body.role, 'member');
  assert.equal(ok.body.organizations, [{ id: app.orgId, name: 'Default', slug: 'default', role: 'member' }]);
  assert.ok(mia.cookie);
  fails(await accept(browser(app)), 403, 'used');
  fails(await browser(app).request('GET', `/api/auth/invite?token=${made.body.token}`), 403, 'used, for the page');
  assert.not.ok((await owner.request('GET', '/api/invites')).body.invites.some((i: any) => i.id === made.body.id));
  // Mia signs in with her password later.
  assert.is((await browser(app).login('mia@example.com', 'mia password')).status, 200);
  fails(
    await owner.request('POST', '/api/invites', { body: { email: 'mia@example.com', role: 'viewer' } }),
    409,
    'member',
  );
});

t('invites: admin only, no role above the inviter, expiry, withdrawal, unknown tokens', async (ctx) => {
  const { app, owner } = ctx;
  const admin = await join(app, owner, 'ada@example.com', 'admin');
  fails(
    await admin.request('POST', '/api/invites', { body: { email: 'x@example.com', role: 'owner' } }),
    403,
    'above admin',
  );
  assert.is(
    (await admin.request('POST', '/api/invites', { body: { email: 'x@example.com', role: 'admin' } })).status,
    200,
  );
  const member = await join(app, owner, 'max@example.com', 'member');
  fails(
    await member.request('POST', '/api/invites', { body: { email: 'y@example.com', role: 'viewer' } }),
    403,
    'member',
  );
  fails(await member.request('GET', '/api/invites'), 403, 'member lists');
  fails(await owner.request('POST', '/api/invites', { body: { email: 'not an email', role: 'viewer' } }), 400, 'email');
  // An API key of an admin can invite too (automation), within its role.
  const viewerKey = (await app.request('POST', '/api/keys', { body: { role: 'viewer' } })).body.key;
  fails(
    await app.request('POST', '/api/invites', { key: viewerKey, body: { email: 'z@example.com', role: 'viewer' } }),
    403,
    'viewer key',
  );
  assert.is(
    (await app.request('POST', '/api/invites', { body: { email: 'z@example.com', role: 'viewer' } })).status,
    200,
  );

  const expiring = await owner.request('POST', '/api/invites', {
    body: { email: 'late@example.com', role: 'viewer', expiresInDays: 1 },
  });
  const days = (Date.parse(expiring.body.expiresAt) - Date.now()) / 86_400_000;
  assert.ok(days > 0.99 && days <= 1, `${days}`);
  await engineSql(app).run(
    `UPDATE invites SET expires_at = ? WHERE id = ?`,
    new Date(Date.now() - 1000).toISOString(),
    expiring.body.id,
  );
  const late = await browser(app).request('POST', '/api/auth/accept-invite', {
    body: { token: expiring.body.token, password: 'late password' },
  });
  fails(late, 403, 'expired');
  assert.match(late.body.message, /expired/);
  fails(await browser(app).login('late@example.com', 'late password'), 401, 'no account made');

  const withdrawn = await owner.request('POST', '/api/invites', { body: { email: 'w@example.com', role: 'viewer' } });
  fails(await member.request('DELETE', `/api/invites/${withdrawn.body.id}`), 403, 'member withdraws');
  assert.equal((await owner.request('DELETE', `/api/invites/${withdrawn.body.id}`)).body, {
    id: withdrawn.body.id,
    revoked: true,
  });
  fails(await owner.request('DELETE', `/api/invites/${withdrawn.body.id}`), 404, 'twice');
  fails(await browser(app).request('GET', `/api/auth/invite?token=${withdrawn.body.token}`), 403, 'withdrawn');
  // A newer invite for the same email replaces an older one.
  const older = await owner.request('POST', '/api/invites', { body: { email: 'twice@example.com', role: 'viewer' } });
  await owner.request('POST', '/api/invites', { body: { email: 'twice@example.com', role: 'member' } });
  fails(await browser(app).request('GET', `/api/auth/invite?token=${older.body.token}`), 403, 'superseded');
  fails(await browser(app).request('GET', `/api/auth/invite?token=${'a'.repeat(43)}`), 404, 'unknown token');
  fails(await browser(app).request('GET', '/api/auth/invite'), 400, 'no token');
  // Another organization's invite is not found from here.
  await owner.request('POST', '/api/auth/session/organization', { body: { organizationId: ctx.orgB } });
  const inB = await owner.request('POST', '/api/invites', { body: { email: 'b-only@example.com', role: 'viewer' } });
  assert.is(inB.body.organizationId, ctx.orgB);
  await owner.request('POST', '/api/auth/session/organization', { body: { organizationId: app.orgId } });
  fails(await owner.request('DELETE', `/api/invites/${inB.body.id}`), 404, "B's invite from A");
  assert.not.ok((await owner.request('GET', '/api/invites')).body.invites.some((i: any) => i.id === inB.body.id));
});

t(
  "a signed-in person sees only their organizations' data; a viewer cannot write; a member cannot manage keys",
  async (ctx) => {
    const { app, owner } = ctx;
    const viewer = await join(app, owner, 'vic@example.com', 'viewer');
    const member = await join(app, owner, 'mo@example.com', 'member');
    for (const b of [viewer, member]) {
      assert.is((await b.request('GET', `/api/dataset/${ctx.collA}`)).status, 200, 'A is theirs');
      fails(await b.request('GET', `/api/dataset/${ctx.collB}`), 403, "B's collection");
      fails(await b.request('GET', `/api/organization/${ctx.orgB}/datasets`), 403, "B's collections");
      const orgs = await b.request('GET', '/api/auth/organization/list');
      assert.equal(
        orgs.body.organizations.map((o: any) => o.id),
        [app.orgId],
      );
      fails(
        await b.request('POST', '/api/auth/session/organization', { body: { organizationId: ctx.orgB } }),
        403,
        'not a member of B',
      );
      fails(await b.request('POST', '/api/keys', { body: {} }), 403, 'keys');
      fails(await b.request('GET', '/api/keys'), 403, 'key list');
    }
    fails(
      await viewer.request('POST', '/api/folder', { body: { datasetId: ctx.collA, name: 'no' } }),
      403,
      'viewer folder',
    );
    fails(await viewer.request('PATCH', `/api/dataset/${ctx.collA}`, { body: { name: 'no' } }), 403, 'viewer rename');
    const bytes = await makeImage();
    const upload = async (b: Browser, csrf: boolean) => {
      const form = new FormData();
      form.append('datasetId', ctx.collA);
      form.append('file', new Blob([bytes], { type: 'image/jpeg' }), 'x.jpg');
      const headers: Record<string, string> = { cookie: `lumen_session=${b.cookie}` };
      if (csrf) headers['x-csrf-token'] = b.csrf!;
      const res = await fetch(`${app.baseUrl}/api/upload/multipart`, { method: 'POST', headers, body: form });
      return { status: res.status, body: (await res.json()) as any };
    };
    assert.is((await upload(viewer, true)).status, 403, 'viewer upload');
    assert.is((await upload(member, false)).status, 403, 'member upload without csrf');
    const up = await upload(member, true);
    assert.is(up.status, 200, JSON.stringify(up.body));
    assert.is((await viewer.request('GET', `/api/media/${up.body.mediaId}`)).status, 200, 'the viewer sees it');
    // Another user's session cannot be ended from here.
    const ownerSession = (await owner.request('GET', '/api/auth/sessions')).body.sessions.find(
      (s: any) => s.current,
    ).id;
    fails(await member.request('DELETE', `/api/auth/sessions/${ownerSession}`), 404, "another user's session");
    assert.is((await owner.request('GET', '/api/me')).status, 200, 'the owner is still signed in');
    assert.ok(
      (await member.request('GET', '/api/auth/sessions')).body.sessions.every((s: any) => s.id !== ownerSession),
    );
  },
);

t('an existing account accepts an invite to another organization with its own password, then switches', async (ctx) => {
  const { app, owner } = ctx;
  const sam = await join(app, owner, 'sam@example.com', 'member', 'sam password');
  await owner.request('POST', '/api/auth/session/organization', { body: { organizationId: ctx.orgB } });
  const invite = await owner.request('POST', '/api/invites', { body: { email: 'sam@example.com', role: 'viewer' } });
  await owner.request('POST', '/api/auth/session/organization', { body: { organizationId: app.orgId } });
  const page = await browser(app).request('GET', `/api/auth/invite?token=${invite.body.token}`);
  assert.is(page.body.organizationName, 'Org B');
  assert.is(page.body.accountExists, true);
  const accept = (password: string) =>
    browser(app).request('POST', '/api/auth/accept-invite', { body: { token: invite.body.token, password } });
  fails(await accept('not sams password'), 401, 'wrong password');
  const ok = await accept('sam password');
  assert.is(ok.status, 200, JSON.stringify(ok.body));
  assert.is(ok.body.organizationId, ctx.orgB, 'signed in where the invite leads');
  assert.is(ok.body.role, 'viewer');
  assert.equal(
    ok.body.organizations.map((o: any) => [o.id, o.role]),
    [
      [app.orgId, 'member'],
      [ctx.orgB, 'viewer'],
    ],
  );
  // Sam's older session switches to B, where Sam is a viewer.
  const switched = await sam.request('POST', '/api/auth/session/organization', { body: { organizationId: ctx.orgB } });
  assert.is(switched.body.role, 'viewer');
  assert.is((await sam.request('GET', `/api/dataset/${ctx.collB}`)).status, 200);
  fails(await sam.request('GET', `/api/dataset/${ctx.collA}`), 403, 'A from a session in B');
  fails(await sam.request('PATCH', `/api/dataset/${ctx.collB}`, { body: { name: 'no' } }), 403, 'viewer in B');
  fails(
    await sam.request('POST', '/api/auth/session/organization', { body: { organizationId: ctx.orgB }, csrf: false }),
    403,
    'csrf',
  );
  // Signing in starts in the oldest organization.
  assert.is((await browser(app).login('sam@example.com', 'sam password')).body.organizationId, app.orgId);
  assert.is((await browser(app).login(OWNER_EMAIL, OWNER_PASSWORD)).status, 200);
});

t.run();
