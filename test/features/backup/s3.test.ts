/**
 * Backups of a library whose files are on S3 (issue #29): the files the database references are read from the
 * bucket into the backup, and a restore puts them into another bucket, byte for byte (s3rver on 127.0.0.1).
 * The database is a stand-in here (its own tests are backupRestore.test.ts): this is about the files.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createBackup, type BackupDeps } from '../../../src/features/backup/createBackup.js';
import { restoreBackup } from '../../../src/features/backup/restoreBackup.js';
import { startS3 } from '../../files/s3Server.js';

const s3 = await startS3();
const t = suite('backup of an S3 library');
t.after(() => s3.stop());

t('the files come from the bucket into the backup, and from the backup into another bucket', async () => {
  const source = await s3.harness();
  const target = await s3.harness();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'mlib-s3-backup-'));
  try {
    await source.store.init();
    await target.store.init();
    const contents = ['first photo', 'second photo', 'a thumbnail'].map((s) => Buffer.from(s));
    const keys: string[] = [];
    for (const [i, bytes] of contents.entries())
      keys.push((await source.store.putBuffer(bytes, i < 2 ? 'jpg' : 'webp')).key);
    const absent = `${'0'.repeat(64)}.jpg`;
    const storage = {
      backupTo: async (file: string) => {
        writeFileSync(file, 'a database');
        return { blobKeys: [...keys, absent] };
      },
    } as unknown as BackupDeps['storage'];
    const config = { databaseUrl: undefined, databaseSchema: 'public' };
    const manifest = await createBackup({ storage, blobs: source.store, config }, { to: path.join(tmp, 'bk') });
    assert.equal(manifest.files.map((f) => f.key).sort(), [...keys].sort());
    assert.equal(manifest.missing, [absent], 'a referenced file the bucket lacks is named');
    const restored = await restoreBackup(
      { blobs: target.store },
      { from: path.join(tmp, 'bk'), dataDir: path.join(tmp, 'data') },
    );
    assert.is(restored.files, 3);
    for (const [i, key] of keys.entries()) assert.ok((await target.store.readBuffer(key)).equals(contents[i]), key);
  } finally {
    await source.close();
    await target.close();
    rmSync(tmp, { recursive: true, force: true });
  }
});

t.run();
