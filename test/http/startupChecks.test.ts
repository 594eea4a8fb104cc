/**
 * What the server says at start when it cannot or should not serve (issue #29), as an operator sees it: the
 * real src/main.ts in a child process, its exit code and its stderr.
 * - DATA_DIR this user cannot write (a bind-mounted /data owned by another user): one line naming the
 *   directory, the user id and the fix — not SQLite's "unable to open database file". Run as root, the test
 *   starts the server as user 65534 (root may write anywhere); otherwise it takes the write bit away.
 * - A damaged library.db: one line saying how to restore, and the file is not written to (the check runs
 *   after a stop that did not close the database, or always with DB_CHECK_AT_START=always).
 * - The setup link: with PUBLIC_URL it is that address; without, the message says the host part must be
 *   replaced with the server's address.
 */
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
  closeSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { setupMessage } from '../../src/features/accounts/setup.js';
import { openSqliteStorage } from '../../src/storage/sqlite/index.js';
import { checkDatabaseFile, markClosedCleanly } from '../../src/storage/sqlite/integrity.js';
import { sqliteOnly } from '../helpers/engine.js';
import { runTsx } from '../helpers/runTsx.js';

const AS_ROOT = process.getuid?.() === 0;
const OTHER_UID = 65534;

/** Runs src/main.ts until it exits (or 60 s); its exit code and stderr. */
const startServer = (dataDir: string, opts: { uid?: number } = {}) =>
  runTsx(['src/main.ts'], { env: { DATA_DIR: dataDir, HOST: '127.0.0.1' }, uid: opts.uid });

const t = suite('start-up checks');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'startup-checks-'));
chmodSync(scratch, 0o755);
t.after(() => rmSync(scratch, { recursive: true, force: true }));

t('a DATA_DIR this user cannot write stops the start with one line naming it, the user and the fix', async () => {
  const dataDir = path.join(scratch, 'data');
  mkdirSync(dataDir, { mode: 0o755 });
  if (!AS_ROOT) chmodSync(dataDir, 0o555);
  const { code, stderr } = await startServer(dataDir, AS_ROOT ? { uid: OTHER_UID } : {});
  const uid = AS_ROOT ? OTHER_UID : process.getuid!();
  assert.is(code, 1, stderr);
  const lines = stderr.trim().split('\n');
  assert.is(lines.length, 1, stderr);
  assert.match(lines[0], `failed to start: DATA_DIR ${dataDir} is not writable by this process (user id ${uid}`);
  assert.match(lines[0], `chown -R ${uid}:`);
  assert.match(lines[0], `--user ${statSync(dataDir).uid}:`);
  assert.not.match(stderr, /unable to open database file/);
});

t('a damaged library.db stops the start with one line saying how to restore, and is left as it was', async () => {
  if (sqliteOnly('damages library.db and runs SQLite integrity checks')) return;
  const dataDir = path.join(scratch, 'damaged');
  mkdirSync(dataDir);
  const file = path.join(dataDir, 'library.db');
  const storage = openSqliteStorage(file);
  await storage.close();
  // Garbage over pages in the middle of the file: b-tree pages whose structure quick_check reads.
  const size = statSync(file).size;
  const fd = openSync(file, 'r+');
  for (let at = 8 * 4096; at < size - 4096; at += 16 * 4096) writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, at);
  closeSync(fd);
  const before = readFileSync(file);
  const { code, stderr } = await startServer(dataDir);
  assert.is(code, 1, stderr);
  const lines = stderr.trim().split('\n');
  assert.is(lines.length, 1, stderr);
  assert.match(lines[0], `failed to start: ${file} is damaged`);
  assert.match(
    lines[0],
    `Restore: stop the server, run \`npm run restore -- --from <your backup folder> --to ${dataDir}`,
  );
  assert.ok(readFileSync(file).equals(before), 'the damaged file was written to');
  // DB_CHECK_AT_START=unclean (the default) skips the check after a clean close, once; always does not.
  markClosedCleanly(file);
  assert.throws(() => checkDatabaseFile(file, 'always'), /is damaged/);
  markClosedCleanly(file);
  checkDatabaseFile(file, 'unclean');
  assert.throws(() => checkDatabaseFile(file, 'unclean'), /is damaged/);
  checkDatabaseFile(file, 'off');
});

t('the setup link uses PUBLIC_URL; without it the message says to put the server address in', () => {
  const file = '/data/setup-link';
  const withUrl = setupMessage('https://photos.example.org/setup?token=abc', file, 'https://photos.example.org');
  assert.match(withUrl, '  https://photos.example.org/setup?token=abc\n');
  assert.not.match(withUrl, /PUBLIC_URL/);
  const without = setupMessage('http://localhost:3000/setup?token=abc', file, undefined);
  assert.match(without, '  http://localhost:3000/setup?token=abc\n');
  assert.match(without, "PUBLIC_URL is not set, so the link says localhost:3000: open it with this server's address");
});

t.run();
