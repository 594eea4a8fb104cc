/**
 * The contract every Storage implementation must meet. It talks to the store
 * only through the Storage interface (never SQL), so the SQLite store runs it
 * today (test/storage/sqlite.test.ts) and a PostgreSQL store can run it
 * unchanged: `storageSuite('postgres', open, close)`.
 *
 * Each test gets a fresh store from `open()` with one user, one organization
 * (owned by that user) and one collection already in it.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newMediaId, newUuid, nowIso, pathLabel } from '../../src/platform/ids.js';
import type { Storage } from '../../src/storage/storage.js';
import type {
  ApiKeyRecord,
  BrowseQuery,
  Collection,
  InviteRecord,
  MediaRecord,
  MediaType,
  Metadata,
  NewFrame,
  NewMedia,
  BlobReference,
  NewObject,
  Organization,
  SessionRecord,
  SortField,
  User,
} from '../../src/storage/types.js';
import { browseSuite } from './browseSuite.js';
import { shareSuite } from './shareSuite.js';
import { trashSuite } from './trashSuite.js';
import { placesSuite } from './placesSuite.js';
import { timelineSuite } from './timelineSuite.js';
import { NO_FILTERS } from '../../src/storage/browseQuery.js';

interface Fixture {
  user: User;
  org: Organization;
  coll: Collection;
  /** The collection's root path label. */
  root: string;
}

interface ItemOptions {
  id?: string;
  name?: string;
  type?: Exclude<MediaType, 'folder'>;
  sizeBytes?: number;
  metadata?: Metadata;
  rootId?: string;
  /** Frame timestamps; one frame at "0" unless given. */
  frames?: string[];
  collectionId?: string;
  organizationId?: string;
  blobKey?: string;
  takenAt?: string | null;
}

const SORT_FIELDS: SortField[] = ['name', 'createdAt', 'type', 'description', 'prompt', 'takenAt'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Waits until the clock has moved past the current millisecond, so the next write gets a later createdAt. */
async function tick(): Promise<void> {
  const t = Date.now();
  while (Date.now() <= t + 1) await sleep(1);
}

/** Media ids whose order is their creation order (a counter prefix), for tests where path order must not hide a sort bug. */
let seq = 0;
const orderedId = (): string => (++seq).toString(16).padStart(8, '0') + newMediaId().slice(8);

const sorted = (ids: string[]) => [...ids].sort();

async function rejects(promise: Promise<unknown>, message: string): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  assert.unreachable(message);
}

