/**
 * Writes that race (issue #25): the same requests sent at once, as two browser tabs, a retrying client or two API
 * processes would. On SQLite they are served one at a time; on a real PostgreSQL server (`npm run test:pg` with
 * TEST_DATABASE_URL) they run on separate connections, interleaved. Either way no answer is a 5xx, nothing is made
 * twice that must be made once, and no write is lost.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeImage, startTestApp, type Reply, type TestApp } from '../helpers/testApp.js';

const t = suite<{ app: TestApp; ds: string }>('concurrent writes');
t.before(async (ctx) => {
  ctx.app = await startTestApp();
  ctx.ds = await ctx.app.collection('Races');
});
t.after(async (ctx) => ctx.app.close());

const N = 10;
const times = <T>(n: number, fn: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => fn(i)));
const statuses = (replies: Reply[]) => replies.map((r) => r.status).sort();
function noServerError(replies: Reply[], what: string): void {
  const bad = replies.filter((r) => r.status >= 500);
  assert.equal(
    bad.map((r) => `${r.status} ${JSON.stringify(r.body)}`),
    [],
    `${what}: no 5xx`,
  );
}

async function uploadImage(app: TestApp, ds: string, name: string, seed: number): Promise<string> {
  const bytes = await makeImage({ color: { r: seed % 256, g: 60, b: (seed * 13) % 256 } });
  const up = await app.upload({ datasetId: ds, name }, { bytes, filename: name, type: 'image/jpeg' });
  assert.is(up.status, 200, JSON.stringify(up.body));
  return up.body.mediaId;
}

t('a folder made with reuse by many requests at once is one folder', async ({ app, ds }) => {
  const replies = await times(N, () =>
    app.request('POST', '/api/folder', { body: { datasetId: ds, name: 'Same', reuse: true } }),
  );
  noServerError(replies, 'reuse');
  assert.equal(statuses(replies), Array(N).fill(200));
  assert.is(new Set(replies.map((r) => r.body.folder.id)).size, 1, 'every answer names the same folder');
  const listed = await app.request('GET', `/api/dataset/${ds}/folders`);
  const same = (listed.body.folders ?? []).filter((f: { name: string }) => f.name === 'Same');
  assert.is(same.length, 1, JSON.stringify(listed.body));
});

t('tags added to one item at once are all kept', async ({ app, ds }) => {
  const id = await uploadImage(app, ds, 'tags.jpg', 1);
  const replies = await times(N, (i) =>
    app.request('POST', `/api/media/${id}/tags`, { body: { label: 'race', value: `v${i}` } }),
  );
  noServerError(replies, 'tags');
  assert.equal(statuses(replies), Array(N).fill(200));
  const media = (await app.request('GET', `/api/media/${id}`)).body.media;
  const values = [...(media.metadata.tags.race as string[])].sort();
  assert.equal(values, Array.from({ length: N }, (_, i) => `v${i}`).sort(), 'no tag lost');
});

t('the same file uploaded at once by many requests: every one answered, one stored file', async ({ app, ds }) => {
  const bytes = await makeImage({ color: { r: 7, g: 77, b: 177 } });
  const replies = await times(N, (i) =>
    app.upload({ datasetId: ds, name: `same-${i}.jpg` }, { bytes, filename: `same-${i}.jpg`, type: 'image/jpeg' }),
  );
  noServerError(replies, 'uploads');
  assert.equal(statuses(replies), Array(N).fill(200));
  const keys = await Promise.all(
    replies.map(async (r) => (await app.app.services.storage.media.get(r.body.mediaId))!.blobKey),
  );
  assert.is(new Set(keys).size, 1, 'one content-addressed file');
});

t('items added to an album by many requests at once are there once each', async ({ app, ds }) => {
  const a = await uploadImage(app, ds, 'album-a.jpg', 2);
  const b = await uploadImage(app, ds, 'album-b.jpg', 3);
  const album = await app.request('POST', `/api/dataset/${ds}/albums`, { body: { name: 'Race' } });
  assert.is(album.status, 200, JSON.stringify(album.body));
  const albumId = album.body.id;
  const replies = await times(N, (i) =>
    app.request('POST', `/api/albums/${albumId}/items`, { body: { mediaIds: i % 2 ? [a, b] : [b, a] } }),
  );
  noServerError(replies, 'album items');
  assert.equal(statuses(replies), Array(N).fill(200));
  const got = await app.request('GET', `/api/albums/${albumId}/media`);
  const ids = (got.body.media as Array<{ id: string }>).map((m) => m.id);
  assert.equal([...ids].sort(), [a, b].sort(), 'each item once');
});

t('one invite accepted by many requests at once makes one member', async ({ app }) => {
  const made = await app.request('POST', '/api/invites', { body: { email: 'race@example.com', role: 'member' } });
  assert.is(made.status, 200, JSON.stringify(made.body));
  const replies = await times(6, () =>
    app.request('POST', '/api/auth/accept-invite', {
      key: null,
      body: { token: made.body.token, password: 'race password', name: 'Race' },
    }),
  );
  noServerError(replies, 'accept');
  assert.is(replies.filter((r) => r.status === 200).length, 1, JSON.stringify(statuses(replies)));
  const members = (await app.request('GET', '/api/members')).body.members as Array<{ email: string }>;
  assert.is(members.filter((m) => m.email === 'race@example.com').length, 1);
});

t('two folders moved into each other at once: one move wins, no cycle', async ({ app, ds }) => {
  const folder = async (name: string) =>
    (await app.request('POST', '/api/folder', { body: { datasetId: ds, name } })).body.folder as {
      id: string;
      path: string;
    };
  const a = await folder('Ping');
  const b = await folder('Pong');
  const [ab, ba] = await Promise.all([
    app.request('PATCH', `/api/media/${a.id}/move`, { body: { destinationPath: b.path } }),
    app.request('PATCH', `/api/media/${b.id}/move`, { body: { destinationPath: a.path } }),
  ]);
  noServerError([ab, ba], 'moves');
  // One wins; the other, checked inside its transaction after the first committed, is refused as a move into
  // its own subfolder. Without that check both answered 200 on PostgreSQL and each folder's path named the
  // other's old place: both folders, and all beneath them, were gone from every listing.
  assert.equal([ab.status, ba.status].sort(), [200, 400], JSON.stringify([ab.body, ba.body]));
  const [winner, loser] = ab.status === 200 ? [a, b] : [b, a];
  const now = async (id: string) => (await app.app.services.storage.media.get(id))!;
  const [w, l] = [await now(winner.id), await now(loser.id)];
  assert.is(l.path, loser.path, 'the folder moved into stays where it was');
  assert.is(w.path, `${loser.path}.${winner.id}`, 'the moved folder is inside it');
  const listed = await app.request('GET', `/api/dataset/${ds}/folders?path=${encodeURIComponent(loser.path)}`);
  assert.ok(
    (listed.body.folders as Array<{ id: string }>).some((f) => f.id === winner.id),
    'and listed there',
  );
});

t('uploads into a folder that moves meanwhile land in it, at its new place', async ({ app, ds }) => {
  const make = async (name: string) =>
    (await app.request('POST', '/api/folder', { body: { datasetId: ds, name } })).body.folder as {
      id: string;
      path: string;
    };
  const [inbox, archive] = [await make('Inbox'), await make('Archive')];
  const images = await times(6, (i) => makeImage({ color: { r: 30 + i, g: 200, b: 90 }, width: 400, height: 300 }));
  // Each upload reads the folder once, to resolve its path, before it stores its files and writes its row; the move
  // commits once all six have (a fixed delay let an upload under load begin after the move: a 404, rightly).
  const media = app.app.services.storage.media;
  const get = media.get;
  let resolving = images.length;
  let allResolved!: () => void;
  const resolved = new Promise<void>((r) => (allResolved = r));
  media.get = async (id) => {
    const got = await get.call(media, id);
    if (id === inbox.id && --resolving === 0) allResolved();
    return got;
  };
  let replies: Reply[];
  try {
    const uploads = images.map((bytes, i) =>
      app.upload({ datasetId: ds, path: inbox.path }, { bytes, filename: `moving-${i}.jpg`, type: 'image/jpeg' }),
    );
    await resolved;
    const destination = { body: { destinationPath: archive.path } };
    const moved = await app.request('PATCH', `/api/media/${inbox.id}/move`, destination);
    assert.is(moved.status, 200, JSON.stringify(moved.body));
    replies = await Promise.all(uploads);
  } finally {
    media.get = get;
  }
  noServerError(replies, 'uploads');
  const now = (await app.app.services.storage.media.get(inbox.id))!.path;
  assert.is(now, `${archive.path}.${inbox.id}`);
  for (const r of replies) {
    assert.is(r.status, 200, JSON.stringify(r.body));
    const item = (await app.app.services.storage.media.get(r.body.mediaId))!;
    assert.is(item.parentPath, now, `${item.name} is in the folder, not under its old path`);
  }
});

t(
  'uploads into a folder deleted meanwhile are refused or go to the trash with it, never left outside',
  async ({ app, ds }) => {
    const folder = (await app.request('POST', '/api/folder', { body: { datasetId: ds, name: 'Doomed' } })).body
      .folder as { id: string; path: string };
    const images = await times(6, (i) => makeImage({ color: { r: 90, g: 30 + i, b: 200 }, width: 400, height: 300 }));
    const uploads = images.map((bytes, i) =>
      app.upload({ datasetId: ds, path: folder.path }, { bytes, filename: `doomed-${i}.jpg`, type: 'image/jpeg' }),
    );
    await new Promise((r) => setTimeout(r, 20));
    assert.is((await app.request('DELETE', `/api/media/${folder.id}`)).status, 200);
    const replies = await Promise.all(uploads);
    noServerError(replies, 'uploads');
    for (const r of replies) {
      if (r.status !== 200) {
        assert.is(r.status, 404, JSON.stringify(r.body));
        continue;
      }
      const item = (await app.app.services.storage.media.get(r.body.mediaId))!;
      assert.is.not(item.status, 'active', `${item.name} went to the trash with its folder`);
    }
  },
);

t.run();
