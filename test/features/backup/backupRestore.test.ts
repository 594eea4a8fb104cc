/**
 * Backups and restore (issue #29): a backup made by `npm run backup` while uploads and ingest go on restores
 * every item acknowledged before it began, byte for byte; a second backup copies only new files; restore
 * refuses a damaged backup (a flipped byte, a missing file, a changed database), naming it, and a live
 * DATA_DIR without --force; with it, files the restored database does not know go to quarantine. PostgreSQL
 * without pg_dump is refused with one line.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createBackup } from '../../../src/features/backup/createBackup.js';
import { checkIntegrity } from '../../../src/features/backup/integrity.js';
import { backupBlobPath, listBackupDirs, type BackupManifest } from '../../../src/features/backup/manifest.js';
import { pruneBackups } from '../../../src/features/backup/prune.js';
import { quarantineDir, quarantineUntracked } from '../../../src/features/backup/repair.js';
import { restoreBackup } from '../../../src/features/backup/restoreBackup.js';
import { LocalBlobStore } from '../../../src/files/localBlobStore.js';
import { DomainError } from '../../../src/platform/errors.js';
import { openSqliteStorage } from '../../../src/storage/sqlite/index.js';
import { sqliteOnly } from '../../helpers/engine.js';
import { makeImage, startTestApp, waitForProcessing, type TestApp } from '../../helpers/testApp.js';

const run = promisify(execFile);
const t = suite<{ app: TestApp; ds: string; tmp: string }>('backup and restore');
t.before(async (ctx) => {
  ctx.app = await startTestApp();
  ctx.ds = await ctx.app.collection('Backups');
  ctx.tmp = mkdtempSync(path.join(os.tmpdir(), 'mlib-backup-'));
});
t.after(async (ctx) => {
  await ctx.app.close();
  rmSync(ctx.tmp, { recursive: true, force: true });
});

let colour = 0;
/** A new image (a colour never used before, so a blob of its own) uploaded; its id and bytes. */
async function uploadOne(app: TestApp, ds: string): Promise<{ id: string; bytes: Buffer }> {
  colour++;
  const bytes = await makeImage({ color: { r: colour % 256, g: (colour * 7) % 256, b: 90 }, width: 80, height: 60 });
  const up = await app.upload({ datasetId: ds }, { bytes, filename: `p${colour}.jpg`, type: 'image/jpeg' });
  assert.is(up.status, 200, JSON.stringify(up.body));
  return { id: up.body.media.id, bytes };
}

/** Opens a restored DATA_DIR's library the way the tools do. */
function openRestored(dataDir: string) {
  return { storage: openSqliteStorage(path.join(dataDir, 'library.db')), blobs: new LocalBlobStore(dataDir) };
}

/** Runs `npm run backup` (the script itself) against the test server's DATA_DIR. */
async function backupCli(dataDir: string, to: string): Promise<string> {
  const env = { ...process.env, DATA_DIR: dataDir, MODEL_PROFILE: 'test', LOG_LEVEL: 'silent' };
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/backup.ts', '--to', to], { env });
  return stdout;
}

t('a backup made during uploads and ingest restores every item acknowledged before it, byte for byte', async (ctx) => {
  const acked = new Map<string, Buffer>();
  for (let i = 0; i < 6; i++) {
    const u = await uploadOne(ctx.app, ctx.ds);
    acked.set(u.id, u.bytes);
  }
  // Uploads go on while the backup runs; ingest is busy with the items above.
  let uploading = true;
  const during = (async () => {
    let n = 0;
    while (uploading) {
      await uploadOne(ctx.app, ctx.ds);
      n++;
    }
    return n;
  })();
  const before = new Map(acked);
  const root = path.join(ctx.tmp, 'during');
  const out = await backupCli(ctx.app.dataDir, root);
  uploading = false;
  const uploadedDuring = await during;
  assert.match(out, /backup \S+ in .*: database .* files/);
  assert.ok(uploadedDuring > 0, 'uploads went on during the backup');
  const target = path.join(ctx.tmp, 'restored-during');
  const result = await restoreBackup({ blobs: await initStore(target) }, { from: root, dataDir: target });
  assert.ok(result.files >= before.size);
  const restored = openRestored(target);
  try {
    for (const [id, bytes] of before) {
      const media = await restored.storage.media.get(id);
      assert.ok(media, `item ${id} restored`);
      assert.ok((await restored.blobs.readBuffer(media!.blobKey!)).equals(bytes), `item ${id}: same bytes`);
    }
    const report = await checkIntegrity({ ...restored, config: { dataDir: target } }, 0);
    assert.ok(report.ok, `the restored library passes the integrity report: ${JSON.stringify(report.counts)}`);
  } finally {
    await restored.storage.close();
  }
});

async function initStore(dataDir: string) {
  const store = new LocalBlobStore(dataDir);
  await store.init();
  return store;
}