export function storageSuite(
  name: string,
  open: () => Promise<Storage>,
  close: (s: Storage) => Promise<void> = (s) => s.close(),
): void {
  const test = suite(`storage: ${name}`);
  let s: Storage;
  let fx: Fixture;

  async function setup(store: Storage): Promise<Fixture> {
    const user = await store.accounts.createUser({
      id: newUuid(),
      email: `owner-${newUuid()}@example.com`,
      name: 'Owner',
      createdAt: nowIso(),
    });
    const orgId = newUuid();
    const org = await store.accounts.createOrganization(
      { id: orgId, name: 'Acme', slug: `acme-${orgId.slice(0, 8)}` },
      user.id,
    );
    const coll = await newCollection(store, org.id, user.id, 'Library');
    return { user, org, coll, root: pathLabel(coll.id) };
  }

  async function newCollection(
    store: Storage,
    organizationId: string,
    userId: string,
    collName: string,
    createdAt = nowIso(),
  ) {
    return store.collections.create({
      id: newUuid(),
      organizationId,
      name: collName,
      icon: null,
      type: 'media',
      createdAt,
      updatedAt: createdAt,
      createdById: userId,
    });
  }

  test.before.each(async () => {
    s = await open();
    fx = await setup(s);
  });
  test.after.each(async () => {
    await close(s);
  });

  // ---------------------------------------------------------------- helpers

  function newItem(parentPath: string, o: ItemOptions = {}): NewMedia {
    const type = o.type ?? 'image';
    const id = o.id ?? newMediaId();
    return {
      id,
      collectionId: o.collectionId ?? fx.coll.id,
      organizationId: o.organizationId ?? fx.org.id,
      parentPath,
      type,
      name: o.name ?? `${type}-${id.slice(0, 6)}.${type === 'image' ? 'jpg' : 'mp4'}`,
      blobKey: o.blobKey ?? `blob-${id}`,
      mimeType: type === 'image' ? 'image/jpeg' : 'video/mp4',
      width: 640,
      height: 480,
      duration: type === 'video' ? 12.5 : null,
      sizeBytes: o.sizeBytes ?? 1000,
      exif: { Make: 'TestCam' },
      metadata: o.metadata ?? {},
      processingStatus: 'ready',
      createdById: fx.user.id,
      ...(o.rootId ? { rootId: o.rootId } : {}),
      ...(o.takenAt !== undefined ? { takenAt: o.takenAt } : {}),
    };
  }

  const framesFor = (m: NewMedia, timestamps: string[]): NewFrame[] =>
    timestamps.map((t, i) => ({
      id: newMediaId(),
      timestamp: t,
      blobKey: `frame-${m.id}-${i}`,
      width: 64,
      height: 48,
      metadata: { i },
    }));

  async function addItem(parentPath: string, o: ItemOptions = {}): Promise<MediaRecord> {
    const m = newItem(parentPath, o);
    return s.media.insert(m, framesFor(m, o.frames ?? ['0']));
  }

  /** The blob key of the first frame addItem gives an item. */
  const frameKey = (m: { id: string }) => `frame-${m.id}-0`;

  async function addFolder(folderName: string, parentPath: string, reuse = false, id = newMediaId()) {
    return s.media.insertFolder(
      {
        id,
        collectionId: fx.coll.id,
        organizationId: fx.org.id,
        parentPath,
        type: 'folder',
        name: folderName,
        blobKey: null,
        mimeType: null,
        width: null,
        height: null,
        duration: null,
        sizeBytes: 0,
        exif: {},
        metadata: {},
        processingStatus: 'ready',
        createdById: fx.user.id,
      },
      reuse,
    );
  }
  const folder = async (folderName: string, parentPath: string, id?: string) =>
    (await addFolder(folderName, parentPath, false, id)).folder;

  const query = (over: Partial<BrowseQuery> = {}): BrowseQuery => ({
    collectionId: fx.coll.id,
    path: fx.root,
    recursive: false,
    ...NO_FILTERS,
    sortBy: 'createdAt',
    sortDirection: 'asc',
    limit: 1000,
    offset: 0,
    ...over,
  });
  /** Ids the browse returns, sorted (for set comparisons); also checks total agrees when nothing is paged off. */
  async function browseIds(over: Partial<BrowseQuery> = {}): Promise<string[]> {
    const { items, total } = await s.media.browse(query(over));
    assert.is(total, items.length, 'total equals the number of items when the limit is not reached');
    return sorted(items.map((m) => m.id));
  }
  const ids = (...ms: Array<{ id: string }>) => sorted(ms.map((m) => m.id));

  const storageBytes = async (orgId = fx.org.id) => (await s.accounts.getOrganization(orgId))!.storageBytes;
  const status = async (id: string) => (await s.media.get(id))!.status;

  // ---------------------------------------------------------------- accounts

  test('organizations, users, memberships and roles', async () => {
    assert.is(await s.accounts.countOrganizations(), 1);
    const org = await s.accounts.getOrganization(fx.org.id);
    assert.ok(org);
    assert.is(org.name, 'Acme');
    assert.is(org.slug, fx.org.slug);
    assert.is(org.storageBytes, 0);
    assert.type(org.createdAt, 'string');
    assert.equal(org, fx.org, 'createOrganization returns what getOrganization reads');
    assert.is(await s.accounts.getOrganization(newUuid()), null);

    assert.ok(await s.accounts.isSlugTaken(fx.org.slug));
    assert.not.ok(await s.accounts.isSlugTaken('no-such-slug'));

    assert.equal(await s.accounts.getUser(fx.user.id), fx.user);
    assert.is(await s.accounts.getUser(newUuid()), null);

    assert.is(await s.accounts.getMembershipRole(fx.org.id, fx.user.id), 'owner');
    const other = await s.accounts.createUser({
      id: newUuid(),
      email: 'other@example.com',
      name: 'Other',
      createdAt: nowIso(),
    });
    assert.is(await s.accounts.getMembershipRole(fx.org.id, other.id), null);

    await tick();
    const second = await s.accounts.createOrganization(
      { id: newUuid(), name: 'Second', slug: 'second-org' },
      fx.user.id,
    );
    const third = await s.accounts.createOrganization({ id: newUuid(), name: 'Third', slug: 'third-org' }, other.id);
    assert.is(await s.accounts.countOrganizations(), 3);
    assert.is(await s.accounts.getMembershipRole(second.id, fx.user.id), 'owner');
    assert.is(await s.accounts.getMembershipRole(third.id, fx.user.id), null);
    assert.is(await s.accounts.getMembershipRole(third.id, other.id), 'owner');

    const mine = await s.accounts.listOrganizationsForUser(fx.user.id);
    assert.equal(
      mine.map((o) => o.id),
      [fx.org.id, second.id],
      "oldest first, only the user's",
    );
    assert.ok(mine.every((o) => o.role === 'owner'));
    assert.is(mine[1].name, 'Second');
    assert.equal(
      (await s.accounts.listOrganizationsForUser(other.id)).map((o) => o.id),
      [third.id],
    );
    assert.equal(await s.accounts.listOrganizationsForUser(newUuid()), []);

    assert.is(fx.org.createdByKeyId, null, 'an organization made without a key records none');
    const keyId = newUuid();
    const fourth = await s.accounts.createOrganization(
      { id: newUuid(), name: 'Fourth', slug: 'fourth-org', createdByKeyId: keyId },
      fx.user.id,
    );
    assert.is(fourth.createdByKeyId, keyId, 'the creating key is recorded');
    assert.equal(await s.accounts.getOrganization(fourth.id), fourth);

    const dup = await s.accounts
      .createOrganization({ id: newUuid(), name: 'Again', slug: 'fourth-org' }, fx.user.id)
      .then(
        () => null,
        (err: { code?: string }) => err.code,
      );
    assert.is(dup, 'conflict', 'a slug another organization has is a conflict, and nothing is half made');
    assert.is(await s.accounts.countOrganizations(), 4);
  });

  test('API keys: create, find by hash, revoke (revoked ones are not found), list', async () => {
    const key = (n: number, createdAt: string): ApiKeyRecord => ({
      id: newUuid(),
      organizationId: fx.org.id,
      userId: fx.user.id,
      name: `key ${n}`,
      role: n === 1 ? 'admin' : 'viewer',
      keyHash: `hash-${n}-${newUuid()}`,
      prefix: `pre${n}`,
      createdAt,
      revokedAt: null,
      lastUsedAt: null, // read back as null until a request uses the key (touchApiKey)
    });
    const k1 = key(1, '2024-01-01T00:00:00.000Z');
    const k2 = key(2, '2024-01-02T00:00:00.000Z');
    await s.accounts.createApiKey(k2);
    await s.accounts.createApiKey(k1);

    assert.equal(await s.accounts.findApiKeyByHash(k1.keyHash), k1);
    assert.equal(await s.accounts.getApiKey(k2.id), k2);
    assert.is(await s.accounts.findApiKeyByHash('no-such-hash'), null);
    assert.is(await s.accounts.getApiKey(newUuid()), null);
    assert.equal(await s.accounts.listApiKeys(fx.org.id), [k1, k2], 'oldest first');

    const at = '2024-02-01T00:00:00.000Z';
    assert.ok(await s.accounts.revokeApiKey(k1.id, at));
    assert.not.ok(await s.accounts.revokeApiKey(k1.id, at), 'a revoked key cannot be revoked again');
    assert.not.ok(await s.accounts.revokeApiKey(newUuid(), at));
    assert.is(await s.accounts.findApiKeyByHash(k1.keyHash), null, 'revoked keys do not authenticate');
    assert.equal(await s.accounts.getApiKey(k1.id), { ...k1, revokedAt: at }, 'getApiKey still reads a revoked key');
    assert.equal(await s.accounts.findApiKeyByHash(k2.keyHash), k2);
    // The listing shows the keys in force (the domain lists it as "your keys" without a revoked flag).
    assert.equal(await s.accounts.listApiKeys(fx.org.id), [k2]);
    assert.equal(await s.accounts.listApiKeys(newUuid()), []);
  });

  test('settings: setSettingIfAbsent keeps the first value', async () => {
    assert.is(await s.accounts.getSetting('instance.secret'), null);
    assert.is(await s.accounts.setSettingIfAbsent('instance.secret', 'first'), 'first');
    assert.is(await s.accounts.setSettingIfAbsent('instance.secret', 'second'), 'first');
    assert.is(await s.accounts.getSetting('instance.secret'), 'first');
    assert.is(await s.accounts.setSettingIfAbsent('other', ''), '', 'an empty string is a value');
    assert.is(await s.accounts.getSetting('other'), '');
  });

  test('settings: setSetting replaces, takeSetting deletes only the value it names, once', async () => {
    await s.accounts.setSetting('token', 'a');
    await s.accounts.setSetting('token', 'b');
    assert.is(await s.accounts.getSetting('token'), 'b');
    assert.not.ok(await s.accounts.takeSetting('token', 'a'), 'another value is not taken');
    assert.is(await s.accounts.getSetting('token'), 'b');
    assert.ok(await s.accounts.takeSetting('token', 'b'));
    assert.not.ok(await s.accounts.takeSetting('token', 'b'), 'taken once');
    assert.is(await s.accounts.getSetting('token'), null);
    await s.accounts.setSetting('gone', 'x');
    await s.accounts.deleteSetting('gone');
    await s.accounts.deleteSetting('never-there');
    assert.is(await s.accounts.getSetting('gone'), null);
  });

  test('credentials: find by email in any case, password hash, update a user', async () => {
    assert.is(await s.accounts.getPasswordHash(fx.user.id), null, 'no password at first');
    assert.equal(await s.accounts.findCredentials(fx.user.email.toUpperCase()), { user: fx.user, passwordHash: null });
    assert.is(await s.accounts.findCredentials('nobody@example.com'), null);
    const updated = await s.accounts.updateUser(fx.user.id, { passwordHash: '$scrypt$x' });
    assert.equal(updated, fx.user, 'a password change leaves the visible fields');
    assert.is(await s.accounts.getPasswordHash(fx.user.id), '$scrypt$x');
    const renamed = await s.accounts.updateUser(fx.user.id, { email: 'new@example.com', name: 'New' });
    assert.equal(renamed, { ...fx.user, email: 'new@example.com', name: 'New' });
    assert.equal(await s.accounts.findCredentials('NEW@example.com'), { user: renamed!, passwordHash: '$scrypt$x' });
    assert.is(await s.accounts.updateUser(newUuid(), { name: 'x' }), null);
    const other = await s.accounts.createUser({
      id: newUuid(),
      email: 'o@example.com',
      name: 'O',
      createdAt: nowIso(),
    });
    await rejects(s.accounts.updateUser(other.id, { email: 'new@example.com' }), 'an email another user has');
  });

  test('sessions: create, find only live ones (revoked, expired, idle), touch, switch, revoke', async () => {
    const now = '2030-01-10T00:00:00.000Z';
    const idleSince = '2030-01-01T00:00:00.000Z';
    const session = (n: number, o: Partial<SessionRecord> = {}): SessionRecord => ({
      id: newUuid(),
      userId: fx.user.id,
      organizationId: fx.org.id,
      secretHash: `secret-${n}-${newUuid()}`,
      csrfToken: `csrf-${n}`,
      createdAt: `2030-01-0${n}T00:00:00.000Z`,
      lastSeenAt: `2030-01-0${n}T00:00:00.000Z`,
      expiresAt: '2030-02-01T00:00:00.000Z',
      revokedAt: null,
      userAgent: n === 2 ? null : 'agent',
      ip: n === 2 ? null : '203.0.113.9',
      ...o,
    });
    const a = session(2);
    const b = session(3);
    const expired = session(4, { expiresAt: '2030-01-09T00:00:00.000Z' });
    const revoked = session(5, { revokedAt: '2030-01-06T00:00:00.000Z' });
    const idle = session(1);
    for (const x of [a, b, expired, revoked, idle]) await s.sessions.create(x);
    assert.equal(await s.sessions.findLive(a.secretHash, now, idleSince), a);
    assert.equal(await s.sessions.get(revoked.id), revoked, 'get reads any state');
    assert.is(await s.sessions.get(newUuid()), null);
    for (const x of [expired, revoked, idle])
      assert.is(await s.sessions.findLive(x.secretHash, now, idleSince), null, x.createdAt);
    assert.is(await s.sessions.findLive('nope', now, idleSince), null);
    assert.equal(await s.sessions.listLive(fx.user.id, now, idleSince), [b, a], 'newest first');
    assert.equal(await s.sessions.listLive(newUuid(), now, idleSince), []);

    await s.sessions.touch(a.id, '2030-01-09T12:00:00.000Z');
    await s.sessions.touch(a.id, '2030-01-09T11:00:00.000Z');
    const touched = await s.sessions.findLive(a.secretHash, now, idleSince);
    assert.is(touched!.lastSeenAt, '2030-01-09T12:00:00.000Z', 'never moves back');

    const second = await s.accounts.createOrganization({ id: newUuid(), name: 'Two', slug: 'two-org' }, fx.user.id);
    await s.sessions.setOrganization(a.id, second.id);
    assert.is((await s.sessions.findLive(a.secretHash, now, idleSince))!.organizationId, second.id);

    assert.not.ok(await s.sessions.revoke(a.id, newUuid(), now), "not another user's");
    assert.ok(await s.sessions.revoke(a.id, fx.user.id, now));
    assert.not.ok(await s.sessions.revoke(a.id, fx.user.id, now), 'once');
    assert.is(await s.sessions.findLive(a.secretHash, now, idleSince), null);
    const c = session(6);
    await s.sessions.create(c);
    assert.is(await s.sessions.revokeAllForUser(fx.user.id, now, c.id), 3, 'b, expired and idle; not c');
    assert.equal(
      (await s.sessions.listLive(fx.user.id, now, idleSince)).map((x) => x.id),
      [c.id],
    );
    assert.is(await s.sessions.revokeAllForUser(fx.user.id, now, null), 1);
  });

  test('sign-in failures: recorded per email, read since a time, pruned, cleared', async () => {
    await s.sessions.recordFailure('a@x', '2030-01-01T00:00:00.000Z', '2029-12-31T00:00:00.000Z');
    await s.sessions.recordFailure('a@x', '2030-01-01T00:10:00.000Z', '2029-12-31T00:00:00.000Z');
    await s.sessions.recordFailure('b@x', '2030-01-01T00:11:00.000Z', '2029-12-31T00:00:00.000Z');
    assert.equal(await s.sessions.failuresSince('a@x', '2030-01-01T00:00:00.000Z'), [
      '2030-01-01T00:00:00.000Z',
      '2030-01-01T00:10:00.000Z',
    ]);
    assert.equal(await s.sessions.failuresSince('a@x', '2030-01-01T00:05:00.000Z'), ['2030-01-01T00:10:00.000Z']);
    // A new failure prunes every email's failures older than the window.
    await s.sessions.recordFailure('b@x', '2030-01-01T00:20:00.000Z', '2030-01-01T00:05:00.000Z');
    assert.equal(await s.sessions.failuresSince('a@x', '2000-01-01T00:00:00.000Z'), ['2030-01-01T00:10:00.000Z']);
    await s.sessions.clearFailures('b@x');
    assert.equal(await s.sessions.failuresSince('b@x', '2000-01-01T00:00:00.000Z'), []);
    assert.is((await s.sessions.failuresSince('a@x', '2000-01-01T00:00:00.000Z')).length, 1, 'only that email');
  });

  test('invites: create, find, list pending, revoke, accept once (new user, or a membership for one)', async () => {
    const now = '2030-01-10T00:00:00.000Z';
    const invite = (n: number, o: Partial<InviteRecord> = {}): InviteRecord => ({
      id: newUuid(),
      organizationId: fx.org.id,
      email: `guest${n}@example.com`,
      role: 'member',
      tokenHash: `token-${n}-${newUuid()}`,
      invitedBy: fx.user.id,
      createdAt: `2030-01-0${n}T00:00:00.000Z`,
      expiresAt: '2030-01-20T00:00:00.000Z',
      acceptedAt: null,
      acceptedBy: null,
      revokedAt: null,
      ...o,
    });
    const a = invite(1);
    const b = invite(2, { role: 'viewer' });
    const expired = invite(3, { expiresAt: '2030-01-09T00:00:00.000Z' });
    for (const x of [b, a, expired]) await s.invites.create(x);
    assert.equal(await s.invites.get(a.id), a);
    assert.equal(await s.invites.findByTokenHash(expired.tokenHash), expired, 'any state');
    assert.is(await s.invites.findByTokenHash('nope'), null);
    assert.equal(await s.invites.listPending(fx.org.id, now), [a, b], 'oldest first, no expired');
    assert.not.ok(await s.invites.revoke(expired.id, now), 'an expired invite is not pending');

    const user = { id: newUuid(), email: a.email, name: 'Guest', createdAt: now };
    assert.ok(await s.invites.accept(a.id, now, { userId: user.id, newUser: { user, passwordHash: '$h' } }));
    assert.equal(await s.accounts.getUser(user.id), user);
    assert.is(await s.accounts.getPasswordHash(user.id), '$h');
    assert.is(await s.accounts.getMembershipRole(fx.org.id, user.id), 'member');
    assert.equal(await s.invites.get(a.id), { ...a, acceptedAt: now, acceptedBy: user.id });
    const again = { ...user, id: newUuid() };
    assert.not.ok(
      await s.invites.accept(a.id, now, { userId: again.id, newUser: { user: again, passwordHash: '$h' } }),
    );
    assert.is(await s.accounts.getUser(again.id), null, 'a refused accept creates nobody');
    assert.not.ok(await s.invites.accept(expired.id, now, { userId: user.id }), 'expired');

    // An existing user gets a membership in another organization; an existing membership keeps its role.
    const other = await s.accounts.createOrganization({ id: newUuid(), name: 'Other', slug: 'other-org' }, fx.user.id);
    const c = invite(4, { organizationId: other.id, email: user.email, role: 'admin' });
    await s.invites.create(c);
    assert.ok(await s.invites.accept(c.id, now, { userId: user.id }));
    assert.is(await s.accounts.getMembershipRole(other.id, user.id), 'admin');
    const d = invite(5, { email: user.email, role: 'owner' });
    await s.invites.create(d);
    assert.ok(await s.invites.accept(d.id, now, { userId: user.id }));
    assert.is(await s.accounts.getMembershipRole(fx.org.id, user.id), 'member', 'kept');

    const e1 = invite(6, { email: 'x@example.com' });
    const e2 = invite(7, { email: 'x@example.com' });
    await s.invites.create(e1);
    await s.invites.create(e2);
    assert.is(await s.invites.revokePendingFor(fx.org.id, 'x@example.com', now), 2);
    assert.equal(await s.invites.listPending(fx.org.id, now), [b]);
    assert.ok(await s.invites.revoke(b.id, now));
    assert.not.ok(await s.invites.revoke(b.id, now), 'once');
    assert.equal(await s.invites.listPending(fx.org.id, now), []);
    assert.not.ok(await s.invites.accept(b.id, now, { userId: user.id }), 'a revoked invite');
  });

  // ---------------------------------------------------------------- collections

  test('collections: create, get, list, update', async () => {
    assert.equal(await s.collections.get(fx.coll.id), fx.coll);
    assert.is(fx.coll.name, 'Library');
    assert.is(fx.coll.icon, null);
    assert.is(fx.coll.type, 'media');
    const later = new Date(Date.parse(fx.coll.createdAt) + 60_000).toISOString();
    const b = await s.collections.create({
      id: newUuid(),
      organizationId: fx.org.id,
      name: 'B',
      icon: 'star',
      type: 'media',
      createdAt: later,
      updatedAt: later,
      createdById: fx.user.id,
    });
    assert.is(b.icon, 'star');
    assert.equal(
      (await s.collections.list(fx.org.id)).map((c) => c.id),
      [fx.coll.id, b.id],
      'oldest first',
    );
    assert.equal(await s.collections.list(newUuid()), []);
    assert.is(await s.collections.get(newUuid()), null);

    const at1 = '2030-01-01T00:00:00.000Z';
    const renamed = await s.collections.update(b.id, { name: 'Renamed' }, at1);
    assert.ok(renamed);
    assert.is(renamed.name, 'Renamed');
    assert.is(renamed.icon, 'star', 'an absent icon is kept');
    assert.is(renamed.updatedAt, at1);
    assert.is(renamed.createdAt, later);
    const cleared = await s.collections.update(b.id, { icon: null }, '2030-01-02T00:00:00.000Z');
    assert.is(cleared!.icon, null, 'icon: null clears it');
    assert.is(cleared!.name, 'Renamed', 'an absent name is kept');
    assert.equal(await s.collections.get(b.id), cleared);
    assert.is(await s.collections.update(newUuid(), { name: 'x' }, at1), null);
  });

  // ---------------------------------------------------------------- media basics

  test('insert with frames, then get and frames()', async () => {
    const nm = newItem(fx.root, {
      name: 'cat.jpg',
      sizeBytes: 1234,
      metadata: { description: 'a cat', tags: { animal: ['cat'] } },
    });
    const img = await s.media.insert(nm, [
      { id: newMediaId(), timestamp: '0', blobKey: 'frame-cat', width: 64, height: 48 },
    ]);
    assert.is(img.id, nm.id);
    assert.is(img.path, `${fx.root}.${nm.id}`);
    assert.is(img.parentPath, fx.root);
    assert.is(img.collectionId, fx.coll.id);
    assert.is(img.organizationId, fx.org.id);
    assert.is(img.type, 'image');
    assert.is(img.name, 'cat.jpg');
    assert.is(img.blobKey, nm.blobKey);
    assert.is(img.mimeType, 'image/jpeg');
    assert.is(img.width, 640);
    assert.is(img.height, 480);
    assert.is(img.duration, null);
    assert.is(img.sizeBytes, 1234);
    assert.equal(img.exif, { Make: 'TestCam' });
    assert.equal(img.metadata, { description: 'a cat', tags: { animal: ['cat'] } });
    assert.is(img.status, 'active');
    assert.is(img.processingStatus, 'ready');
    assert.is(img.processingError, null);
    assert.is(img.rootId, img.id, 'an original is its own root');
    assert.is(img.isCurrent, true);
    assert.type(img.createdAt, 'string');
    assert.ok(!Number.isNaN(Date.parse(img.createdAt)));
    assert.is(img.createdById, fx.user.id);
    assert.equal(await s.media.get(img.id), img, 'insert returns what get reads');
    assert.is(await s.media.get(newMediaId()), null);

    const vid = await addItem(fx.root, { type: 'video', frames: ['3', '0', '1.5'] });
    assert.is(vid.type, 'video');
    assert.is(vid.duration, 12.5);

    const frames = await s.media.frames([img.id, vid.id, newMediaId()]);
    const catFrames = frames.get(img.id)!;
    assert.is(catFrames.length, 1);
    const f = catFrames[0];
    assert.is(f.mediaId, img.id);
    assert.is(f.timestamp, '0');
    assert.is(f.blobKey, 'frame-cat');
    assert.is(f.width, 64);
    assert.is(f.height, 48);
    assert.is(f.status, 'active');
    assert.equal(f.metadata, {});
    assert.equal(f.captions, []);
    assert.equal(f.objects, []);
    const vidFrames = frames.get(vid.id)!;
    assert.equal(
      vidFrames.map((x) => x.timestamp),
      ['0', '1.5', '3'],
      'frames in time order',
    );
    assert.equal(
      vidFrames.map((x) => x.metadata),
      [{ i: 1 }, { i: 2 }, { i: 0 }],
    );
    assert.ok(vidFrames.every((x) => x.captions.length === 0 && x.objects.length === 0 && x.mediaId === vid.id));
    assert.equal(frames.get(newMediaId()) ?? [], []);
    assert.is((await s.media.frames([])).size, 0);
    // Frames one by one: a named frame, an item's first frame in time, nothing for another item's frame.
    const picked = await s.media.pickFrames([
      { mediaId: vid.id, frameId: vidFrames[2].id },
      { mediaId: vid.id, frameId: null },
      { mediaId: img.id, frameId: vidFrames[0].id },
      { mediaId: img.id, frameId: null },
    ]);
    assert.equal(picked, [vidFrames[2], vidFrames[0], null, catFrames[0]]);
  });

  test('insertFolder: reuse returns the existing folder of the same name under the same parent', async () => {
    const a = await addFolder('Trips', fx.root, true);
    assert.ok(a.created);
    assert.is(a.folder.type, 'folder');
    assert.is(a.folder.name, 'Trips');
    assert.is(a.folder.path, `${fx.root}.${a.folder.id}`);
    assert.is(a.folder.parentPath, fx.root);
    assert.is(a.folder.blobKey, null);
    assert.is(a.folder.status, 'active');
    assert.is(a.folder.isCurrent, true);

    const again = await addFolder('Trips', fx.root, true);
    assert.not.ok(again.created);
    assert.is(again.folder.id, a.folder.id);
    assert.equal(again.folder, a.folder);

    const nested = await addFolder('Trips', a.folder.path, true);
    assert.ok(nested.created, 'same name under another parent is a new folder');
    assert.is.not(nested.folder.id, a.folder.id);
    assert.is(nested.folder.path, `${a.folder.path}.${nested.folder.id}`);
    assert.is(nested.folder.parentPath, a.folder.path);

    const other = await addFolder('Other', fx.root, true);
    assert.ok(other.created, 'another name under the same parent is a new folder');

    const dup = await addFolder('Trips', fx.root, false);
    assert.ok(dup.created, 'without reuse a folder of the same name is created');
    assert.is.not(dup.folder.id, a.folder.id);

    await s.media.softDelete(a.folder.id, fx.user.id);
    await s.media.softDelete(dup.folder.id, fx.user.id);
    const fresh = await addFolder('Trips', fx.root, true);
    assert.ok(fresh.created, 'a deleted folder is not reused');
  });

  // ---------------------------------------------------------------- browse

  test('browse: one level vs recursive, types, mediaId, other collections', async () => {
    const F = await folder('F', fx.root);
    const i1 = await addItem(fx.root);
    const v1 = await addItem(fx.root, { type: 'video' });
    const i2 = await addItem(F.path);
    const G = await folder('G', F.path);
    const v2 = await addItem(G.path, { type: 'video' });
    const coll2 = await newCollection(s, fx.org.id, fx.user.id, 'Elsewhere');
    const foreign = await addItem(pathLabel(coll2.id), { collectionId: coll2.id });

    assert.equal(await browseIds(), ids(F, i1, v1));
    assert.equal(await browseIds({ recursive: true }), ids(F, i1, v1, i2, G, v2));
    assert.equal(await browseIds({ path: F.path }), ids(i2, G));
    assert.equal(await browseIds({ path: F.path, recursive: true }), ids(i2, G, v2));
    assert.equal(await browseIds({ path: G.path }), ids(v2));
    assert.equal(await browseIds({ path: G.path, recursive: true }), ids(v2));

    assert.equal(await browseIds({ recursive: true, types: ['image'] }), ids(i1, i2));
    assert.equal(await browseIds({ recursive: true, types: ['video'] }), ids(v1, v2));
    assert.equal(await browseIds({ recursive: true, types: ['image', 'video'] }), ids(i1, v1, i2, v2));
    assert.equal(await browseIds({ recursive: true, types: ['folder'] }), ids(F, G));
    assert.equal(await browseIds({ path: F.path, types: ['folder'] }), ids(G));

    assert.equal(await browseIds({ recursive: true, mediaId: i2.id }), ids(i2));
    assert.equal(await browseIds({ mediaId: i2.id }), [], 'mediaId does not widen a one-level listing');
    assert.equal(await browseIds({ recursive: true, mediaId: foreign.id }), [], "never another collection's item");
    assert.equal(
      await browseIds({ recursive: true, clusterId: newUuid() }),
      [],
      'no item belongs to an unknown cluster',
    );

    assert.equal(await browseIds({ collectionId: coll2.id, path: pathLabel(coll2.id), recursive: true }), ids(foreign));

    const { items } = await s.media.browse(query({ path: F.path }));
    const got = items.find((m) => m.id === i2.id)!;
    assert.equal(got, await s.media.get(i2.id), 'browse returns full records');
  });

  test('browse: createdFrom is inclusive, createdBefore exclusive', async () => {
    const a = await addItem(fx.root);
    await tick();
    const b = await addItem(fx.root);
    await tick();
    const c = await addItem(fx.root);
    assert.ok(a.createdAt < b.createdAt && b.createdAt < c.createdAt, 'createdAt increases');

    assert.equal(await browseIds({ createdFrom: b.createdAt }), ids(b, c));
    assert.equal(await browseIds({ createdBefore: b.createdAt }), ids(a));
    assert.equal(await browseIds({ createdFrom: b.createdAt, createdBefore: c.createdAt }), ids(b));
    assert.equal(await browseIds({ createdFrom: a.createdAt, createdBefore: a.createdAt }), []);
    assert.equal(
      await browseIds({ createdFrom: '2000-01-01T00:00:00.000Z', createdBefore: '2999-01-01T00:00:00.000Z' }),
      ids(a, b, c),
    );
    assert.equal(await browseIds({ createdFrom: '2999-01-01T00:00:00.000Z' }), []);
  });

  test('browse: takenAt sorts by the capture time, or createdAt without one; dateField takenAt bounds that', async () => {
    const T = await folder('T', fx.root);
    const a = await addItem(T.path, { takenAt: '2010-05-01T10:00:00.000Z' });
    const b = await addItem(T.path); // no capture time: sorts and filters at its createdAt (now)
    const c = await addItem(T.path, { takenAt: '2001-01-01T00:00:00.000Z', type: 'video' });
    const d = await addItem(T.path, { takenAt: '2010-05-01T10:00:00.000Z' });
    assert.is((await s.media.get(a.id))!.takenAt, '2010-05-01T10:00:00.000Z', 'read back');
    assert.is(b.takenAt, null, 'unknown is null');
    const order = async (over: Partial<BrowseQuery>) =>
      (await s.media.browse(query({ path: T.path, sortBy: 'takenAt', ...over }))).items.map((m) => m.id);
    const [first, second] = a.id < d.id ? [a, d] : [d, a];
    assert.equal(await order({}), [c.id, first.id, second.id, b.id], 'ascending, ties by id');
    assert.equal(await order({ sortDirection: 'desc' }), [b.id, second.id, first.id, c.id], 'descending');
    const from = '2005-01-01T00:00:00.000Z';
    assert.equal(await order({ dateField: 'takenAt', createdFrom: from }), [first.id, second.id, b.id]);
    assert.equal(await order({ dateField: 'takenAt', createdBefore: from }), [c.id]);
    assert.equal(await order({ createdBefore: from }), [], 'without dateField the bounds are on createdAt');
    assert.equal(
      await order({
        dateField: 'takenAt',
        createdFrom: '2010-05-01T10:00:00.000Z',
        createdBefore: from.replace('2005', '2011'),
      }),
      [first.id, second.id],
      'inclusive lower bound, exclusive upper',
    );
    // A new version carries its own capture time; switching back restores the original's.
    const v = await addItem(T.path, { rootId: a.rootId, takenAt: '1999-12-31T23:00:00.000Z' });
    assert.equal(await order({}), [v.id, c.id, d.id, b.id], 'the version sorts at its own time');
    await s.media.selectVersion(a.id, fx.user.id);
    assert.equal(await order({}), [c.id, first.id, second.id, b.id], 'the original again');
    // A folder move keeps the sort value in the scopes it joins.
    const U = await folder('U', fx.root);
    await s.media.move(T.id, U.path, fx.user.id);
    const moved = (await s.media.get(T.id))!.path;
    assert.equal(await order({ path: U.path, recursive: true, types: ['image', 'video'] }), [
      c.id,
      first.id,
      second.id,
      b.id,
    ]);
    assert.equal(await order({ path: moved }), [c.id, first.id, second.id, b.id]);
  });

  test('browse: tagFilters (AND between groups, OR within) and legacy tagValues', async () => {
    const a = await addItem(fx.root, { metadata: { tags: { color: ['red'], size: ['big'] } } });
    const b = await addItem(fx.root, { metadata: { tags: { color: ['blue'], size: ['big'] } } });
    const c = await addItem(fx.root, { metadata: { tags: { color: ['red'], size: ['small'] } } });
    const d = await addItem(fx.root, { metadata: {} });
    const e = await addItem(fx.root, { metadata: { tags: { color: ['green'], mood: ['red'] } } });
    const F = await folder('F', fx.root);
    const nested = await addItem(F.path, { metadata: { tags: { color: ['red'] } } });
    void d;

    assert.equal(await browseIds({ tagFilters: { color: ['red'] } }), ids(a, c));
    assert.equal(await browseIds({ tagFilters: { color: ['red'] }, recursive: true }), ids(a, c, nested));
    assert.equal(await browseIds({ tagFilters: { color: ['red'] }, path: F.path }), ids(nested));
    assert.equal(await browseIds({ tagFilters: { color: ['red', 'blue'] } }), ids(a, b, c), 'OR within a group');
    assert.equal(
      await browseIds({ tagFilters: { color: ['red', 'blue'], size: ['big'] } }),
      ids(a, b),
      'AND between groups',
    );
    assert.equal(await browseIds({ tagFilters: { color: ['red'], size: ['big'] } }), ids(a));
    assert.equal(await browseIds({ tagFilters: { color: ['red'], size: ['huge'] } }), []);
    assert.equal(await browseIds({ tagFilters: { mood: ['red'] } }), ids(e), 'a value belongs to its group only');
    assert.equal(await browseIds({ tagFilters: { nothing: ['x'] } }), []);
    assert.equal(await browseIds({ tagFilters: { color: ['red'] }, types: ['video'] }), [], 'filters combine');

    assert.equal(await browseIds({ tagValues: ['red'] }), ids(a, c, e), 'any group');
    assert.equal(await browseIds({ tagValues: ['red', 'big'] }), ids(a), 'every value');
    assert.equal(await browseIds({ tagValues: ['big'] }), ids(a, b));
    assert.equal(await browseIds({ tagValues: ['red', 'blue'] }), [], 'no item carries both');
    assert.equal(await browseIds({ tagValues: ['red', 'green'] }), ids(e));
    assert.equal(
      await browseIds({ tagFilters: { size: ['big'] }, tagValues: ['blue'] }),
      ids(b),
      'tagFilters and tagValues combine',
    );

    const coll2 = await newCollection(s, fx.org.id, fx.user.id, 'Elsewhere');
    await addItem(pathLabel(coll2.id), { collectionId: coll2.id, metadata: { tags: { color: ['red'] } } });
    assert.equal(
      await browseIds({ tagFilters: { color: ['red'] }, recursive: true }),
      ids(a, c, nested),
      'tags of another collection do not leak',
    );
  });

  test('browse: every sort field in both directions, ties broken by id; paging with limit 2 yields each item once', async () => {
    const S = await folder('S', fx.root);
    const specs: Array<[string, Exclude<MediaType, 'folder'>, string, string]> = [
      ['delta', 'image', 'b desc', 'p2'],
      ['alpha', 'video', 'a desc', 'p1'],
      ['charlie', 'image', 'b desc', 'p3'],
      ['alpha', 'image', 'c desc', 'p1'],
      ['bravo', 'video', 'a desc', 'p2'],
      ['delta', 'image', 'b desc', 'p1'],
      ['echo', 'video', 'c desc', 'p3'],
    ];
    const made: MediaRecord[] = [];
    for (const [i, [n, type, description, prompt]] of specs.entries()) {
      made.push(await addItem(S.path, { name: n, type, metadata: { description, prompt } }));
      if (i === 2 || i === 4) await tick(); // some createdAt ties, some not
    }
    const key = (m: MediaRecord, f: SortField): string => {
      switch (f) {
        case 'name':
          return m.name;
        case 'createdAt':
          return m.createdAt;
        case 'type':
          return m.type;
        case 'description':
          return m.metadata.description as string;
        case 'prompt':
          return m.metadata.prompt as string;
        case 'takenAt':
          return m.takenAt ?? m.createdAt;
      }
    };
    const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
    for (const sortBy of SORT_FIELDS) {
      for (const sortDirection of ['asc', 'desc'] as const) {
        const sign = sortDirection === 'asc' ? 1 : -1;
        const expected = [...made]
          .sort((x, y) => sign * (cmp(key(x, sortBy), key(y, sortBy)) || cmp(x.id, y.id)))
          .map((m) => m.id);
        const label = `${sortBy} ${sortDirection}`;
        const all = await s.media.browse(query({ path: S.path, sortBy, sortDirection }));
        assert.equal(
          all.items.map((m) => m.id),
          expected,
          label,
        );
        assert.is(all.total, made.length);
        const paged: string[] = [];
        for (let offset = 0; offset < made.length + 2; offset += 2) {
          const page = await s.media.browse(query({ path: S.path, sortBy, sortDirection, limit: 2, offset }));
          assert.is(page.total, made.length, `${label}: total on every page`);
          assert.ok(page.items.length <= 2);
          paged.push(...page.items.map((m) => m.id));
        }
        assert.equal(paged, expected, `${label}: pages in order, each item exactly once`);
      }
    }
  });

  test('browse: limit, offset and total', async () => {
    const made: MediaRecord[] = [];
    for (let i = 0; i < 5; i++) made.push(await addItem(fx.root));
    const page = (limit: number, offset: number) => s.media.browse(query({ limit, offset }));
    let r = await page(2, 0);
    assert.is(r.items.length, 2);
    assert.is(r.total, 5);
    r = await page(2, 4);
    assert.is(r.items.length, 1);
    assert.is(r.total, 5);
    r = await page(10, 5);
    assert.equal(r.items, []);
    assert.is(r.total, 5, 'total counts matches even past the end');
    r = await s.media.browse(query({ limit: 3, types: ['video'] }));
    assert.equal(r, { items: [], total: 0 });
  });

  // ---------------------------------------------------------------- folder summaries

  test('folderSummaries: itemCount counts live images and videos at any depth', async () => {
    const F = await folder('F', fx.root);
    const G = await folder('G', F.path);
    const H = await folder('H', F.path);
    await addItem(F.path);
    await addItem(F.path, { type: 'video' });
    await addItem(G.path);
    const gone = await addItem(G.path);
    await s.media.softDelete(gone.id, fx.user.id);
    const orig = await addItem(G.path);
    await addItem(G.path, { rootId: orig.id }); // a second version counts once
    await folder('Deeper', G.path); // folders are not counted
    await addItem(fx.root); // outside F

    const sums = await s.media.folderSummaries([F.path, G.path, H.path]);
    assert.is(sums.size, 3);
    assert.is(sums.get(F.path)!.itemCount, 4);
    assert.is(sums.get(G.path)!.itemCount, 2);
    assert.equal(sums.get(H.path), { itemCount: 0, previewBlobKeys: [] });
    assert.is((await s.media.folderSummaries([])).size, 0);
  });

  test('childFolders: live folders of one level by name, with direct, subfolder and deep item counts; paged; moves', async () => {
    const b = await folder('beta', fx.root);
    const a = await folder('Alpha', fx.root);
    const c = await folder('gamma', fx.root);
    const inner = await folder('inner', b.path);
    await folder('deeper', inner.path);
    const gone = await folder('gone', fx.root);
    await s.media.softDelete(gone.id, fx.user.id);
    await addItem(fx.root); // items of the level are not folders
    await addItem(b.path);
    const orig = await addItem(b.path, { type: 'video' });
    await addItem(b.path, { rootId: orig.id }); // a second version counts once
    await addItem(inner.path);
    const dropped = await addItem(inner.path);
    await s.media.softDelete(dropped.id, fx.user.id);

    const level = await s.media.childFolders(fx.root, { limit: 10, offset: 0 });
    assert.is(level.total, 3);
    assert.equal(
      level.folders.map((f) => f.name),
      ['Alpha', 'beta', 'gamma'],
      'by name, case-insensitive; deleted ones left out',
    );
    assert.equal(level.folders[1], {
      id: b.id,
      name: 'beta',
      path: b.path,
      childCount: 3,
      folderCount: 1,
      itemCount: 3,
    });
    assert.equal(level.folders[0], {
      id: a.id,
      name: 'Alpha',
      path: a.path,
      childCount: 0,
      folderCount: 0,
      itemCount: 0,
    });
    const page = await s.media.childFolders(fx.root, { limit: 1, offset: 1 });
    assert.equal(
      page.folders.map((f) => f.id),
      [b.id],
    );
    assert.is(page.total, 3);
    assert.equal(
      (await s.media.childFolders(b.path, { limit: 10, offset: 0 })).folders.map((f) => [f.name, f.itemCount]),
      [['inner', 1]],
    );

    await s.media.move(inner.id, c.path, fx.user.id);
    const after = await s.media.childFolders(fx.root, { limit: 10, offset: 0 });
    assert.equal(
      after.folders.map((f) => [f.name, f.childCount, f.folderCount, f.itemCount]),
      [
        ['Alpha', 0, 0, 0],
        ['beta', 2, 0, 2],
        ['gamma', 1, 1, 1],
      ],
    );
    assert.equal(await s.media.childFolders(`${c.path}.${inner.id}`, { limit: 10, offset: 0 }).then((r) => r.total), 1);
  });

  test('folderSummaries: previews are at most 3 frame blob keys of live items beneath', async () => {
    const F = await folder('F', fx.root);
    const G = await folder('G', F.path);
    const live = [await addItem(F.path), await addItem(G.path), await addItem(G.path)];
    const gone = await addItem(F.path);
    await s.media.softDelete(gone.id, fx.user.id);
    const old = await addItem(G.path);
    const current = await addItem(G.path, { rootId: old.id });
    live.push(current);
    await addItem(fx.root); // outside

    const { previewBlobKeys } = (await s.media.folderSummaries([F.path])).get(F.path)!;
    assert.is(previewBlobKeys.length, 3);
    assert.is(new Set(previewBlobKeys).size, 3, 'distinct');
    const allowed = new Set(live.map(frameKey));
    for (const k of previewBlobKeys) assert.ok(allowed.has(k), `${k} is a frame of a live item beneath F`);

    const one = (await s.media.folderSummaries([G.path])).get(G.path)!;
    assert.is(one.previewBlobKeys.length, 3);
    for (const k of one.previewBlobKeys) assert.ok([live[1], live[2], current].map(frameKey).includes(k));
  });

  test('folderSummaries: previews are the newest first (FolderSummary.previewBlobKeys contract)', async () => {
    // Ids here ascend with creation time, so an implementation that picked by path would show oldest first.
    const F = await folder('F', fx.root, orderedId());
    const made: MediaRecord[] = [];
    for (let i = 0; i < 4; i++) {
      made.push(await addItem(F.path, { id: orderedId() }));
      await tick();
    }
    const { previewBlobKeys } = (await s.media.folderSummaries([F.path])).get(F.path)!;
    assert.equal(previewBlobKeys, [made[3], made[2], made[1]].map(frameKey));
  });

  // ---------------------------------------------------------------- metadata and tags

  test('update: rename and metadata replacement keep the tag index in step', async () => {
    const a = await addItem(fx.root, { name: 'a.jpg', metadata: { description: 'first', tags: { color: ['red'] } } });
    const b = await addItem(fx.root, { name: 'b.jpg', metadata: { description: 'second' } });

    const renamed = await s.media.update(a.id, { name: 'z.jpg' }, fx.user.id);
    assert.is(renamed.name, 'z.jpg');
    assert.equal(renamed.metadata, a.metadata, 'metadata kept when only the name changes');
    assert.is(renamed.updatedById, fx.user.id);
    assert.equal(await s.media.get(a.id), renamed);
    assert.equal(await s.media.tagGroups(fx.coll.id), { color: ['red'] });
    const byName = await s.media.browse(query({ sortBy: 'name' }));
    assert.equal(
      byName.items.map((m) => m.id),
      [b.id, a.id],
      'sorting sees the new name',
    );

    const replaced = await s.media.update(
      a.id,
      { metadata: { description: 'aaa', tags: { color: ['blue'], mood: ['calm'] } } },
      fx.user.id,
    );
    assert.is(replaced.name, 'z.jpg', 'name kept when only metadata changes');
    assert.equal(
      replaced.metadata,
      { description: 'aaa', tags: { color: ['blue'], mood: ['calm'] } },
      'the whole document is replaced',
    );
    assert.equal(await s.media.tagGroups(fx.coll.id), { color: ['blue'], mood: ['calm'] });
    assert.equal(await browseIds({ tagFilters: { color: ['red'] } }), []);
    assert.equal(await browseIds({ tagFilters: { color: ['blue'] } }), ids(a));
    assert.equal(await browseIds({ tagValues: ['calm'] }), ids(a));
    const byDescription = await s.media.browse(query({ sortBy: 'description' }));
    assert.equal(
      byDescription.items.map((m) => m.id),
      [a.id, b.id],
      'sorting sees the new description',
    );

    const both = await s.media.update(a.id, { name: 'y.jpg', metadata: {} }, fx.user.id);
    assert.is(both.name, 'y.jpg');
    assert.equal(both.metadata, {});
    assert.equal(await s.media.tagGroups(fx.coll.id), {});
    assert.equal(await browseIds({ tagValues: ['blue'] }), []);

    await rejects(s.media.update(newMediaId(), { name: 'x' }, fx.user.id), 'updating a missing item fails');
    await s.media.softDelete(b.id, fx.user.id);
    await rejects(s.media.update(b.id, { name: 'x' }, fx.user.id), 'updating a deleted item fails');
    assert.is((await s.media.get(b.id))!.name, 'b.jpg');
  });

  test('mergeExif sets top-level exif keys and keeps the rest; a missing or deleted item gives null', async () => {
    const a = await addItem(fx.root);
    assert.equal(a.exif, { Make: 'TestCam' });
    const out = await s.media.mergeExif(a.id, { webVideo: { key: 'k.mp4', width: 2 }, codec: 'hevc' });
    assert.equal(out!.exif, { Make: 'TestCam', codec: 'hevc', webVideo: { key: 'k.mp4', width: 2 } });
    assert.is(out!.updatedAt, a.updatedAt, 'not an edit');
    assert.equal(await s.media.get(a.id), out);
    assert.is(await s.media.mergeExif(newMediaId(), { x: 1 }), null);
    const video = await addItem(fx.root, { type: 'video' });
    await s.media.mergeExif(video.id, { webVideo: { key: 'c'.repeat(64) + '.mp4' } });
    const refs = await s.media.referencedBlobKeys(['c'.repeat(64) + '.mp4', 'd'.repeat(64) + '.mp4']);
    assert.equal([...refs], ['c'.repeat(64) + '.mp4'], "a video's web copy is referenced");
    await s.media.softDelete(a.id, fx.user.id);
    assert.is(await s.media.mergeExif(a.id, { x: 1 }), null);
  });

  test('mergeExif with a takenAt sets the capture time too: browse by takenAt sorts and bounds by the new one', async () => {
    const R = await folder('Reread', fx.root);
    const a = await addItem(R.path, { takenAt: '2010-01-01T00:00:00.000Z' });
    const b = await addItem(R.path, { takenAt: '2015-01-01T00:00:00.000Z' });
    const order = async (over: Partial<BrowseQuery> = {}) =>
      (await s.media.browse(query({ path: R.path, sortBy: 'takenAt', ...over }))).items.map((m) => m.id);
    assert.equal(await order(), [a.id, b.id]);
    const out = await s.media.mergeExif(a.id, { capture: { title: 't' } }, '2019-06-01T08:30:00.000Z');
    assert.is(out!.takenAt, '2019-06-01T08:30:00.000Z');
    assert.equal(out!.exif, { Make: 'TestCam', capture: { title: 't' } });
    assert.is(out!.updatedAt, a.updatedAt, 'not an edit');
    assert.equal(await order(), [b.id, a.id], 'sorted at its new capture time');
    const from = '2018-01-01T00:00:00.000Z';
    assert.equal(await order({ dateField: 'takenAt', createdFrom: from }), [a.id], 'bounded by it');
    await s.media.mergeExif(b.id, { x: 1 });
    assert.is((await s.media.get(b.id))!.takenAt, '2015-01-01T00:00:00.000Z', 'no takenAt: the time is kept');
    await s.media.mergeExif(b.id, {}, null);
    assert.is((await s.media.get(b.id))!.takenAt, null, 'null: unknown again');
  });

  test('findByContentIdentifier: active items of the collection sharing an Apple content identifier', async () => {
    const cid = 'E905E6C6-C747-4805-942F-9904A0281F02';
    const still = await addItem(fx.root);
    const motion = await addItem(fx.root, { type: 'video' });
    const other = await addItem(fx.root);
    await s.media.mergeExif(still.id, { capture: { contentIdentifier: cid } });
    await s.media.mergeExif(motion.id, { capture: { contentIdentifier: cid } });
    await s.media.mergeExif(other.id, { capture: { contentIdentifier: 'another' } });
    const found = await s.media.findByContentIdentifier(fx.coll.id, cid);
    assert.equal(
      found.map((m) => m.id),
      [still.id, motion.id],
    );
    assert.equal(await s.media.findByContentIdentifier(newMediaId(), cid), [], 'another collection');
    await s.media.softDelete(motion.id, fx.user.id);
    assert.equal(
      (await s.media.findByContentIdentifier(fx.coll.id, cid)).map((m) => m.id),
      [still.id],
    );
    await s.media.mergeExif(still.id, { livePhoto: { key: 'e'.repeat(64) + '.mov' } });
    assert.equal([...(await s.media.referencedBlobKeys(['e'.repeat(64) + '.mov']))], ['e'.repeat(64) + '.mov']);
  });

  test('mutateMetadata applies the function, and a throw aborts without writing', async () => {
    const a = await addItem(fx.root, { metadata: { note: 'keep', tags: { color: ['red'] } } });
    const seen: Metadata[] = [];
    const out = await s.media.mutateMetadata(a.id, fx.user.id, (m) => {
      seen.push(structuredClone(m));
      return { ...m, tags: { ...m.tags, color: [...(m.tags?.color ?? []), 'blue'] } };
    });
    assert.equal(seen, [{ note: 'keep', tags: { color: ['red'] } }], 'the function sees the stored document');
    assert.equal(out.metadata, { note: 'keep', tags: { color: ['red', 'blue'] } });
    assert.is(out.updatedById, fx.user.id);
    assert.equal(await s.media.get(a.id), out);
    assert.equal(await s.media.tagGroups(fx.coll.id), { color: ['blue', 'red'] });
    assert.equal(await browseIds({ tagFilters: { color: ['blue'] } }), ids(a));

    const conflict = new Error('conflict');
    const err = await rejects(
      s.media.mutateMetadata(a.id, fx.user.id, () => {
        throw conflict;
      }),
      'a throwing mutate rejects',
    );
    assert.is(err, conflict, "the function's own error comes back");
    const err2 = await rejects(
      s.media.mutateMetadata(a.id, fx.user.id, (m) => {
        m.tags = { color: ['green'] }; // mutates its argument, then throws
        throw conflict;
      }),
      'a throwing mutate rejects',
    );
    assert.is(err2, conflict);
    assert.equal(await s.media.get(a.id), out, 'nothing was written');
    assert.equal(await s.media.tagGroups(fx.coll.id), { color: ['blue', 'red'] });
    assert.equal(await browseIds({ tagFilters: { color: ['green'] } }), []);
    await rejects(
      s.media.mutateMetadata(newMediaId(), fx.user.id, (m) => m),
      'a missing item fails',
    );
  });

  test('tagGroups: sorted distinct values of live items only', async () => {
    const a = await addItem(fx.root, { metadata: { tags: { shape: ['round'], color: ['red', 'blue', 'blue'] } } });
    const b = await addItem(fx.root, { metadata: { tags: { color: ['amber', 'red'] } } });
    await addItem(fx.root, { metadata: { tags: { color: [], empty: [] } } }); // empty groups show nowhere
    const coll2 = await newCollection(s, fx.org.id, fx.user.id, 'Elsewhere');
    await addItem(pathLabel(coll2.id), { collectionId: coll2.id, metadata: { tags: { color: ['zzz'] } } });

    const groups = await s.media.tagGroups(fx.coll.id);
    assert.equal(groups, { color: ['amber', 'blue', 'red'], shape: ['round'] });
    assert.equal(Object.keys(groups), ['color', 'shape'], 'groups in order');
    assert.equal(await s.media.tagGroups(coll2.id), { color: ['zzz'] });
    assert.equal(await s.media.tagGroups(newUuid()), {});

    await s.media.softDelete(b.id, fx.user.id);
    assert.equal(
      await s.media.tagGroups(fx.coll.id),
      { color: ['blue', 'red'], shape: ['round'] },
      "a deleted item's tags are gone, shared ones stay",
    );

    const v2 = await addItem(fx.root, { rootId: a.id, metadata: { tags: { color: ['green'] } } });
    assert.equal(
      await s.media.tagGroups(fx.coll.id),
      { color: ['green'] },
      "a non-current version's tags do not count",
    );
    await s.media.update(a.id, { metadata: { tags: { color: ['violet'] } } }, fx.user.id);
    assert.equal(
      await s.media.tagGroups(fx.coll.id),
      { color: ['green'] },
      'editing a non-current version indexes nothing',
    );
    assert.equal(await browseIds({ tagFilters: { color: ['violet'] }, recursive: true }), []);
    await s.media.softDelete(v2.id, fx.user.id);
    assert.equal(await s.media.tagGroups(fx.coll.id), {});
  });

  // ---------------------------------------------------------------- delete

  test('softDelete of an item deletes all its versions and frees their bytes', async () => {
    const keep = await addItem(fx.root, { sizeBytes: 7 });
    const a = await addItem(fx.root, { sizeBytes: 100, metadata: { tags: { t: ['x'] } } });
    await tick();
    const a2 = await addItem(fx.root, { rootId: a.id, sizeBytes: 30 });
    assert.is(await storageBytes(), 137);

    assert.equal(await s.media.softDelete(a.id, fx.user.id), { deletedCount: 2 });
    assert.is(await status(a.id), 'deleted');
    assert.is(await status(a2.id), 'deleted');
    assert.is(await status(keep.id), 'active');
    assert.is(await storageBytes(), 7);
    assert.equal(await browseIds({ recursive: true }), ids(keep));
    assert.equal(await s.media.listVersions(a.id), []);
    assert.equal((await s.media.frames([a.id, a2.id])).get(a.id) ?? [], [], 'frames go with the item');
    assert.equal((await s.media.frames([a.id, a2.id])).get(a2.id) ?? [], []);
    assert.equal(await s.media.tagGroups(fx.coll.id), {});
    await rejects(s.media.softDelete(a.id, fx.user.id), 'deleting a deleted item fails');
    assert.is(await storageBytes(), 7, 'bytes are not freed twice');
  });

  test('softDelete through a non-current version deletes the whole item', async () => {
    const a = await addItem(fx.root, { sizeBytes: 10 });
    await tick();
    const a2 = await addItem(fx.root, { rootId: a.id, sizeBytes: 5 });
    assert.equal(await s.media.softDelete(a.id, fx.user.id), { deletedCount: 2 });
    assert.is(await status(a2.id), 'deleted');
    assert.is(await storageBytes(), 0);
  });

  test('softDelete of a folder deletes everything beneath it', async () => {
    const keep = await addItem(fx.root, { sizeBytes: 1 });
    const F = await folder('F', fx.root);
    const sibling = await folder('F2', fx.root); // a sibling, must survive
    const inSibling = await addItem(sibling.path, { sizeBytes: 2 });
    const i1 = await addItem(F.path, { sizeBytes: 10, metadata: { tags: { t: ['in-f'] } } });
    const G = await folder('G', F.path);
    const i2 = await addItem(G.path, { sizeBytes: 20 });
    await tick();
    const i2v = await addItem(G.path, { rootId: i2.id, sizeBytes: 40 });
    const already = await addItem(G.path, { sizeBytes: 80 });
    await s.media.softDelete(already.id, fx.user.id);
    assert.is(await storageBytes(), 73);

    const r = await s.media.softDelete(F.id, fx.user.id);
    assert.equal(r, { deletedCount: 5 }, 'F, i1, G, i2 and its version (the already deleted item is not counted)');
    for (const m of [F, i1, G, i2, i2v]) assert.is(await status(m.id), 'deleted', m.name);
    for (const m of [keep, sibling, inSibling]) assert.is(await status(m.id), 'active', m.name);
    assert.is(await storageBytes(), 3);
    assert.equal(await browseIds(), ids(keep, sibling));
    assert.equal(await browseIds({ recursive: true }), ids(keep, sibling, inSibling));
    assert.equal(await s.media.tagGroups(fx.coll.id), {});
    assert.equal((await s.media.frames([i1.id])).get(i1.id) ?? [], []);
    assert.is((await s.media.folderSummaries([F.path])).get(F.path)!.itemCount, 0);
  });

  // ---------------------------------------------------------------- move

  test('move of an item takes its versions along', async () => {
    const F = await folder('F', fx.root);
    const a = await addItem(fx.root);
    await tick();
    const a2 = await addItem(fx.root, { rootId: a.id });
    const other = await addItem(fx.root);

    const newPath = await s.media.move(a2.id, F.path, fx.user.id);
    assert.is(newPath, `${F.path}.${a2.id}`);
    for (const m of [a, a2]) {
      const got = (await s.media.get(m.id))!;
      assert.is(got.parentPath, F.path);
      assert.is(got.path, `${F.path}.${m.id}`);
    }
    assert.is((await s.media.get(other.id))!.parentPath, fx.root);
    assert.equal(await browseIds({ path: F.path }), ids(a2), 'the current version is listed at the new place');
    assert.equal(await browseIds(), ids(F, other), 'and no longer at the old one');
    assert.equal(
      (await s.media.listVersions(a.id)).map((m) => m.parentPath),
      [F.path, F.path],
    );
    assert.is((await s.media.folderSummaries([F.path])).get(F.path)!.itemCount, 1);

    const back = await s.media.move(a.id, fx.root, fx.user.id);
    assert.is(back, `${fx.root}.${a.id}`);
    assert.equal(await browseIds(), ids(F, other, a2));
  });

  test('move of a folder rewrites its whole subtree', async () => {
    const A = await folder('A', fx.root);
    const B = await folder('B', A.path);
    const C = await folder('C', fx.root);
    const i1 = await addItem(B.path, { metadata: { tags: { k: ['v'] } } });
    await tick();
    const i1v = await addItem(B.path, { rootId: i1.id });
    const i2 = await addItem(A.path, { type: 'video' });
    const gone = await addItem(A.path);
    await s.media.softDelete(gone.id, fx.user.id);
    const outside = await addItem(C.path);
    const oldA = A.path;

    const newA = await s.media.move(A.id, C.path, fx.user.id);
    assert.is(newA, `${C.path}.${A.id}`);
    const got = async (id: string) => (await s.media.get(id))!;
    assert.is((await got(A.id)).path, newA);
    assert.is((await got(A.id)).parentPath, C.path);
    const newB = `${newA}.${B.id}`;
    assert.is((await got(B.id)).path, newB);
    assert.is((await got(B.id)).parentPath, newA);
    for (const m of [i1, i1v]) {
      assert.is((await got(m.id)).path, `${newB}.${m.id}`);
      assert.is((await got(m.id)).parentPath, newB);
    }
    assert.is((await got(i2.id)).path, `${newA}.${i2.id}`);
    assert.is((await got(i2.id)).parentPath, newA);
    assert.is((await got(gone.id)).parentPath, newA, 'deleted rows move too, so nothing points at the old place');
    assert.is((await got(outside.id)).path, `${C.path}.${outside.id}`);
    assert.is((await got(C.id)).path, C.path);

    assert.equal(await browseIds(), ids(C), 'the root lists only C now');
    assert.equal(await browseIds({ path: C.path }), ids(A, outside));
    assert.equal(await browseIds({ path: newA }), ids(B, i2));
    assert.equal(await browseIds({ path: newB }), ids(i1v));
    assert.equal(await browseIds({ path: newA, recursive: true }), ids(B, i1v, i2));
    assert.equal(await browseIds({ path: C.path, recursive: true }), ids(A, B, i1v, i2, outside));
    assert.equal(await browseIds({ path: oldA, recursive: true }), [], 'the old place is empty');
    assert.equal(await browseIds({ path: oldA }), []);
    assert.equal(await browseIds({ path: `${oldA}.${B.id}` }), []);
    assert.equal(
      await browseIds({ recursive: true, tagFilters: { k: ['v'] } }),
      [],
      'tags of the non-current version stay out',
    );

    const sums = await s.media.folderSummaries([newA, newB, C.path, oldA]);
    assert.is(sums.get(newA)!.itemCount, 2);
    assert.is(sums.get(newB)!.itemCount, 1);
    assert.is(sums.get(C.path)!.itemCount, 3);
    assert.is(sums.get(oldA)!.itemCount, 0);
    assert.equal(sums.get(oldA)!.previewBlobKeys, []);
    assert.ok(sums.get(newB)!.previewBlobKeys.includes(frameKey(i1v)));

    // Moving it back restores the original paths.
    assert.is(await s.media.move(A.id, fx.root, fx.user.id), oldA);
    assert.is((await got(i1.id)).path, `${oldA}.${B.id}.${i1.id}`);
    assert.equal(await browseIds(), ids(A, C));
  });

  test('move: a folder cannot go into itself or its own subtree', async () => {
    const A = await folder('A', fx.root);
    const B = await folder('B', A.path);
    await rejects(s.media.move(A.id, A.path, fx.user.id), 'into itself');
    await rejects(s.media.move(A.id, B.path, fx.user.id), 'into its own subfolder');
    assert.is((await s.media.get(A.id))!.path, `${fx.root}.${A.id}`);
    assert.is((await s.media.get(B.id))!.path, `${fx.root}.${A.id}.${B.id}`);
  });

  // ---------------------------------------------------------------- versions

  test('versions: inserting with rootId makes the new version current', async () => {
    const o = await addItem(fx.root, { sizeBytes: 100, metadata: { tags: { color: ['red'] } } });
    await tick();
    const v = await addItem(fx.root, { rootId: o.id, sizeBytes: 50, metadata: { tags: { color: ['blue'] } } });
    assert.is(v.rootId, o.id);
    assert.is(v.isCurrent, true);
    assert.is((await s.media.get(o.id))!.isCurrent, false);
    assert.is((await s.media.get(o.id))!.status, 'active', 'the old version stays active');
    assert.equal(await browseIds(), ids(v), 'listings show only the current version');
    assert.equal(await s.media.tagGroups(fx.coll.id), { color: ['blue'] }, "the old version's tags are gone");
    assert.equal(await browseIds({ tagFilters: { color: ['red'] } }), []);
    assert.equal(await browseIds({ mediaId: o.id }), []);
    assert.is(await storageBytes(), 150, 'every version counts toward storage');

    const other = await addItem(fx.root);
    const counts = await s.media.versionCounts([o.id, other.id]);
    assert.is(counts.get(o.id), 2);
    assert.is(counts.get(other.id), 1);
    assert.equal(
      (await s.media.listVersions(o.id)).map((m) => m.id),
      [o.id, v.id],
      'oldest first',
    );
    assert.equal(
      (await s.media.listVersions(other.id)).map((m) => m.id),
      [other.id],
    );

    await tick();
    const v3 = await addItem(fx.root, { rootId: o.id });
    assert.equal(await browseIds(), ids(v3, other));
    assert.equal(
      (await s.media.listVersions(o.id)).map((m) => [m.id, m.isCurrent]),
      [
        [o.id, false],
        [v.id, false],
        [v3.id, true],
      ],
    );
    assert.is((await s.media.versionCounts([o.id])).get(o.id), 3);
  });

  test('versions: selectVersion switches, deleteVersion promotes the newest remaining', async () => {
    const o = await addItem(fx.root, { sizeBytes: 100, metadata: { tags: { v: ['o'] } } });
    await tick();
    const v1 = await addItem(fx.root, { rootId: o.id, sizeBytes: 10, metadata: { tags: { v: ['v1'] } } });
    await tick();
    const v2 = await addItem(fx.root, { rootId: o.id, sizeBytes: 1, metadata: { tags: { v: ['v2'] } } });

    const sel = await s.media.selectVersion(o.id, fx.user.id);
    assert.is(sel.id, o.id);
    assert.is(sel.isCurrent, true);
    assert.equal(
      (await s.media.listVersions(o.id)).map((m) => m.isCurrent),
      [true, false, false],
    );
    assert.equal(await browseIds(), ids(o));
    assert.equal(await s.media.tagGroups(fx.coll.id), { v: ['o'] });

    await s.media.selectVersion(v1.id, fx.user.id);
    assert.equal(await browseIds(), ids(v1));
    assert.equal(await s.media.tagGroups(fx.coll.id), { v: ['v1'] });

    // Deleting the current version promotes the newest remaining (v2), not the original.
    const r1 = await s.media.deleteVersion(o.id, v1.id, fx.user.id);
    assert.equal(r1, { deletedId: v1.id, promotedId: v2.id });
    assert.is(await status(v1.id), 'deleted');
    assert.is((await s.media.get(v2.id))!.isCurrent, true);
    assert.equal(await browseIds(), ids(v2));
    assert.equal(await s.media.tagGroups(fx.coll.id), { v: ['v2'] });
    assert.is(await storageBytes(), 101);
    assert.is((await s.media.versionCounts([o.id])).get(o.id), 2);
    assert.equal(
      (await s.media.listVersions(o.id)).map((m) => m.id),
      [o.id, v2.id],
    );

    // Deleting a version that is not current promotes nothing.
    const r2 = await s.media.deleteVersion(o.id, o.id, fx.user.id);
    assert.equal(r2, { deletedId: o.id, promotedId: null });
    assert.equal(await browseIds(), ids(v2));
    assert.is(await storageBytes(), 1);
    assert.equal(
      (await s.media.listVersions(o.id)).map((m) => m.id),
      [v2.id],
    );

    await rejects(s.media.deleteVersion(o.id, v1.id, fx.user.id), 'an already deleted version');
    const stranger = await addItem(fx.root);
    await rejects(s.media.deleteVersion(o.id, stranger.id, fx.user.id), 'a version of another root');
    await rejects(s.media.selectVersion(v1.id, fx.user.id), 'selecting a deleted version');
    assert.equal(await browseIds(), ids(v2, stranger));

    const last = await s.media.deleteVersion(o.id, v2.id, fx.user.id);
    assert.equal(last, { deletedId: v2.id, promotedId: null }, 'nothing left to promote');
    assert.equal(await browseIds(), ids(stranger));
    assert.equal(await s.media.tagGroups(fx.coll.id), {});
    assert.is(await storageBytes(), stranger.sizeBytes);
  });

  // ---------------------------------------------------------------- misc

  test('setProcessingStatus', async () => {
    const a = await addItem(fx.root);
    await s.media.setProcessingStatus(a.id, 'processing', null);
    assert.is((await s.media.get(a.id))!.processingStatus, 'processing');
    await s.media.setProcessingStatus(a.id, 'failed', 'decoder exploded');
    let got = (await s.media.get(a.id))!;
    assert.is(got.processingStatus, 'failed');
    assert.is(got.processingError, 'decoder exploded');
    await s.media.setProcessingStatus(a.id, 'ready', null);
    got = (await s.media.get(a.id))!;
    assert.is(got.processingStatus, 'ready');
    assert.is(got.processingError, null);
  });

  test('referencedBlobKeys: media and frame keys of rows in any status', async () => {
    const a = await addItem(fx.root, { blobKey: 'orig-a' });
    const b = await addItem(fx.root, { blobKey: 'orig-b' });
    await s.media.softDelete(b.id, fx.user.id);
    const found = await s.media.referencedBlobKeys(['orig-a', 'orig-b', frameKey(a), frameKey(b), 'unknown']);
    assert.equal(sorted([...found]), sorted(['orig-a', 'orig-b', frameKey(a), frameKey(b)]));
    assert.is((await s.media.referencedBlobKeys([])).size, 0);
    assert.is((await s.media.referencedBlobKeys(['nope'])).size, 0);
  });

  test('findByBlobKey: active items of the organization with that file, current first', async () => {
    const a = await addItem(fx.root, { blobKey: 'shared-key' });
    const v = await addItem(fx.root, { blobKey: 'shared-key', rootId: a.id });
    const gone = await addItem(fx.root, { blobKey: 'shared-key' });
    await s.media.softDelete(gone.id, fx.user.id);
    const org2 = await s.accounts.createOrganization(
      { id: newUuid(), name: 'Other', slug: `other-${newUuid().slice(0, 8)}` },
      fx.user.id,
    );
    const coll2 = await newCollection(s, org2.id, fx.user.id, 'Other');
    await addItem(pathLabel(coll2.id), { collectionId: coll2.id, organizationId: org2.id, blobKey: 'shared-key' });
    const found = await s.media.findByBlobKey(fx.org.id, 'shared-key');
    assert.equal(
      found.map((m) => m.id),
      [v.id, a.id],
      'the current version first, nothing deleted or of another organization',
    );
    assert.equal(await s.media.findByBlobKey(fx.org.id, 'nope'), []);
  });

  test('organization storageBytes follows inserts and deletes', async () => {
    assert.is(await storageBytes(), 0);
    const F = await folder('F', fx.root);
    assert.is(await storageBytes(), 0, 'folders weigh nothing');
    const a = await addItem(fx.root, { sizeBytes: 1000 });
    const b = await addItem(F.path, { sizeBytes: 200 });
    await addItem(F.path, { rootId: b.id, sizeBytes: 30 });
    const org2 = await s.accounts.createOrganization({ id: newUuid(), name: 'Two', slug: 'two' }, fx.user.id);
    const coll2 = await newCollection(s, org2.id, fx.user.id, 'Two');
    await addItem(pathLabel(coll2.id), { collectionId: coll2.id, organizationId: org2.id, sizeBytes: 4 });
    assert.is(await storageBytes(), 1230);
    assert.is(await storageBytes(org2.id), 4, 'per organization');
    await s.media.softDelete(F.id, fx.user.id);
    assert.is(await storageBytes(), 1000);
    await s.media.softDelete(a.id, fx.user.id);
    assert.is(await storageBytes(), 0);
    assert.is(await storageBytes(org2.id), 4);
  });

  // ---------------------------------------------------------------- analysis (ingest output)

  const objectFor = (label: string, o: Partial<NewObject> = {}): NewObject => ({
    id: newMediaId(),
    type: 'object',
    label,
    blobKey: null,
    polygon: [
      { x: 1, y: 1 },
      { x: 10, y: 1 },
      { x: 10, y: 10 },
      { x: 1, y: 10 },
    ],
    confidence: 0.9,
    model: 'det:1',
    similarityModel: 'objects',
    embedding: { modelId: 'emb:1', vector: new Float32Array([0.6, 0.8, 0, 0, 0, 0, 0, 0]) },
    ...o,
  });

  test('analysis: replaceFrameAnalysis replaces only the model rows; running it twice duplicates nothing', async () => {
    const item = await addItem(fx.root);
    const [frame] = await s.analysis.framesOf(item.id);
    const run = () =>
      s.analysis.replaceFrameAnalysis(frame.id, {
        captions: [{ id: newMediaId(), text: 'a red bus', model: 'cap:1' }],
        objects: [objectFor('bus'), objectFor('person', { type: 'face', similarityModel: 'faces' })],
      });
    await run();
    await run();
    let detail = (await s.media.frames([item.id])).get(item.id)![0];
    assert.is(detail.captions.length, 1);
    assert.equal(detail.objects.map((o) => o.label).sort(), ['bus', 'person']);
    // The user's corrections stay through a rerun.
    const bus = detail.objects.find((o) => o.label === 'bus')!;
    await s.analysis.correctObject(bus.id, { label: 'tram' });
    await s.analysis.addUserCaption(frame.id, { id: newMediaId(), text: 'my caption', model: 'user' }, fx.user.id);
    await run();
    detail = (await s.media.frames([item.id])).get(item.id)![0];
    assert.equal(detail.captions.map((c) => c.text).sort(), ['a red bus', 'my caption']);
    assert.equal(
      detail.objects.map((o) => o.label).sort(),
      ['bus', 'person', 'tram'],
      "the corrected row is the user's now; the model adds its own again",
    );
    assert.equal(
      (await s.analysis.userObjects(frame.id)).map((o) => o.label),
      ['tram'],
    );
    const person = detail.objects.find((o) => o.label === 'person')!;
    await s.analysis.correctObject(person.id, { deleted: true });
    assert.ok(!(await s.media.frames([item.id])).get(item.id)![0].objects.some((o) => o.id === person.id));
    assert.is((await s.analysis.userObjects(frame.id)).length, 2, 'deleted corrections are listed for the pipeline');
  });

  test('blobReferences: every file of every item (any status), its role, a page of items at a time', async () => {
    const a = await addItem(fx.root, { blobKey: 'ref-orig-a' });
    const b = await addItem(fx.root, { blobKey: 'ref-orig-b' });
    await folder('Ref folder', fx.root);
    const [fa] = await s.analysis.framesOf(a.id);
    await s.analysis.setFrameRenditions(fa.id, fa.blobKey, { thumbnailKey: 'ref-thumb-a', previewKey: 'ref-prev-a' });
    await s.analysis.replaceFrameAnalysis(fa.id, {
      captions: [],
      objects: [objectFor('bus', { blobKey: 'ref-crop-a' })],
    });
    await s.media.softDelete(b.id, fx.user.id);
    const seen: BlobReference[] = [];
    let after: string | null = '';
    let pages = 0;
    while (after !== null) {
      const page: { references: BlobReference[]; next: string | null } = await s.media.blobReferences(1, after);
      seen.push(...page.references);
      after = page.next;
      pages++;
    }
    const ids = seen.map((r) => r.mediaId);
    assert.equal(ids, [...ids].sort(), 'in item id order');
    assert.ok(pages >= 3, 'one item a page, then an empty one');
    const name = (r: BlobReference) => `${r.mediaId === a.id ? 'a' : 'b'} ${r.role} ${r.blobKey} ${r.active}`;
    assert.equal(
      sorted(seen.filter((r) => r.mediaId === a.id || r.mediaId === b.id).map(name)),
      sorted([
        'a original ref-orig-a true',
        `a frame ${frameKey(a)} true`,
        'a thumbnail ref-thumb-a true',
        'a preview ref-prev-a true',
        'a crop ref-crop-a true',
        'b original ref-orig-b false',
        `b frame ${frameKey(b)} false`,
      ]),
    );
  });

  test('analysis: frameVector is the vector of the whole-frame object under that model, else null', async () => {
    const item = await addItem(fx.root);
    const [frame] = await s.analysis.framesOf(item.id);
    assert.is(await s.analysis.frameVector(frame.id, 'emb:1'), null);
    const vector = new Float32Array([0, 0.6, 0.8, 0, 0, 0, 0, 0]);
    await s.analysis.replaceModelObjects(frame.id, 'frame', [
      objectFor('frame', { type: 'frame', embedding: { modelId: 'emb:1', vector } }),
    ]);
    assert.equal([...(await s.analysis.frameVector(frame.id, 'emb:1'))!], [...vector]);
    assert.is(await s.analysis.frameVector(frame.id, 'emb:2'), null, 'another model made none');
    // A detected object's vector is not the frame's.
    const [other] = await s.analysis.framesOf((await addItem(fx.root)).id);
    await s.analysis.replaceModelObjects(other.id, 'object', [objectFor('bus', { type: 'object' })]);
    assert.is(await s.analysis.frameVector(other.id, 'emb:1'), null);
  });

  test('analysis: syncFrames keeps frames whose timestamp returns, adds new ones, deletes the rest', async () => {
    const video = await addItem(fx.root, { type: 'video', frames: [] });
    const mk = (t: string) => ({ id: newMediaId(), timestamp: t, blobKey: `f-${t}`, width: 64, height: 36 });
    const first = await s.analysis.syncFrames(video.id, [mk('0'), mk('2.5'), mk('5')], fx.user.id);
    assert.equal(
      first.map((f) => f.timestamp),
      ['0', '2.5', '5'],
    );
    await s.analysis.replaceFrameAnalysis(first[1].id, {
      captions: [{ id: newMediaId(), text: 'middle', model: 'cap:1' }],
      objects: [],
    });
    const second = await s.analysis.syncFrames(video.id, [mk('0'), mk('2.5'), mk('7.5')], fx.user.id);
    assert.equal(
      second.map((f) => f.timestamp),
      ['0', '2.5', '7.5'],
    );
    assert.is(second[0].id, first[0].id, 'same timestamp, same frame id');
    assert.is(second[1].id, first[1].id);
    assert.is(second[1].blobKey, 'f-2.5');
    const detail = (await s.media.frames([video.id])).get(video.id)!;
    assert.is(detail.length, 3);
    assert.is(detail[1].captions[0].text, 'middle', 'what was found on a kept frame stays');
    assert.is((await s.analysis.getFrame(first[2].id))!.status, 'deleted');
  });

  test('analysis stages: set replaces, stagesOf reads, waitingFor finds ready active items waiting for a model', async () => {
    const a = await addItem(fx.root);
    const b = await addItem(fx.root);
    const c = await addItem(fx.root);
    const waiting = (model: string) => ({ stage: 'caption', state: 'waiting' as const, model });
    await s.analysis.setStages(a.id, [{ stage: 'embeddings', state: 'done', model: 'emb' }, waiting('cap')]);
    await s.analysis.setStages(b.id, [waiting('cap'), { stage: 'faces', state: 'waiting', model: 'face' }]);
    await s.analysis.setStages(c.id, [waiting('cap')]);
    await s.analysis.setStages(c.id, [{ stage: 'caption', state: 'done', model: 'cap' }]);
    for (const id of [a.id, b.id, c.id]) await s.media.setProcessingStatus(id, 'ready', null);

    const got = await s.analysis.stagesOf([a.id, c.id, newMediaId()]);
    assert.is(got.size, 2, 'items never analysed are absent');
    assert.equal(
      [...got.get(a.id)!].sort((x, y) => x.stage.localeCompare(y.stage)),
      [
        { stage: 'caption', state: 'waiting', model: 'cap' },
        { stage: 'embeddings', state: 'done', model: 'emb' },
      ],
    );
    assert.equal(got.get(c.id), [{ stage: 'caption', state: 'done', model: 'cap' }], 'set replaces the earlier stages');
    assert.equal((await s.analysis.stagesOf([])).size, 0);

    assert.equal(await s.analysis.waitingFor(['cap'], 10), sorted([a.id, b.id]));
    assert.equal(await s.analysis.waitingFor(['face', 'cap'], 10), sorted([a.id, b.id]), 'each item once');
    assert.equal(await s.analysis.waitingFor(['cap'], 1), [sorted([a.id, b.id])[0]]);
    assert.equal(await s.analysis.waitingFor(['cap'], 10, sorted([a.id, b.id])[0]), [sorted([a.id, b.id])[1]]);
    assert.equal(await s.analysis.waitingFor([], 10), []);
    await s.media.setProcessingStatus(a.id, 'processing', null);
    await s.media.softDelete(b.id, fx.user.id);
    assert.equal(await s.analysis.waitingFor(['cap'], 10), [], 'only ready, active items');
  });

  test('analysis stages: waitingCounts counts the organization’s live items per waiting model and stage', async () => {
    const waits = (stage: string, model: string) => ({ stage, state: 'waiting' as const, model });
    const [a, b, gone] = [await addItem(fx.root), await addItem(fx.root), await addItem(fx.root)];
    await s.analysis.setStages(a.id, [waits('embeddings', 'emb'), waits('moderation', 'emb'), waits('caption', 'cap')]);
    await s.analysis.setStages(b.id, [waits('embeddings', 'emb'), { stage: 'caption', state: 'done', model: 'cap' }]);
    await s.analysis.setStages(gone.id, [waits('caption', 'cap')]);
    await s.media.softDelete(gone.id, fx.user.id);
    const org2 = await s.accounts.createOrganization(
      { id: newUuid(), name: 'Else', slug: `else-${newUuid().slice(0, 8)}` },
      fx.user.id,
    );
    const coll2 = await newCollection(s, org2.id, fx.user.id, 'Else');
    const theirs = await addItem(pathLabel(coll2.id), { collectionId: coll2.id, organizationId: org2.id });
    await s.analysis.setStages(theirs.id, [waits('caption', 'cap')]);
    assert.equal(await s.analysis.waitingCounts(fx.org.id), [
      { model: 'cap', items: 1, stages: { caption: 1 } },
      { model: 'emb', items: 2, stages: { embeddings: 2, moderation: 1 } },
    ]);
    assert.equal(await s.analysis.waitingCounts(org2.id), [{ model: 'cap', items: 1, stages: { caption: 1 } }]);
    await s.analysis.setStages(a.id, []);
    assert.equal(await s.analysis.waitingCounts(fx.org.id), [{ model: 'emb', items: 1, stages: { embeddings: 1 } }]);
  });

  // ---------------------------------------------------------------- renditions

  const renditionsOf = (n: string) => ({ thumbnailKey: `thumb-${n}`, previewKey: `preview-${n}` });

  test('renditions: set only while the frame shows that file; a new file clears them, the same keeps them', async () => {
    const video = await addItem(fx.root, { type: 'video', frames: [] });
    const mk = (t: string, blobKey = `f-${t}`) => ({ id: newMediaId(), timestamp: t, blobKey, width: 64, height: 36 });
    const [f0, f1] = await s.analysis.syncFrames(video.id, [mk('0'), mk('2')], fx.user.id);
    assert.is(f0.thumbnailKey, null, 'none until made');
    assert.is(f0.previewKey, null);
    assert.ok(await s.analysis.setFrameRenditions(f0.id, 'f-0', renditionsOf('a')));
    assert.ok(await s.analysis.setFrameRenditions(f1.id, 'f-2', renditionsOf('b')));
    assert.not.ok(
      await s.analysis.setFrameRenditions(f1.id, 'another-file', renditionsOf('c')),
      'made from another file',
    );
    let frames = await s.analysis.framesOf(video.id);
    assert.equal(
      frames.map((f) => [f.thumbnailKey, f.previewKey]),
      [
        ['thumb-a', 'preview-a'],
        ['thumb-b', 'preview-b'],
      ],
    );
    assert.is((await s.media.frames([video.id])).get(video.id)![1].previewKey, 'preview-b', 'frame details carry them');

    frames = await s.analysis.syncFrames(video.id, [mk('0'), mk('2', 'f-2-new')], fx.user.id);
    assert.equal(frames[0].thumbnailKey, 'thumb-a', 'the same file keeps its renditions');
    assert.equal([frames[1].thumbnailKey, frames[1].previewKey], [null, null], 'another file needs new ones');

    const found = await s.media.referencedBlobKeys(['thumb-a', 'preview-a', 'thumb-b', 'preview-b', 'thumb-x']);
    assert.equal(sorted([...found]), ['preview-a', 'thumb-a'], 'renditions of the file the frame shows are in use');
    await s.media.softDelete(video.id, fx.user.id);
    assert.equal(
      sorted([...(await s.media.referencedBlobKeys(['thumb-a', 'preview-a']))]),
      ['preview-a', 'thumb-a'],
      'a deleted item keeps its renditions as it keeps its files',
    );
    assert.not.ok(await s.analysis.setFrameRenditions(f1.id, 'f-2-new', renditionsOf('d')), 'not on deleted frames');
  });

  test('renditions: itemsLackingRenditions pages through ready or failed active items with a frame lacking them', async () => {
    const items = [];
    for (let i = 0; i < 5; i++) items.push(await addItem(fx.root, { frames: ['0', '1'] }));
    const [done, half, pending, failed, gone] = items;
    for (const f of await s.analysis.framesOf(done.id))
      await s.analysis.setFrameRenditions(f.id, f.blobKey, renditionsOf(f.id));
    const [first] = await s.analysis.framesOf(half.id);
    await s.analysis.setFrameRenditions(first.id, first.blobKey, renditionsOf(first.id));
    await s.media.setProcessingStatus(pending.id, 'pending', null);
    await s.media.setProcessingStatus(failed.id, 'failed', 'no decoder');
    await s.media.softDelete(gone.id, fx.user.id);
    const want = sorted([half.id, failed.id]);
    assert.equal(
      await s.analysis.itemsLackingRenditions(10),
      want,
      'each item once; not pending, done or deleted ones',
    );
    assert.equal(await s.analysis.itemsLackingRenditions(1), [want[0]]);
    assert.equal(await s.analysis.itemsLackingRenditions(10, want[0]), [want[1]]);
    assert.equal(await s.analysis.itemsLackingRenditions(10, want[1]), []);
  });

  // ---------------------------------------------------------------- events

  const logOf = async (organizationId = fx.org.id, collectionId: string | null = null) =>
    s.events.after({ organizationId, afterId: 0, limit: 1000, collectionId });
  const brief = (events: Awaited<ReturnType<typeof logOf>>) =>
    events.map((e) => `${e.type} ${e.mediaId?.slice(0, 6)} ${String(e.data.status)}`);

  test('events: inserts, status changes, thumbnails and deletes are logged in order, per organization', async () => {
    const F = await folder('F', fx.root);
    const a = await addItem(F.path, { frames: ['0', '1'] });
    await s.media.setProcessingStatus(a.id, 'processing', null);
    await s.media.setProcessingStatus(a.id, 'processing', null); // no change, no event
    const [f0, f1] = await s.analysis.framesOf(a.id);
    await s.analysis.setFrameRenditions(f1.id, f1.blobKey, renditionsOf('1')); // not the item's thumbnail
    await s.analysis.setFrameRenditions(f0.id, f0.blobKey, renditionsOf('0'));
    await s.analysis.setStages(a.id, [{ stage: 'caption', state: 'waiting', model: 'cap' }]); // during an ingest
    await s.media.setProcessingStatus(a.id, 'ready', null);
    await s.analysis.setStages(a.id, [{ stage: 'caption', state: 'done', model: 'cap' }]); // a catch-up
    await s.analysis.setStages(a.id, [{ stage: 'caption', state: 'done', model: 'cap' }]); // nothing changed
    const v = await addItem(F.path, { rootId: a.id });
    await s.media.deleteVersion(a.id, v.id, fx.user.id);
    await s.media.softDelete(F.id, fx.user.id);
    const id = (m: { id: string }) => m.id.slice(0, 6);
    const log = await logOf();
    assert.equal(brief(log), [
      `media.created ${id(F)} ready`,
      `media.created ${id(a)} ready`,
      `media.status ${id(a)} processing`,
      `media.thumbnail ${id(a)} processing`,
      `media.status ${id(a)} ready`,
      `media.status ${id(a)} ready`,
      `media.created ${id(v)} ready`,
      `media.deleted ${id(v)} deleted`,
      `media.deleted ${id(F)} deleted`,
    ]);
    assert.ok(
      log.every((e, i) => i === 0 || e.id > log[i - 1].id),
      'ids increase',
    );
    const [readyEvent, catchUp] = log.filter((e) => e.type === 'media.status' && e.data.status === 'ready');
    assert.equal(readyEvent.data.waiting, [{ stage: 'caption', model: 'cap' }]);
    assert.equal(catchUp.data.waiting, []);
    const item = (await s.media.get(a.id))!;
    assert.equal(
      { ...readyEvent, id: 0, createdAt: '' },
      {
        id: 0,
        type: 'media.status',
        organizationId: fx.org.id,
        collectionId: fx.coll.id,
        mediaId: a.id,
        data: {
          mediaType: 'image',
          name: item.name,
          path: item.path,
          parentPath: F.path,
          rootMediaId: a.id,
          status: 'ready',
          reason: null,
          waiting: [{ stage: 'caption', model: 'cap' }],
        },
        createdAt: '',
      },
    );
    assert.is(log.at(-1)!.data.deletedCount, 2, 'the folder and the item beneath');
    assert.is(log.at(-2)!.data.promotedMediaId, a.id);

    await s.media.setProcessingStatus(a.id, 'failed', 'late'); // a deleted item's last job
    assert.is((await logOf()).length, log.length, 'no event about a deleted item');

    const org2 = await s.accounts.createOrganization({ id: newUuid(), name: 'Two', slug: 'two-ev' }, fx.user.id);
    const coll2 = await newCollection(s, org2.id, fx.user.id, 'Two');
    const b = await addItem(pathLabel(coll2.id), { collectionId: coll2.id, organizationId: org2.id });
    assert.equal(brief(await logOf(org2.id)), [`media.created ${id(b)} ready`]);
    assert.is((await logOf()).length, log.length, "another organization's event is not read");
    assert.equal(await logOf(fx.org.id, coll2.id), [], 'narrowed to a collection');
    await s.events.append({
      type: 'job.progress',
      organizationId: fx.org.id,
      collectionId: null,
      mediaId: null,
      data: {},
    });
    assert.equal(
      (await logOf(fx.org.id, coll2.id)).map((e) => e.type),
      ['job.progress'],
      'organization-wide events come whatever the collection',
    );
    assert.is((await s.events.after({ organizationId: fx.org.id, afterId: log[2].id, limit: 2 })).length, 2);
  });

  test('events: append, bounds and trim keep a contiguous run of ids, never reused; onAppend after commit', async () => {
    assert.equal(await s.events.bounds(), { trimmedThrough: 0, latest: 0 });
    const heard: Array<Promise<number>> = [];
    // What a listener reads when called is committed already.
    const off = s.events.onAppend(() => heard.push(s.events.bounds().then((b) => b.latest)));
    const progress = (remaining: number) =>
      s.events.append({
        type: 'job.progress',
        organizationId: fx.org.id,
        collectionId: null,
        mediaId: null,
        data: { job: 'reindex', remaining },
      });
    const e1 = await progress(3);
    assert.is(e1.data.remaining, 3);
    assert.type(e1.createdAt, 'string');
    await new Promise((r) => setImmediate(r));
    assert.equal(await Promise.all(heard), [e1.id]);
    await Promise.all([addItem(fx.root), progress(2), progress(1)]);
    await new Promise((r) => setImmediate(r));
    assert.equal(await Promise.all(heard), [e1.id, e1.id + 3], 'one call for a burst, after all of it');
    off();
    const latest = (await s.events.bounds()).latest;
    assert.is(latest, e1.id + 3);

    assert.is(await s.events.trim(new Date(0).toISOString(), 2), 2, 'all but the newest 2');
    assert.equal(await s.events.bounds(), { trimmedThrough: e1.id + 1, latest });
    assert.is(await s.events.trim(new Date(Date.now() + 60_000).toISOString(), 1000), 2, 'older than the cutoff');
    assert.equal(await s.events.bounds(), { trimmedThrough: latest, latest }, 'an empty log still knows its last id');
    const next = await progress(0);
    assert.is(next.id, latest + 1, 'ids are never reused');
    await new Promise((r) => setImmediate(r));
    assert.is(heard.length, 2, 'an unsubscribed listener hears nothing');
  });

  test('pendingItemJobs: queued and running jobs of a type on the organization’s items', async () => {
    const a = await addItem(fx.root);
    const b = await addItem(fx.root);
    const org2 = await s.accounts.createOrganization({ id: newUuid(), name: 'Two', slug: 'two-jobs' }, fx.user.id);
    const coll2 = await newCollection(s, org2.id, fx.user.id, 'Two');
    const c = await addItem(pathLabel(coll2.id), { collectionId: coll2.id, organizationId: org2.id });
    for (const m of [a, b, c]) await s.jobs.enqueue({ type: 'reembed', payload: { mediaId: m.id }, key: m.id });
    await s.jobs.enqueue({ type: 'other', payload: { mediaId: a.id }, key: a.id });
    assert.is(await s.media.pendingItemJobs('reembed', fx.org.id), 2);
    assert.is(await s.media.pendingItemJobs('reembed', org2.id), 1);
    const job = (await s.jobs.claim('w', ['reembed'], 60_000))!;
    assert.is(await s.media.pendingItemJobs('reembed', fx.org.id), 2, 'running counts');
    await s.jobs.complete(job.id, 'w');
    const left = await s.media.pendingItemJobs('reembed', fx.org.id);
    assert.is(left + (await s.media.pendingItemJobs('reembed', org2.id)), 2, 'done does not');
  });

  test('close: later calls fail', async () => {
    const extra = await open();
    await close(extra);
    await rejects(extra.accounts.countOrganizations(), 'a closed store refuses work');
    await rejects(extra.media.get(newMediaId()), 'a closed store refuses work');
  });

  test.run();
  browseSuite(name, open, close);
  shareSuite(name, open, close);
  trashSuite(name, open, close);
  placesSuite(name, open, close);
  timelineSuite(name, open, close);
}
