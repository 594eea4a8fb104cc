/**
 * Share links (issue 28) through the real HTTP app (test/http/albums.test.ts: albums):
 * every rule a visitor meets (password, limits, expiry, revocation, permissions,
 * nothing outside the share), the visitor refused by every other route, and the audit list.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeImage, startTestApp, type Reply, type TestApp } from '../helpers/testApp.js';

interface Ctx {
  app: TestApp;
  ds: string;
  /** Items in the collection's root, by name. */
  items: Record<string, string>;
  /** An item of another collection. */
  elsewhere: string;
}
const t = suite<Ctx>('share: albums and share links');

async function upload(app: TestApp, datasetId: string, name: string, color = 10): Promise<string> {
  const bytes = await makeImage({ color: { r: color, g: 100, b: 200 } });
  const r = await app.upload({ datasetId }, { bytes, filename: name, type: 'image/jpeg' });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.mediaId;
}

t.before(async (ctx) => {
  ctx.app = await startTestApp({ ingestConcurrency: 0 });
  ctx.ds = await ctx.app.collection('Shared stuff');
  ctx.items = {};
  const names = { red: 'red bus.jpg', blue: 'blue boat.jpg', green: 'green tree.jpg', kite: 'red kite.jpg' };
  for (const [i, [key, name]] of Object.entries(names).entries())
    ctx.items[key] = await upload(ctx.app, ctx.ds, name, 20 + i * 40);
  ctx.elsewhere = await upload(ctx.app, await ctx.app.collection('Private'), 'secret.jpg');
});
t.after(async (ctx) => ctx.app.close());