t('a second backup into the same folder copies only the files that are new', async (ctx) => {
  const u = await uploadOne(ctx.app, ctx.ds);
  await waitForProcessing(ctx.app, u.id);
  const deps = ctx.app.app.services;
  const root = path.join(ctx.tmp, 'incremental');
  const first = await createBackup(deps, { to: root });
  assert.ok(first.copied.files > 0 && first.copied.files === first.files.length);
  const again = await createBackup(deps, { to: root });
  assert.is(again.copied.files, 0, 'nothing new: nothing copied');
  assert.is(again.files.length, first.files.length);
  const v = await uploadOne(ctx.app, ctx.ds);
  await waitForProcessing(ctx.app, v.id);
  const third = await createBackup(deps, { to: root });
  const known = new Set(first.files.map((f) => f.key));
  const fresh = third.files.filter((f) => !known.has(f.key));
  assert.ok(fresh.length >= 2, 'the new item brought its original and its derived files');
  assert.is(third.copied.files, fresh.length, 'only the new files were copied');
  assert.is(
    third.copied.bytes,
    fresh.reduce((n, f) => n + f.size, 0),
  );
  assert.is((await listBackupDirs(root)).length, 3, 'three dated backups sharing one files/ folder');
  // Keeping the newest only: the older folders go; their files stay where the newest still lists them.
  const pruned = await pruneBackups(root, 1);
  assert.equal(pruned.removed, [first.id, again.id]);
  assert.is(pruned.files, 0, 'every file of the older backups is in the newest one too');
  const target = path.join(ctx.tmp, 'after-prune');
  const restored = await restoreBackup({ blobs: await initStore(target) }, { from: root, dataDir: target });
  assert.is(restored.backupId, third.id);
});

/** A copy of a backup folder, damaged by `harm`; what restoring it says. */
async function restoreDamaged(ctx: { tmp: string }, root: string, harm: (copy: string, m: BackupManifest) => void) {
  const copy = mkdtempSync(path.join(ctx.tmp, 'damaged-'));
  cpSync(root, copy, { recursive: true });
  const [found] = await listBackupDirs(copy);
  harm(copy, found.manifest!);
  const target = mkdtempSync(path.join(ctx.tmp, 'target-'));
  try {
    await restoreBackup({ blobs: await initStore(target) }, { from: found.dir, dataDir: target });
  } catch (err) {
    assert.instance(err, DomainError);
    assert.not.ok(existsSync(path.join(target, 'library.db')), 'nothing restored');
    return (err as Error).message;
  }
  throw new Error('a damaged backup was restored');
}

t('restore refuses a damaged backup, naming what is wrong', async (ctx) => {
  const root = path.join(ctx.tmp, 'to-damage');
  const manifest = await createBackup(ctx.app.app.services, { to: root });
  const [a, b] = manifest.files;
  const flipped = await restoreDamaged(ctx, root, (copy) => {
    const file = backupBlobPath(copy, a.key);
    const bytes = readFileSync(file);
    bytes[bytes.length >> 1] ^= 0x01;
    writeFileSync(file, bytes);
  });
  assert.match(flipped, `${a.key}: sha256 does not match`);
  const missing = await restoreDamaged(ctx, root, (copy) => unlinkSync(backupBlobPath(copy, b.key)));
  assert.match(missing, `${b.key}: missing`);
  const changedDb = await restoreDamaged(ctx, root, (copy, m) => {
    const file = path.join(copy, m.id, 'library.db');
    writeFileSync(file, Buffer.concat([readFileSync(file), Buffer.from('x')]));
  });
  assert.match(changedDb, 'library.db: checksum does not match');
});

t('restore refuses a DATA_DIR that holds a library unless --force, and then moves it aside', async (ctx) => {
  const root = path.join(ctx.tmp, 'live');
  await createBackup(ctx.app.app.services, { to: root });
  const target = path.join(ctx.tmp, 'live-target');
  await restoreBackup({ blobs: await initStore(target) }, { from: root, dataDir: target });
  const blobs = await initStore(target);
  try {
    await restoreBackup({ blobs }, { from: root, dataDir: target });
    assert.unreachable('restored over a library');
  } catch (err) {
    assert.instance(err, DomainError);
    assert.is((err as DomainError).code, 'conflict');
    assert.match((err as Error).message, /already holds a library .*--force/);
  }
  // A file of the library there that the backup's database does not know (an upload newer than the backup).
  const newer = await blobs.putBuffer(Buffer.from('uploaded after the backup'), 'jpg');
  const forced = await restoreBackup({ blobs }, { from: root, dataDir: target, force: true });
  assert.ok(forced.movedAside && existsSync(path.join(forced.movedAside, 'library.db')), 'the old one kept');
  assert.ok(readdirSync(target).includes('library.db'));
  const restored = openRestored(target);
  try {
    assert.is(await quarantineUntracked({ ...restored, config: { dataDir: target } }, 0), 1);
    assert.ok(
      existsSync(path.join(quarantineDir(target), newer.key)),
      'set aside for the start-up sweep not to delete',
    );
  } finally {
    await restored.storage.close();
  }
});

t('a PostgreSQL library without pg_dump on PATH is refused with one line, leaving nothing', async (ctx) => {
  const root = path.join(ctx.tmp, 'pg');
  const path0 = process.env.PATH;
  process.env.PATH = path.join(ctx.tmp, 'no-binaries-here');
  try {
    const config = { databaseUrl: 'postgres://u:p@127.0.0.1:1/db', databaseSchema: 'public' };
    await createBackup({ ...ctx.app.app.services, config }, { to: root });
    assert.unreachable('backed up without pg_dump');
  } catch (err) {
    assert.instance(err, DomainError);
    assert.match((err as Error).message, 'pg_dump is not on PATH');
  } finally {
    process.env.PATH = path0;
  }
  assert.equal(await listBackupDirs(root), [], 'no backup folder left behind');
});

// `npm run backup` of DATA_DIR copies library.db and restores it: a PostgreSQL library's backup is pg_dump's
// (test/features/backup/pgDump.test.ts, against Debian's server).
if (!sqliteOnly('backup and restore of library.db (PostgreSQL: test/features/backup/pgDump.test.ts)')) t.run();
