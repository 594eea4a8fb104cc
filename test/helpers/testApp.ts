import http from 'node:http';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { answerParserRefusals } from '../../src/http/parserRefusals.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/platform/logger.js';
import { freshSchema, privatePglite, type TestPostgres } from './pglite.js';
import { postgresServer } from './postgresServer.js';

export const TEST_KEY = 'test-owner-key-0123456789abcdef';

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface TestApp {
  app: App;
  baseUrl: string;
  dataDir: string;
  /** performance.now() once the test's own database was up (PGlite's start), before the server started. */
  databaseReadyAt: number;
  /** The bootstrap owner's key. */
  key: string;
  orgId: string;
  request<T = any>(
    method: string,
    url: string,
    opts?: { body?: unknown; key?: string | null; headers?: Record<string, string> },
  ): Promise<Reply<T>>;
  /** Multipart upload through the real route. */
  upload<T = any>(
    fields: Record<string, string>,
    file: { bytes: Buffer; filename: string; type?: string } | null,
    key?: string,
  ): Promise<Reply<T>>;
  /** Creates a collection and returns its id. */
  collection(name?: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * The engine the black-box suites run on: SQLite in DATA_DIR (default); with TEST_DATABASE=pglite, PostgreSQL
 * on this file's PGlite; with TEST_DATABASE_URL, that server (TEST_DATABASE_VECTOR=off: one without pgvector).
 * Each app gets a schema of its own. `npm run test:pg` runs the suites this way.
 */
async function testDatabaseEnv(dataDir: string, onClose: Array<() => Promise<void>>): Promise<Record<string, string>> {
  const external = process.env.TEST_DATABASE_URL;
  if (!external && process.env.TEST_DATABASE !== 'pglite') return {};
  // A PGlite of its own per app, kept inside its DATA_DIR: its one backend holds one search_path, so two apps
  // sharing one would read each other's schema (the last connection's startup options win); and an app started
  // again on the same DATA_DIR (a restart) finds its database there.
  const server = external ? await postgresServer() : await dataDirPglite(dataDir, onClose);
  return {
    DATABASE_URL: server.url,
    DATABASE_SCHEMA: external ? schemaFor(dataDir) : 'app',
    VECTOR_SEARCH: server.vector ? 'on' : 'off',
    // PGlite's socket runs every connection's messages on one backend, one message at a time: two connections'
    // Parse/Bind/Execute cycles interleave and clobber each other's unnamed statement. One connection keeps
    // each cycle whole (and, as n8n's CI does, would show any store that deadlocks waiting on its own pool).
    ...(external ? {} : { DATABASE_POOL_SIZE: '1' }),
  };
}

/** The PGlite of each DATA_DIR while an app runs on it: two apps on one DATA_DIR (a second server) share it. */
const running = new Map<string, { server: Promise<TestPostgres>; apps: number }>();
async function dataDirPglite(dataDir: string, onClose: Array<() => Promise<void>>): Promise<TestPostgres> {
  let entry = running.get(dataDir);
  // A DATA_DIR the server is to create (as it does on SQLite): PGlite needs the folder above its own.
  mkdirSync(dataDir, { recursive: true });
  if (!entry) running.set(dataDir, (entry = { server: privatePglite(path.join(dataDir, 'pglite')), apps: 0 }));
  entry.apps++;
  const held = entry;
  onClose.push(async () => {
    if (--held.apps > 0) return;
    running.delete(dataDir);
    await (await held.server).stop();
  });
  return held.server;
}

/** One schema per DATA_DIR on a shared server, so an app started again on the same DATA_DIR finds its tables. */
const schemas = new Map<string, string>();
function schemaFor(dataDir: string): string {
  if (!schemas.has(dataDir)) schemas.set(dataDir, freshSchema('app'));
  return schemas.get(dataDir)!;
}

/**
 * Starts the real server (createApp → real HTTP on 127.0.0.1, ephemeral port)
 * over a fresh temp DATA_DIR, with the bootstrap owner key TEST_KEY.
 */
export async function startTestApp(
  overrides: Partial<Config> = {},
  env: Record<string, string> = {},
): Promise<TestApp> {
  const dataDir = overrides.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'mlib-test-'));
  const stopAfterClose: Array<() => Promise<void>> = [];
  const server = http.createServer();
  answerParserRefusals(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const databaseEnv = await testDatabaseEnv(dataDir, stopAfterClose);
  const databaseReadyAt = performance.now();
  const config = loadConfig(
    // No test reaches the network: the background model download is off unless a test turns it on.
    {
      ...databaseEnv,
      DATA_DIR: dataDir,
      BOOTSTRAP_API_KEY: TEST_KEY,
      MODEL_PROFILE: 'test',
      LOG_LEVEL: 'silent',
      AUTO_FETCH_MODELS: '0',
      ...env,
    },
    { port, publicUrl: `http://127.0.0.1:${port}`, ...overrides, dataDir },
  );
  const app = await createApp(config, createLogger(process.env.TEST_LOG_LEVEL === 'debug' ? 'debug' : 'silent'));
  server.on('request', app.koa.callback());
  const baseUrl = `http://127.0.0.1:${port}`;

  const request: TestApp['request'] = async (method, url, opts = {}) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    const key = opts.key === undefined ? TEST_KEY : opts.key;
    if (key) headers['x-api-key'] = key;
    let body: string | undefined;
    if (opts.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    }
    const res = await fetch(baseUrl + url, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    return { status: res.status, headers: res.headers, body: parsed as any };
  };

  const me = await request('GET', '/api/me');
  const t: TestApp = {
    app,
    baseUrl,
    dataDir,
    databaseReadyAt,
    key: TEST_KEY,
    orgId: me.body.organizationId,
    request,
    async upload(fields, file, key = TEST_KEY) {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      if (file)
        form.append('file', new Blob([file.bytes], { type: file.type ?? 'application/octet-stream' }), file.filename);
      const res = await fetch(baseUrl + '/api/upload/multipart', {
        method: 'POST',
        headers: key ? { 'x-api-key': key } : {},
        body: form,
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      return { status: res.status, headers: res.headers, body: parsed as any };
    },
    async collection(name = 'Test collection') {
      const r = await request('POST', `/api/organization/${t.orgId}/datasets`, { body: { name } });
      if (r.status !== 200) throw new Error(`collection create failed: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.dataset.id as string;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await app.close();
      for (const stop of stopAfterClose) await stop();
      if (!overrides.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return t;
}

/** Polls GET /api/media/{id} until the ingest pipeline settles it (ready or failed); returns the media. */
export async function waitForProcessing(app: TestApp, mediaId: string, timeoutMs = 30_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await app.request('GET', `/api/media/${mediaId}`);
    const m = r.body?.media;
    if (m && (m.processingStatus === 'ready' || m.processingStatus === 'failed')) return m;
    if (Date.now() > until) throw new Error(`media ${mediaId} still ${m?.processingStatus} after ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

/** Statuses an item may show while the pipeline works on it. */
export const IN_PROGRESS = ['pending', 'processing', 'ready'];

/** A small solid-colour image in the given format. */
export async function makeImage(
  opts: {
    width?: number;
    height?: number;
    color?: { r: number; g: number; b: number };
    format?: 'jpeg' | 'png' | 'webp' | 'gif' | 'tiff';
  } = {},
): Promise<Buffer> {
  const { width = 64, height = 48, color = { r: 200, g: 30, b: 30 }, format = 'jpeg' } = opts;
  return sharp({ create: { width, height, channels: 3, background: color } })
    [format]()
    .toBuffer();
}
