/**
 * A real multi-process PostgreSQL for tests: Debian's server (`apt-get install postgresql`; .ci/run installs
 * it), started on loopback in a temporary data directory as the `postgres` user, stopped at exit. It has no
 * pgvector, so it proves what PGlite cannot: concurrent claims, LISTEN/NOTIFY, advisory locks, several
 * processes. Null (the caller skips with a message) when the binaries are not installed.
 * `TEST_DATABASE_URL` instead names a server of your own (with pgvector, vector tests run there too).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, chownSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestPostgres } from './pglite.js';
import { freePort } from './serverProcess.js';

function binDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) if (existsSync(path.join(root, v, 'bin', 'pg_ctl'))) return path.join(root, v, 'bin');
  return null;
}

/** Why Debian's server can't be used here, or null when it can. */
export function postgresServerMissing(): string | null {
  if (process.env.TEST_DATABASE_URL) return null;
  if (!binDir()) return 'PostgreSQL binaries not found (apt-get install postgresql)';
  if (process.getuid?.() !== 0 && os.userInfo().username !== 'postgres')
    return 'PostgreSQL tests need root (to run the server as postgres) or the postgres user';
  return null;
}

/** Runs a command as the postgres user (initdb and the server refuse root). */
function asPostgres(cmd: string, args: string[]): void {
  const isRoot = process.getuid?.() === 0;
  const [file, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  execFileSync(file, argv, { stdio: 'pipe' });
}

let started: Promise<TestPostgres> | null = null;
let control: { stop(): void; start(): void } | null = null;

/**
 * Stops (`pg_ctl stop -m fast`: sessions are ended with 57P01, as on an operator's restart) and starts again
 * the server postgresServer() started, for the fault tests; null with TEST_DATABASE_URL (not ours to stop).
 */
export async function postgresServerControl(): Promise<{ stop(): void; start(): void } | null> {
  await postgresServer();
  return control;
}

/** The test file's server (started on first use, stopped at exit), or `TEST_DATABASE_URL`'s. */
export function postgresServer(): Promise<TestPostgres> {
  started ??= start();
  return started;
}

async function start(): Promise<TestPostgres> {
  const external = process.env.TEST_DATABASE_URL;
  if (external) return { url: external, vector: process.env.TEST_DATABASE_VECTOR !== 'off', stop: async () => {} };
  const bin = binDir();
  if (!bin) throw new Error('PostgreSQL binaries not found');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lumen-pg-'));
  if (process.getuid?.() === 0) chownSync(dir, uidOf('postgres'), gidOf('postgres'));
  const data = path.join(dir, 'data');
  asPostgres(path.join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
    '--locale=C',
    '--no-sync',
  ]);
  const port = await freePort();
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
  const pgCtl = (...args: string[]) => asPostgres(path.join(bin, 'pg_ctl'), ['-D', data, ...args]);
  const startServer = () => pgCtl('-l', path.join(dir, 'log'), '-o', opts, '-w', 'start');
  startServer();
  control = { stop: () => pgCtl('-m', 'fast', '-w', 'stop'), start: startServer };
  const stop = () => {
    spawnSync(process.getuid?.() === 0 ? 'runuser' : path.join(bin, 'pg_ctl'), [
      ...(process.getuid?.() === 0 ? ['-u', 'postgres', '--', path.join(bin, 'pg_ctl')] : []),
      '-D',
      data,
      '-m',
      'immediate',
      'stop',
    ]);
    rmSync(dir, { recursive: true, force: true });
  };
  process.on('exit', stop);
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, vector: false, stop: async () => stop() };
}

function uidOf(user: string): number {
  return Number(execFileSync('id', ['-u', user]).toString().trim());
}
function gidOf(user: string): number {
  return Number(execFileSync('id', ['-g', user]).toString().trim());
}
