/**
 * A PostgreSQL library's backup (issue #29): `pg_dump -Fc` of its schema into the backup's folder, with the files
 * its rows reference, and a restore that refuses it with the pg_restore command to run. Against Debian's server
 * (test/helpers/postgresServer.ts); skipped with a message without it. The files' listing is the stores' own
 * (MediaStore.blobReferences), here a SQLite library's, as the PostgreSQL store's is not written yet.
 */
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createBackup } from '../../../src/features/backup/createBackup.js';
import { restoreBackup } from '../../../src/features/backup/restoreBackup.js';
import { LocalBlobStore } from '../../../src/files/localBlobStore.js';
import { DomainError } from '../../../src/platform/errors.js';
import { postgresServer, postgresServerMissing } from '../../helpers/postgresServer.js';
import { makeImage, startTestApp, waitForProcessing } from '../../helpers/testApp.js';

const t = suite('backup of a PostgreSQL library');
const missing = postgresServerMissing();

t('pg_dump -Fc into the backup, the files beside it; restore names pg_restore', async () => {
  if (missing) return console.log(`SKIP pg_dump backup: ${missing}`);
  const server = await postgresServer();
  const app = await startTestApp();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'mlib-pgdump-'));
  try {
    const ds = await app.collection('Pg');
    const up = await app.upload({ datasetId: ds }, { bytes: await makeImage(), filename: 'a.jpg', type: 'image/jpeg' });
    await waitForProcessing(app, up.body.media.id);
    const config = { databaseUrl: server.url, databaseSchema: 'public' };
    const manifest = await createBackup({ ...app.app.services, config }, { to: path.join(tmp, 'bk') });
    assert.is(manifest.engine, 'postgres');
    assert.is(manifest.database.file, 'library.pgdump');
    const dump = readFileSync(path.join(tmp, 'bk', manifest.id, 'library.pgdump'));
    assert.is(dump.subarray(0, 5).toString(), 'PGDMP', "pg_dump's custom format");
    assert.ok(manifest.files.length >= 3, 'the files the rows reference');
    const blobs = new LocalBlobStore(path.join(tmp, 'target'));
    await blobs.init();
    try {
      await restoreBackup({ blobs }, { from: path.join(tmp, 'bk'), dataDir: path.join(tmp, 'target') });
      assert.unreachable('restored a PostgreSQL backup as a SQLite one');
    } catch (err) {
      assert.instance(err, DomainError);
      assert.match((err as Error).message, /pg_restore --clean --dbname "\$DATABASE_URL" .*library\.pgdump/);
    }
  } finally {
    await app.close();
    await server.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
});

t.run();
