/**
 * The media store on Debian's PostgreSQL 15 (a real multi-process server, no pgvector: vectorSearch off):
 * the browse and import contract suites, and what PGlite's one shared backend cannot show — concurrent
 * writers on separate connections: versions of one root, reused folders, the storage counter, metadata
 * read-modify-write; and the listings on a database whose default collation is not byte order. Skips with
 * a message where that server is not installed.
 */
import pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newMediaId, newUuid, nowIso, pathLabel } from '../../src/platform/ids.js';
import { openPostgresStorage } from '../../src/storage/postgres/index.js';
import type { Storage } from '../../src/storage/storage.js';
import type { NewMedia } from '../../src/storage/types.js';
import { freshSchema } from '../helpers/pglite.js';
import { postgresServer, postgresServerMissing } from '../helpers/postgresServer.js';
import { browseSuite } from './browseSuite.js';
import { importSuite } from './importSuite.js';
import { NO_FILTERS } from '../../src/storage/browseQuery.js';

const missing = postgresServerMissing();
if (missing) {
  console.log(`SKIP media store on PostgreSQL 15: ${missing}`);
} else {
  const server = await postgresServer();
  // A database whose default collation is not byte order (ICU en-US sorts 'é' between 'B' and 'f', and
  // '_z' first): listings and content lookups must still compare as SQLite does. Made before any suite is
  // registered (uvu starts running at the first one).
  const icu = await icuDatabase(server.url);
  const open = () => openPostgresStorage(server.url, { schema: freshSchema('m'), vectorSearch: false, poolMax: 12 });
  const openIcu = () => openPostgresStorage(icu, { schema: freshSchema('icu'), vectorSearch: false });
  browseSuite('postgres 15', open);
  importSuite('postgres 15', open);
  concurrencySuite(open);
  browseSuite('postgres 15, ICU en-US collation', openIcu);
  importSuite('postgres 15, ICU en-US collation', openIcu);
}

/** A database beside `url`'s whose default collation is ICU's en-US; its URL. */
async function icuDatabase(url: string): Promise<string> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const name = `media_icu_${process.pid}`;
    await client.query(
      `CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'`,
    );
    const u = new URL(url);
    u.pathname = `/${name}`;
    return u.toString();
  } finally {
    await client.end();
  }
}

interface Fx {
  s: Storage;
  userId: string;
  orgId: string;
  collectionId: string;
  root: string;
}

async function fixture(s: Storage): Promise<Fx> {
  const userId = newUuid();
  await s.accounts.createUser({ id: userId, email: `c-${userId}@example.com`, name: 'C', createdAt: nowIso() });
  const orgId = newUuid();
  await s.accounts.createOrganization({ id: orgId, name: 'C', slug: `c-${orgId}` }, userId);
  const collectionId = newUuid();
  const at = nowIso();
  await s.collections.create({
    id: collectionId,
    organizationId: orgId,
    name: 'C',
    icon: null,
    type: 'media',
    createdAt: at,
    updatedAt: at,
    createdById: userId,
  });
  return { s, userId, orgId, collectionId, root: pathLabel(collectionId) };
}

function item(fx: Fx, over: Partial<NewMedia> = {}): NewMedia {
  const id = newMediaId();
  return {
    id,
    collectionId: fx.collectionId,
    organizationId: fx.orgId,
    parentPath: fx.root,
    type: 'image',
    name: `i-${id.slice(0, 6)}.jpg`,
    blobKey: `blob-${id}`,
    mimeType: 'image/jpeg',
    width: 1,
    height: 1,
    duration: null,
    sizeBytes: 10,
    exif: {},
    metadata: {},
    processingStatus: 'ready',
    createdById: fx.userId,
    ...over,
  };
}

function concurrencySuite(open: () => Promise<Storage>): void {
  const test = suite('storage: postgres 15: concurrent media writers');
  let fx: Fx;
  test.before.each(async () => {
    fx = await fixture(await open());
  });
  test.after.each(async () => fx.s.close());

  const live = async () =>
    (
      await fx.s.media.browse({
        collectionId: fx.collectionId,
        path: fx.root,
        recursive: true,
        ...NO_FILTERS,
        sortBy: 'createdAt',
        sortDirection: 'asc',
        limit: 100,
        offset: 0,
      })
    ).items;

  test('versions of one root inserted at once: exactly one is current', async () => {
    const original = await fx.s.media.insert(item(fx), []);
    await Promise.all(Array.from({ length: 8 }, () => fx.s.media.insert(item(fx, { rootId: original.id }), [])));
    const versions = await fx.s.media.listVersions(original.id);
    assert.is(versions.length, 9);
    assert.is(versions.filter((v) => v.isCurrent).length, 1);
    assert.is((await live()).length, 1);
  });

  test('selectVersion of different versions at once: exactly one is current', async () => {
    const original = await fx.s.media.insert(item(fx), []);
    const made = [original];
    for (let i = 0; i < 5; i++) made.push(await fx.s.media.insert(item(fx, { rootId: original.id }), []));
    await Promise.all(made.map((v) => fx.s.media.selectVersion(v.id, fx.userId)));
    const versions = await fx.s.media.listVersions(original.id);
    assert.is(versions.filter((v) => v.isCurrent).length, 1);
  });

  test('insertFolder with reuse at once: one folder, every caller gets it', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        fx.s.media.insertFolder(item(fx, { type: 'folder', name: 'Trip', blobKey: null, sizeBytes: 0 }), true),
      ),
    );
    assert.is(new Set(results.map((r) => r.folder.id)).size, 1);
    assert.is(results.filter((r) => r.created).length, 1);
  });

  test('inserts and deletes at once keep the storage counter exact', async () => {
    const made = await Promise.all(Array.from({ length: 20 }, () => fx.s.media.insert(item(fx), [])));
    assert.is((await fx.s.accounts.getOrganization(fx.orgId))!.storageBytes, 200);
    await Promise.all(made.slice(0, 7).map((m) => fx.s.media.softDelete(m.id, fx.userId)));
    assert.is((await fx.s.accounts.getOrganization(fx.orgId))!.storageBytes, 130);
  });

  test('mutateMetadata at once: each reads the one before it (no lost update)', async () => {
    const m = await fx.s.media.insert(item(fx, { metadata: { n: 0 } }), []);
    await Promise.all(
      Array.from({ length: 10 }, () =>
        fx.s.media.mutateMetadata(m.id, fx.userId, (meta) => ({ ...meta, n: (meta.n as number) + 1 })),
      ),
    );
    assert.is((await fx.s.media.get(m.id))!.metadata.n, 10);
  });

  test.run();
}
