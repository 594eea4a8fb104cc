/**
 * pgvector index fixtures on PGlite (or TEST_DATABASE_URL): a fresh schema migrated with the library and
 * vector sets, object_embeddings written with plain SQL (what the PostgreSQL analysis store will do; the
 * vector migration's triggers index them), and the media, frames and objects rows the liveness triggers and
 * coverage read, also in plain SQL until the PostgreSQL media and analysis stores land.
 */
import {
  pgVectorIndex,
  type PgVectorIndex,
  type PgVectorTuning,
} from '../../../src/index/vector/postgres/pgVectorIndex.js';
import { vectorBytes, normalize } from '../../../src/index/vector/math.js';
import type { VectorRow } from '../../../src/index/vector/types.js';
import { openPgDb, type PgDb, type PgRunner } from '../../../src/platform/pgDb.js';
import { LIBRARY_MIGRATIONS, migratePg, VECTOR_MIGRATIONS } from '../../../src/storage/postgres/migrate.js';
import { freshSchema, pglite } from '../../helpers/pglite.js';
import { postgresServer } from '../../helpers/postgresServer.js';
import type { VectorFixture } from './vectorSuite.js';

const server = process.env.TEST_DATABASE_URL ? await postgresServer() : await pglite();

/** Whether the server has pgvector (PGlite does; Debian's PostgreSQL 15 does not). */
export const hasVector = server.vector;

/** A fresh schema, migrated (the vector set only when `vector`), and its pool. */
export async function openSchema(vector = true): Promise<PgDb> {
  const db = openPgDb(server.url, { schema: freshSchema('v'), max: 4 });
  await migratePg(db, vector ? [LIBRARY_MIGRATIONS, VECTOR_MIGRATIONS] : [LIBRARY_MIGRATIONS]);
  return db;
}

/** Writes embeddings as the analysis store does: INSERT … ON CONFLICT DO UPDATE into object_embeddings. */
export async function putEmbeddings(db: PgRunner, rows: VectorRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) {
    const batch = rows.slice(i, i + 500);
    await db.query(
      `INSERT INTO object_embeddings (object_id, model_id, similarity_model, media_id, dataset_id, dims, vector, created_at)
       SELECT *, now() FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::bytea[])
       ON CONFLICT (object_id, model_id) DO UPDATE SET similarity_model = excluded.similarity_model,
         media_id = excluded.media_id, dataset_id = excluded.dataset_id, dims = excluded.dims, vector = excluded.vector`,
      [
        batch.map((r) => r.objectId),
        batch.map((r) => r.modelId),
        batch.map((r) => r.similarityModel),
        batch.map((r) => r.mediaId),
        batch.map((r) => r.collectionId),
        batch.map((r) => r.vector.length),
        batch.map((r) => Buffer.from(vectorBytes(normalize(r.vector)))),
      ],
    );
  }
}

/**
 * The suite's fixture: upsert() as SQLite's test does (the suite's rows have no detected_objects row to
 * take the frame id from, so upsert gives it), then the embeddings, whose triggers find the entries as
 * they would write them and leave them alone.
 */
export async function openFixture(tuning?: PgVectorTuning): Promise<VectorFixture & { db: PgDb; ix: PgVectorIndex }> {
  const db = await openSchema();
  const ix = pgVectorIndex(db, { enabled: true, tuning });
  return {
    db,
    ix,
    async put(rows) {
      await ix.upsert(rows);
      await putEmbeddings(db, rows);
    },
    close: () => db.close(),
  };
}

let seq = 0;
const id = (p: string) => `${p}${(++seq).toString(36).padStart(6, '0')}`;

/** An organization, a user and collections, in plain SQL. */
export async function seedLibrary(db: PgRunner, collections = 2): Promise<{ orgId: string; colls: string[] }> {
  const orgId = id('org');
  const userId = id('usr');
  await db.query(`INSERT INTO organizations (id, name, slug, created_at) VALUES ($1, 'Org', $1, now())`, [orgId]);
  await db.query(`INSERT INTO users (id, email, name, created_at) VALUES ($1, $1 || '@example.com', 'U', now())`, [
    userId,
  ]);
  const colls: string[] = [];
  for (let i = 0; i < collections; i++) {
    const c = id('col');
    await db.query(
      `INSERT INTO collections (id, organization_id, name, created_at, updated_at, created_by)
       VALUES ($1, $2, $1, now(), now(), $3)`,
      [c, orgId, userId],
    );
    colls.push(c);
  }
  return { orgId, colls };
}

/** An active, current image with one frame, in plain SQL. */
export async function addImage(
  db: PgRunner,
  orgId: string,
  collId: string,
): Promise<{ mediaId: string; frameId: string }> {
  const mediaId = id('med');
  const frameId = id('frm');
  await db.query(
    `INSERT INTO media (id, dataset_id, organization_id, path, parent_path, type, name, processing_status, root_id,
       created_at, updated_at, created_by)
     VALUES ($1, $2, $3, text2ltree($2 || '.' || $1), text2ltree($2), 'image', $1, 'ready', $1, now(), now(), 'u')`,
    [mediaId, collId, orgId],
  );
  await db.query(
    `INSERT INTO frames (id, media_id, timestamp, seconds, blob_key, width, height, created_at, updated_at, created_by)
     VALUES ($1, $2, '0', 0, $1, 64, 64, now(), now(), 'u')`,
    [frameId, mediaId],
  );
  return { mediaId, frameId };
}

/** An active detected object on the frame, in plain SQL (its embedding is written apart, as the store does). */
export async function addObject(
  db: PgRunner,
  frame: { mediaId: string; frameId: string },
  similarityModel: string | null = 'objects',
): Promise<string> {
  const objectId = id('obj');
  await db.query(
    `INSERT INTO detected_objects (id, frame_id, media_id, type, label, polygon, model, created_at, updated_at,
       similarity_model)
     VALUES ($1, $2, $3, 'thing', 'x', '[]', 'det:test', now(), now(), $4)`,
    [objectId, frame.frameId, frame.mediaId, similarityModel],
  );
  return objectId;
}