function fails(r: Reply, status: number, what: string): void {
  assert.is(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
  assert.equal(Object.keys(r.body ?? {}).sort(), ['error', 'message'], `${what}: {error, message}`);
}
const ok = (r: Reply, what: string) => assert.is(r.status, 200, `${what}: ${JSON.stringify(r.body)}`);

/** A visitor: no key, their own cookie jar (the share session), their own address. */
function visitor(app: TestApp, address = '203.0.113.7') {
  let cookie = '';
  return {
    get cookie() {
      return cookie;
    },
    set cookie(v: string) {
      cookie = v;
    },
    async request(method: string, url: string, body?: unknown): Promise<Reply> {
      const headers: Record<string, string> = { 'x-forwarded-for': address };
      if (cookie) headers.cookie = cookie;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(app.baseUrl + url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const set = res.headers.get('set-cookie');
      if (set?.startsWith('lumen_share=')) cookie = set.split(';')[0];
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
    },
  };
}

/** Moves a link's expiry into the past, as time would (the API takes only future ones). */
async function expire(ctx: Ctx, linkId: string): Promise<void> {
  await ctx.app.app.services.storage.shares.update(
    linkId,
    { expiresAt: new Date(Date.now() - 1000).toISOString() },
    new Date().toISOString(),
  );
}

async function album(ctx: Ctx, name: string, ids: string[]): Promise<string> {
  const r = await ctx.app.request('POST', `/api/dataset/${ctx.ds}/albums`, { body: { name, mediaIds: ids } });
  ok(r, 'create album');
  return r.body.id;
}

async function link(ctx: Ctx, body: object) {
  const r = await ctx.app.request('POST', `/api/dataset/${ctx.ds}/share-links`, { body });
  ok(r, `create link ${JSON.stringify(body)}`);
  return r.body as { link: { id: string; viewCount: number }; token: string; url: string };
}

t('share: password, exactly the album, nothing outside it, refused by every other route', async (ctx) => {
  const { app, items } = ctx;
  const albumId = await album(ctx, 'For Ann', [items.blue, items.red]);
  const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
  const {
    token,
    url,
    link: created,
  } = await link(ctx, {
    kind: 'album',
    albumId,
    name: 'Ann’s link',
    password: 'open sesame',
    expiresAt,
  });
  assert.ok(/^[A-Za-z0-9_-]{43}$/.test(token), 'a 256-bit token');
  assert.is(url, `${app.baseUrl}/s/${token}`);
  const listed = await app.request('GET', `/api/dataset/${ctx.ds}/share-links`);
  assert.not.ok(JSON.stringify(listed.body).includes(token), 'the token is never listed');
  const v = visitor(app, '198.51.100.1');
  fails(await v.request('GET', `/api/share/${token}`), 401, 'no password yet');
  fails(await v.request('GET', `/api/share/${token}/media`), 401, 'no password yet');
  fails(await v.request('POST', `/api/share/${token}/unlock`, { password: 'wrong' }), 401, 'wrong password');
  ok(await v.request('POST', `/api/share/${token}/unlock`, { password: 'open sesame' }), 'right password');
  assert.match(v.cookie, /^lumen_share=/);
  const info = await v.request('GET', `/api/share/${token}`);
  ok(info, 'info');
  assert.equal(info.body, {
    name: 'Ann’s link',
    kind: 'album',
    canDownload: false,
    canUpload: false,
    expiresAt,
    organizationName: null,
  });
  const media = await v.request('GET', `/api/share/${token}/media`);
  assert.equal(
    media.body.media.map((m: { id: string }) => m.id),
    [items.blue, items.red],
  );
  const shown = media.body.media[0];
  assert.is(shown.downloadUrl, null, 'no download without the permission');
  for (const hidden of ['exif', 'metadata', 'path', 'datasetId', 'frames', 'blob']) assert.not.ok(hidden in shown);
  ok(await v.request('GET', `/api/share/${token}/media/${items.red}`), 'an item of the share');
  fails(await v.request('GET', `/api/share/${token}/media/${items.kite}`), 404, 'an item outside the share');
  fails(await v.request('GET', `/api/share/${token}/media/${ctx.elsewhere}`), 404, 'an item of another collection');
  // The share session opens nothing else: every other route reads no share cookie.
  const cookie = `${v.cookie}; lumen_session=${v.cookie.split('=')[1]}`;
  for (const path of [
    `/api/media/${items.kite}`,
    `/api/media/${items.red}`,
    `/api/dataset/${ctx.ds}/media?q=red`,
    `/api/search?q=red`,
    '/api/me',
    `/api/albums/${albumId}/media`,
  ]) {
    const r = await fetch(app.baseUrl + path, { headers: { cookie } });
    assert.is(r.status, 401, `${path} refuses the visitor`);
  }
  const forged = shown.thumbnailUrl ?? `${app.baseUrl}/files/${'A'.repeat(22)}/x.jpg`;
  const other = forged.replace(/\/files\/[^/]+\//, `/files/${'B'.repeat(22)}/`);
  assert.is((await fetch(other)).status, 404, 'a file URL with a forged signature');
  // Another link's share session does not open this one.
  const second = await link(ctx, { kind: 'album', albumId, password: 'other pass' });
  const w = visitor(app, '198.51.100.2');
  w.cookie = v.cookie;
  fails(await w.request('GET', `/api/share/${second.token}/media`), 401, 'a session of another link');
  const views = await app.request('GET', `/api/dataset/${ctx.ds}/share-links`);
  const mine = views.body.links.find((l: { id: string }) => l.id === created.id);
  assert.is(mine.viewCount, 1);
  assert.is(mine.hasPassword, true);
});

t('share: unknown, expired and revoked tokens answer alike on every visitor route (fuzz)', async (ctx) => {
  const { app, items } = ctx;
  const revoked = await link(ctx, { kind: 'selection', mediaIds: [items.red] });
  ok(await app.request('DELETE', `/api/share-links/${revoked.link.id}`), 'revoke');
  const expiring = await link(ctx, { kind: 'selection', mediaIds: [items.red], password: 'pass word' });
  await expire(ctx, expiring.link.id);
  const rand = (n: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(n))).toString('base64url');
  const tokens = [
    revoked.token,
    expiring.token,
    rand(32),
    rand(31),
    rand(5),
    'x'.repeat(300),
    encodeURIComponent('../../etc/passwd'),
    encodeURIComponent('%00'),
    revoked.token.toUpperCase(),
  ];
  let reference: string | null = null;
  const v = visitor(app, '198.51.100.3');
  for (const token of tokens)
    for (const [method, path, body] of [
      ['GET', `/api/share/${token}`],
      ['GET', `/api/share/${token}/media`],
      ['GET', `/api/share/${token}/media/${items.red}`],
      ['POST', `/api/share/${token}/unlock`, { password: 'pass word' }],
      ['POST', `/api/share/${token}/unlock`, { password: rand(12) }],
    ] as Array<[string, string, unknown?]>) {
      const r = await v.request(method, path, body);
      const seen = JSON.stringify([r.status, r.body]);
      reference ??= seen;
      assert.is(seen, reference, `${method} ${path}`);
    }
  assert.is(reference, JSON.stringify([404, { error: 'Not Found', message: 'share link not found' }]));
  // Timing: an unknown token and a revoked one cost the same lookup (loose bound: a shared CI machine).
  const time = async (token: string) => {
    const start = performance.now();
    for (let i = 0; i < 20; i++) await v.request('GET', `/api/share/${token}/media`);
    return performance.now() - start;
  };
  const [unknown, gone] = [await time(rand(32)), await time(revoked.token)];
  assert.ok(gone < unknown * 3 + 50 && unknown < gone * 3 + 50, `unknown ${unknown} ms, revoked ${gone} ms`);
});

t('share: revocation ends an open visit at its next request', async (ctx) => {
  const { app, items } = ctx;
  const { token, link: l } = await link(ctx, { kind: 'selection', mediaIds: [items.green] });
  const v = visitor(app, '198.51.100.4');
  ok(await v.request('GET', `/api/share/${token}/media`), 'no password: open at once');
  ok(await app.request('DELETE', `/api/share-links/${l.id}`), 'revoke');
  fails(await v.request('GET', `/api/share/${token}/media`), 404, 'after revocation');
  const listed = await app.request('GET', `/api/dataset/${ctx.ds}/share-links`);
  assert.is(listed.body.links.find((x: { id: string }) => x.id === l.id).state, 'revoked');
  fails(await app.request('PATCH', `/api/share-links/${l.id}`, { body: { name: 'again' } }), 400, 'revoked stays');
});

t('share: wrong passwords lock the link (even the right one waits), per address too; audited', async (ctx) => {
  const { app, items } = ctx;
  const { token, link: l } = await link(ctx, { kind: 'selection', mediaIds: [items.red], password: 'right one' });
  for (let i = 0; i < 10; i++) {
    const v = visitor(app, `192.0.2.${i + 1}`);
    fails(await v.request('POST', `/api/share/${token}/unlock`, { password: `guess ${i}` }), 401, `guess ${i}`);
  }
  const late = visitor(app, '192.0.2.200');
  const r = await late.request('POST', `/api/share/${token}/unlock`, { password: 'right one' });
  fails(r, 429, 'locked link');
  assert.ok(Number(r.headers.get('retry-after')) > 0, 'Retry-After');
  // Per address: unknown tokens count too.
  const a = visitor(app, '192.0.2.250');
  for (let i = 0; i < 20; i++) await a.request('POST', `/api/share/${'q'.repeat(43)}/unlock`, { password: 'x' });
  fails(await a.request('POST', `/api/share/${token}/unlock`, { password: 'right one' }), 429, 'locked address');
  // The counts live in the database: a second server on the same library (another process, or this one
  // restarted) refuses too.
  const second = await startTestApp({ ingestConcurrency: 0, dataDir: app.dataDir });
  try {
    const elsewhere = visitor(second, '192.0.2.201');
    fails(await elsewhere.request('POST', `/api/share/${token}/unlock`, { password: 'right one' }), 429, 'elsewhere');
  } finally {
    await second.close();
  }
  const audit = await app.request('GET', `/api/organization/${app.orgId}/share-audit`);
  ok(audit, 'audit');
  assert.ok(
    audit.body.entries.some(
      (e: { action: string; linkId: string }) => e.action === 'password-lockout' && e.linkId === l.id,
    ),
  );
});

t('share: permissions: download, upload into an album (audited), a folder link is live', async (ctx) => {
  const { app, items } = ctx;
  const albumId = await album(ctx, 'Party', [items.red]);
  const { token } = await link(ctx, { kind: 'album', albumId, canDownload: true, canUpload: true });
  const v = visitor(app, '198.51.100.5');
  const media = await v.request('GET', `/api/share/${token}/media`);
  assert.match(media.body.media[0].downloadUrl, /\/files\/.+\/red%20bus\.jpg$/);
  assert.is((await fetch(media.body.media[0].downloadUrl)).status, 200, 'the original downloads');
  const form = new FormData();
  form.append('file', new Blob([await makeImage()], { type: 'image/jpeg' }), 'guest.jpg');
  const up = await fetch(`${app.baseUrl}/api/share/${token}/upload`, { method: 'POST', body: form });
  assert.is(up.status, 200, await up.clone().text());
  const uploaded = (await up.json()) as { id: string; name: string };
  assert.is(uploaded.name, 'guest.jpg');
  const after = await v.request('GET', `/api/share/${token}/media`);
  assert.equal(
    after.body.media.map((m: { id: string }) => m.id),
    [items.red, uploaded.id],
  );
  const audit = await app.request('GET', `/api/organization/${app.orgId}/share-audit?limit=500`);
  const actions = audit.body.entries.map((e: { action: string }) => e.action);
  for (const action of ['created', 'revoked', 'visitor-upload']) assert.ok(actions.includes(action), action);
  // Without the permissions.
  const closed = await link(ctx, { kind: 'album', albumId });
  const form2 = new FormData();
  form2.append('file', new Blob([await makeImage()], { type: 'image/jpeg' }), 'nope.jpg');
  const refused = await fetch(`${app.baseUrl}/api/share/${closed.token}/upload`, { method: 'POST', body: form2 });
  assert.is(refused.status, 403);
  fails(
    await app.request('POST', `/api/dataset/${ctx.ds}/share-links`, {
      body: { kind: 'selection', mediaIds: [items.red], canUpload: true },
    }),
    400,
    'a selection takes no uploads',
  );
  // A folder link is live: an item added later appears; an item outside the folder does not.
  const folder = await app.request('POST', '/api/folder', { body: { datasetId: ctx.ds, name: 'Event' } });
  ok(folder, 'folder');
  const f = folder.body.folder ?? folder.body;
  const live = await link(ctx, { kind: 'folder', folderId: f.id });
  assert.is((await v.request('GET', `/api/share/${live.token}/media`)).body.pagination.total, 0);
  const bytes = await makeImage({ color: { r: 1, g: 2, b: 3 } });
  const inside = await app.upload({ datasetId: ctx.ds, path: f.path }, { bytes, filename: 'late.jpg' });
  const later = await v.request('GET', `/api/share/${live.token}/media`);
  assert.equal(
    later.body.media.map((m: { id: string }) => m.id),
    [inside.body.mediaId],
  );
  fails(await v.request('GET', `/api/share/${live.token}/media/${items.red}`), 404, 'outside the folder');
});

t('share audit: admins only; links of another organization are not found', async (ctx) => {
  const { app, items } = ctx;
  const { link: l } = await link(ctx, { kind: 'selection', mediaIds: [items.red] });
  const member = (await app.request('POST', '/api/keys', { body: { role: 'member', name: 'm' } })).body.key;
  fails(await app.request('GET', `/api/organization/${app.orgId}/share-audit`, { key: member }), 403, 'member');
  const viewer = (await app.request('POST', '/api/keys', { body: { role: 'viewer', name: 'v' } })).body.key;
  fails(await app.request('GET', `/api/dataset/${ctx.ds}/share-links`, { key: viewer }), 403, 'viewer lists no links');
  fails(await app.request('DELETE', `/api/share-links/${l.id}`, { key: viewer }), 403, 'viewer revokes none');
  const org = (await app.request('POST', '/api/auth/organization/create', { body: { name: 'Other' } })).body;
  const otherKey = (
    await app.request('POST', '/api/keys', { body: { role: 'owner', name: 'o', organizationId: org.organization.id } })
  ).body.key;
  fails(await app.request('DELETE', `/api/share-links/${l.id}`, { key: otherKey }), 404, 'another organization');
  fails(
    await app.request('PATCH', `/api/share-links/${l.id}`, { key: otherKey, body: { name: 'x' } }),
    404,
    'another organization',
  );
});

t(
  'share: a new password signs visitors out; the organization name only when chosen; audit keeps no secret',
  async (ctx) => {
    const { app, items } = ctx;
    const { token, link: l } = await link(ctx, {
      kind: 'selection',
      mediaIds: [items.kite, items.red],
      password: 'first pass',
    });
    const v = visitor(app, '198.51.100.9');
    ok(await v.request('POST', `/api/share/${token}/unlock`, { password: 'first pass' }), 'unlock');
    const listed = await v.request('GET', `/api/share/${token}/media`);
    assert.equal(
      listed.body.media.map((m: { id: string }) => m.id),
      [items.kite, items.red],
      'the selection order',
    );
    assert.is((await v.request('GET', `/api/share/${token}`)).body.organizationName, null);
    const changed = await app.request('PATCH', `/api/share-links/${l.id}`, {
      body: { password: 'second pass', showOrganization: true, canDownload: true },
    });
    ok(changed, 'change');
    assert.is(changed.body.canDownload, true);
    fails(await v.request('GET', `/api/share/${token}/media`), 401, 'the old share session ends with the password');
    ok(await v.request('POST', `/api/share/${token}/unlock`, { password: 'second pass' }), 'the new password');
    const info = await v.request('GET', `/api/share/${token}`);
    assert.type(info.body.organizationName, 'string');
    fails(
      await app.request('PATCH', `/api/share-links/${l.id}`, { body: { expiresAt: '2000-01-01T00:00:00Z' } }),
      400,
      'an expiry in the past',
    );
    fails(await app.request('PATCH', `/api/share-links/${l.id}`, { body: { password: 'abc' } }), 400, 'too short');
    const audit = await app.request('GET', `/api/organization/${app.orgId}/share-audit?limit=500`);
    const mine = audit.body.entries.filter((e: { linkId: string }) => e.linkId === l.id);
    assert.equal(
      mine.map((e: { action: string }) => e.action),
      ['changed', 'created'],
    );
    assert.is(mine[0].detail.password, 'set');
    assert.not.ok(JSON.stringify(audit.body).includes('$scrypt$'), 'no password hash in the audit list');
  },
);

t.run();
