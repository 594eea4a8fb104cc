/**
 * A damaged library.db at start, end to end (issue #29), as an operator lives it: a library with a backup in
 * BACKUP_DIR (made by `npm run backup`), pages of its database overwritten, the real server refusing to start with
 * one line, the restore command that line names run exactly as written (`npm run restore -- …`), and the server
 * starting again on the restored library with every item there.
 */
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sqliteOnly } from '../helpers/engine.js';
import { runTsx } from '../helpers/runTsx.js';
import { makeImage, startTestApp, waitForProcessing } from '../helpers/testApp.js';

const run = (args: string[], env: Record<string, string>) => runTsx(args, { env });

const t = suite('a damaged database at start');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'damaged-db-'));
t.after(() => rmSync(scratch, { recursive: true, force: true }));

t(
  'the start is refused with one line naming the restore; that line, run as written, brings the library back',
  async () => {
    const dataDir = path.join(scratch, 'data');
    const backupDir = path.join(scratch, 'backups');
    const first = await startTestApp({ dataDir });
    const collection = await first.collection('kept');
    const up = await first.upload({ datasetId: collection }, { bytes: await makeImage(), filename: 'kept.jpg' });
    assert.is(up.status, 200, JSON.stringify(up.body));
    await waitForProcessing(first, up.body.mediaId);
    await first.close();
    const backup = await run(['scripts/backup.ts', '--to', backupDir], { DATA_DIR: dataDir });
    assert.is(backup.code, 0, backup.stderr);

    // Garbage over pages in the middle of the file (the b-tree pages quick_check reads).
    const file = path.join(dataDir, 'library.db');
    const fd = openSync(file, 'r+');
    const size = statSync(file).size;
    for (let at = 8 * 4096; at < size - 4096; at += 16 * 4096) writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, at);
    closeSync(fd);
    const env = { DATA_DIR: dataDir, BACKUP_DIR: backupDir, DB_CHECK_AT_START: 'always' };
    const refused = await run(['src/main.ts'], env);
    assert.is(refused.code, 1, refused.stderr);
    const lines = refused.stderr.trim().split('\n');
    assert.is(lines.length, 1, refused.stderr);
    const command = /`npm run restore -- ([^`]+)`/.exec(lines[0]);
    assert.ok(command, lines[0]);
    assert.is(command![1], `--from ${backupDir} --to ${dataDir} --force`);

    // `npm run restore -- ARGS` is `tsx scripts/restore.ts ARGS` (package.json).
    const restored = await run(['scripts/restore.ts', ...command![1].split(' ')], { DATA_DIR: dataDir });
    assert.is(restored.code, 0, restored.stderr);
    const again = await startTestApp({ dataDir }, { DB_CHECK_AT_START: 'always' });
    try {
      const item = await again.request('GET', `/api/media/${up.body.mediaId}`);
      assert.is(item.status, 200, JSON.stringify(item.body));
      assert.is(item.body.media.name, 'kept.jpg');
    } finally {
      await again.close();
    }
  },
);

// It damages library.db's pages: a PostgreSQL library's damage is its server's to detect.
if (!sqliteOnly('damages library.db and restores it with npm run restore')) t.run();
