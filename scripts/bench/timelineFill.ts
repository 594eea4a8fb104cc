/**
 * The timeline bench's library (scripts/bench/timeline.ts), written into a running test app's database with set
 * statements on either engine: `size` images in the collection's root, capture times evenly over `years` years
 * from 2015 (every tenth without one: placed at its upload time, in 2025), uploaded a minute apart from 2025-01-01.
 * Returns how long it took (ms).
 */
import type { PostgresStorage } from '../../src/storage/postgres/index.js';
import type { SqliteStorage } from '../../src/storage/sqlite/index.js';
import type { TestApp } from '../../test/helpers/testApp.js';

const CHUNK = 50_000;

async function who(app: TestApp) {
  return (await app.request('GET', '/api/me')).body as { userId: string; organizationId: string };
}

export async function openSqliteLibrary(app: TestApp, ds: string, size: number, years: number): Promise<number> {
  const { db } = app.app.services.storage as SqliteStorage;
  const me = await who(app);
  const started = performance.now();
  const insert = db.prepare(
    `WITH RECURSIVE seq(i) AS (SELECT @start UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < @end),
       rows AS (SELECT i, lower(hex(randomblob(16))) AS id FROM seq)
     INSERT INTO media (id, dataset_id, organization_id, path, parent_path, type, name, blob_key, mime_type,
       width, height, duration, size_bytes, exif, metadata, status, processing_status, root_id, is_current,
       created_at, updated_at, created_by, taken_at)
     SELECT id, @ds, @org, @root || '.' || id, @root, 'image', 'IMG_' || printf('%07d', i) || '.jpg', id || '.jpg',
       'image/jpeg', 1, 1, NULL, 1, '{}', '{}', 'active', 'ready', id, 1,
       strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01', '+' || i || ' minutes'),
       strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01', '+' || i || ' minutes'), @user,
       CASE WHEN i % 10 = 9 THEN NULL
         ELSE strftime('%Y-%m-%dT%H:%M:%fZ', '2015-01-01', '+' || CAST(i * @step AS INTEGER) || ' minutes') END
     FROM rows`,
  );
  const step = (years * 365 * 1440) / size;
  const root = ds.replace(/-/g, '');
  for (let start = 0; start < size; start += CHUNK) {
    const end = Math.min(size, start + CHUNK);
    db.transaction(() => insert.run({ start, end, ds, org: me.organizationId, root, user: me.userId, step }))();
  }
  return performance.now() - started;
}

export async function openPgLibrary(app: TestApp, ds: string, size: number, years: number): Promise<number> {
  const { db } = app.app.services.storage as PostgresStorage;
  const me = await who(app);
  const started = performance.now();
  const step = (years * 365 * 1440) / size;
  const root = ds.replace(/-/g, '');
  for (let start = 0; start < size; start += CHUNK) {
    const end = Math.min(size, start + CHUNK);
    await db.query(
      `INSERT INTO media (id, dataset_id, organization_id, path, parent_path, type, name, blob_key, mime_type,
         width, height, size_bytes, status, processing_status, root_id, is_current, created_at, updated_at,
         created_by, taken_at)
       SELECT id, $1, $2, ($3 || '.' || id)::ltree, $3::ltree, 'image', 'IMG_' || lpad(i::text, 7, '0') || '.jpg',
         id || '.jpg', 'image/jpeg', 1, 1, 1, 'active', 'ready', id, true, ts, ts, $4,
         CASE WHEN i % 10 = 9 THEN NULL
           ELSE to_char(timestamp '2015-01-01' + floor(i * $7::float8) * interval '1 minute',
             'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') END
       FROM (SELECT i, md5(random()::text || i::text) AS id, timestamptz '2025-01-01 00:00Z' + i * interval '1 minute' AS ts
             FROM generate_series($5::int, $6::int - 1) AS i) s`,
      [ds, me.organizationId, root, me.userId, start, end, step],
    );
  }
  await db.query('VACUUM ANALYZE media');
  return performance.now() - started;
}
