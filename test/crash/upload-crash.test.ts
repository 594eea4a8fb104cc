/**
 * Crash test: runs the real server as a child process, fires concurrent
 * uploads (plus one slow, trickling upload), SIGKILLs the process at a random
 * moment after some uploads were acknowledged, restarts it over the same
 * DATA_DIR, and checks that
 *   - every acknowledged upload is complete (row, ready, original bytes, frame),
 *   - nothing half-written is visible (every listed item opens and has a frame),
 *   - DATA_DIR/tmp is empty after start-up, every stored blob matches its hash,
 *   - the start-up orphan sweep removes exactly the files no visible item uses
 *     (the files' mtimes are set two minutes back before each restart, as if
 *     the restart came long after the crash, so the 60 s age guard lets it act),
 * three kill/restart cycles in a row; then a graceful SIGTERM while an upload is
 * mid-body: the upload completes, the process exits 0, and the database passes
 * `PRAGMA integrity_check` with the storage counter equal to the stored bytes.
 *
 * The choices (image sizes and formats, kill thresholds and delays) are seeded;
 * CRASH_SEED=<n> replays them (the exact kill moment still depends on timing).
 */
import Database from 'better-sqlite3';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { StoredBlob } from '../../src/files/blobStore.js';
import { LocalBlobStore } from '../../src/files/localBlobStore.js';
import { startServerProcess, type ServerProcess } from '../helpers/serverProcess.js';
import { seededRandom } from '../../src/platform/random.js';

/**
 * This test is about upload durability: the ingest pipeline stays off
 * (INGEST_CONCURRENCY=0; test/crash/ingest-crash.test.ts kills it mid-job), so
 * the files on disk are exactly the uploads' and their frames.
 */
const UPLOAD_ONLY = {
  INGEST_CONCURRENCY: '0',
  MODEL_PROFILE: 'test',
  MODELS_DIR: path.join(os.tmpdir(), `upload-crash-models-${process.pid}`),
};

const CYCLES = 3;
const WORKERS = 5;
const SEED = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));

const rand = seededRandom(SEED);
const randInt = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sha256 = (b: Buffer | Uint8Array) => createHash('sha256').update(b).digest('hex');

interface Sent {
  name: string;
  sha256: string;
  size: number;
  cycle: number;
  /** Set when the server answered 200. */
  mediaId?: string;
  outcome: 'pending' | 'acked' | 'lost' | 'rejected';
  detail?: string;
}

interface State {
  dataDir: string;
  datasetId: string;
  folderPath: string;
  sent: Map<string, Sent>; // by name
  counter: number;
}

/**
 * A distinct image: random noise (so every upload has its own bytes and sha256,
 * and large ones stay large after compression) in one of three formats. About a
 * third are a few hundred KB, the rest small.
 */
async function makeUploadImage(): Promise<{ bytes: Buffer; ext: string }> {
  const big = rand() < 0.35;
  const width = big ? randInt(260, 380) : randInt(16, 120);
  const height = big ? randInt(220, 340) : randInt(16, 120);
  const raw = randomBytes(width * height * 3);
  const img = sharp(raw, { raw: { width, height, channels: 3 } });
  const pick = rand();
  if (pick < 0.4) return { bytes: await img.png({ compressionLevel: 1 }).toBuffer(), ext: 'png' };
  if (pick < 0.75) return { bytes: await img.jpeg({ quality: 92 }).toBuffer(), ext: 'jpg' };
  return { bytes: await img.webp({ quality: 90 }).toBuffer(), ext: 'webp' };
}

function multipartBody(fields: Record<string, string>, file: { bytes: Buffer; filename: string }) {
  const boundary = `----crash${randomBytes(12).toString('hex')}`;
  let head = '';
  for (const [k, v] of Object.entries(fields)) {
    head += `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`;
  }
  head += `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  const tail = `\r\n--${boundary}--\r\n`;
  return { boundary, head: Buffer.from(head), tail: Buffer.from(tail) };
}

/** An ordinary upload through fetch + FormData. Resolves with the outcome; never throws. */
async function upload(srv: ServerProcess, st: State, cycle: number, stop: () => boolean): Promise<Sent> {
  const { bytes, ext } = await makeUploadImage();
  const name = `c${cycle}-u${st.counter++}.${ext}`;
  const rec: Sent = { name, sha256: sha256(bytes), size: bytes.length, cycle, outcome: 'pending' };
  if (stop()) return rec; // never sent
  st.sent.set(name, rec);
  const form = new FormData();
  form.append('datasetId', st.datasetId);
  form.append('name', name);
  if (rand() < 0.5) form.append('path', st.folderPath);
  form.append('file', new Blob([bytes]), `upload.${ext}`);
  try {
    const res = await fetch(`${srv.baseUrl}/api/upload/multipart`, {
      method: 'POST',
      headers: { 'x-api-key': srv.key },
      body: form,
    });
    const text = await res.text();
    if (res.status !== 200) {
      rec.outcome = 'rejected';
      rec.detail = `${res.status} ${text.slice(0, 300)}`;
      return rec;
    }
    const body = JSON.parse(text) as { mediaId: string };
    rec.mediaId = body.mediaId;
    rec.outcome = 'acked';
  } catch (err) {
    rec.outcome = 'lost';
    rec.detail =
      err instanceof Error ? `${err.message} ${String((err as { cause?: unknown }).cause ?? '')}` : String(err);
  }
  return rec;
}

/**
 * An upload written by hand over http.request, `chunk` bytes every `everyMs`,
 * so it is still mid-body when the process is killed (or signalled).
 */
function slowUpload(
  srv: ServerProcess,
  st: State,
  cycle: number,
  bytes: Buffer,
  ext: string,
  chunk: number,
  everyMs: number,
  opts: { holdLastChunk?: boolean } = {},
) {
  const name = `c${cycle}-slow${st.counter++}.${ext}`;
  const rec: Sent = { name, sha256: sha256(bytes), size: bytes.length, cycle, outcome: 'pending' };
  st.sent.set(name, rec);
  const { boundary, head, tail } = multipartBody({ datasetId: st.datasetId, name }, { bytes, filename: `slow.${ext}` });
  const progress = { fileBytesSent: 0, bodyDone: false };
  const done = new Promise<Sent>((resolve) => {
    const req = http.request(`${srv.baseUrl}/api/upload/multipart`, {
      method: 'POST',
      agent: false,
      headers: {
        'x-api-key': srv.key,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + bytes.length + tail.length),
      },
    });
    let settled = false;
    const finish = (outcome: Sent['outcome'], detail?: string, mediaId?: string) => {
      if (settled) return;
      settled = true;
      rec.outcome = outcome;
      rec.detail = detail;
      rec.mediaId = mediaId;
      resolve(rec);
    };
    req.on('error', (err) => finish('lost', err.message));
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('error', (err) => finish('lost', err.message));
      res.on('aborted', () => finish('lost', 'response aborted'));
      res.on('end', () => {
        if (res.statusCode !== 200) return finish('rejected', `${res.statusCode} ${text.slice(0, 300)}`);
        try {
          finish('acked', undefined, (JSON.parse(text) as { mediaId: string }).mediaId);
        } catch {
          finish('lost', `unparseable 200 body: ${text.slice(0, 100)}`);
        }
      });
    });
    req.write(head);
    void (async () => {
      for (let off = 0; off < bytes.length; off += chunk) {
        if (settled || req.destroyed) return;
        // Never finish the body: this upload is certainly mid-body when the kill comes.
        if (opts.holdLastChunk && off + chunk >= bytes.length) return;
        req.write(bytes.subarray(off, off + chunk));
        progress.fileBytesSent = Math.min(bytes.length, off + chunk);
        await sleep(everyMs);
      }
      if (settled || req.destroyed) return;
      req.end(tail);
      progress.bodyDone = true;
    })();
  });
  return { rec, progress, done };
}

async function getJson(srv: ServerProcess, url: string): Promise<{ status: number; body: any }> {
  const res = await fetch(srv.baseUrl + url, { headers: { 'x-api-key': srv.key } });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body };
}

async function fetchBytes(url: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

/**
 * Every file in files/ must be whole: its name is the sha256 of its content.
 * Returns the keys found. With `ageMs`, also sets every file's mtime that far
 * back, as if the restart came long after the crash: the start-up sweep (which
 * only takes unreferenced files older than a minute) then has its orphans to take.
 */
function checkStoreFiles(dataDir: string, ageMs = 0): Set<string> {
  const filesDir = path.join(dataDir, 'files');
  const keys = new Set<string>();
  const then = new Date(Date.now() - ageMs);
  for (const a of readdirSync(filesDir)) {
    for (const b of readdirSync(path.join(filesDir, a))) {
      for (const name of readdirSync(path.join(filesDir, a, b))) {
        const full = path.join(filesDir, a, b, name);
        assert.ok(/^[0-9a-f]{64}\.[a-z0-9]{2,5}$/.test(name), `unexpected file in the store: ${full}`);
        assert.is(sha256(readFileSync(full)), name.slice(0, 64), `stored blob ${name} is whole`);
        if (ageMs) utimesSync(full, then, then);
        keys.add(name);
      }
    }
  }
  return keys;
}

/** The blob key in a file URL (`/files/<sig>/<key>[/<name>]`). */
function keyOfUrl(url: string): string {
  const m = /\/files\/[A-Za-z0-9_-]+\/([0-9a-f]{64}\.[a-z0-9]{2,5})(?:\/|$)/.exec(new URL(url).pathname);
  assert.ok(m, `file URL carries a blob key: ${url}`);
  return m![1];
}

/** Waits for a JSON log line with this msg; returns it, or null after `ms`. */
async function waitForLog(srv: ServerProcess, msg: string, ms: number): Promise<Record<string, unknown> | null> {
  const deadline = Date.now() + ms;
  for (;;) {
    for (const line of srv.logs) {
      if (!line.includes(`"msg":"${msg}"`)) continue;
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        /* not JSON */
      }
    }
    if (Date.now() > deadline) return null;
    await sleep(20);
  }
}

const tmpEntries = (dataDir: string) => readdirSync(path.join(dataDir, 'tmp'));

/**
 * The checks after each restart. Returns how many unacknowledged uploads
 * turned out to be stored (allowed, as long as they are complete).
 */
async function verify(
  srv: ServerProcess,
  st: State,
  label: string,
): Promise<{ items: number; unackedPresent: number; referenced: Set<string> }> {
  assert.equal(tmpEntries(st.dataDir), [], `${label}: DATA_DIR/tmp is empty after start-up`);

  // Every acknowledged upload is complete.
  const acked = [...st.sent.values()].filter((s) => s.outcome === 'acked');
  for (const s of acked) {
    const got = await getJson(srv, `/api/media/${s.mediaId}`);
    assert.is(got.status, 200, `${label}: acknowledged ${s.name} (${s.mediaId}) is there`);
    const m = got.body.media;
    assert.is(m.id, s.mediaId);
    assert.is(m.name, s.name);
    assert.is(m.type, 'image');
    assert.ok(
      ['pending', 'processing', 'ready'].includes(m.processingStatus),
      `${label}: ${s.name} is ${m.processingStatus}`,
    );
    const blob = await fetchBytes(m.blob);
    assert.is(blob.status, 200, `${label}: blob of ${s.name} opens`);
    assert.is(blob.bytes.length, s.size, `${label}: blob of ${s.name} has the size sent`);
    assert.is(sha256(blob.bytes), s.sha256, `${label}: blob of ${s.name} is exactly the bytes sent`);
    assert.ok(m.frames.length >= 1, `${label}: ${s.name} has a frame`);
    const frame = await fetchBytes(m.frames[0].blob);
    assert.is(frame.status, 200, `${label}: frame of ${s.name} opens`);
    assert.match(frame.type ?? '', /^image\//);
    const meta = await sharp(frame.bytes).metadata();
    assert.ok((meta.width ?? 0) > 0 && (meta.height ?? 0) > 0, `${label}: frame of ${s.name} decodes`);
  }

  // Nothing half-written is visible: page through the whole collection.
  const seen = new Map<string, any>();
  let total = -1;
  const limit = 7; // small pages, so paging itself is exercised
  for (let offset = 0; ; offset += limit) {
    const page = await getJson(
      srv,
      `/api/dataset/${st.datasetId}/media?recursive=true&type=all&limit=${limit}&offset=${offset}`,
    );
    assert.is(page.status, 200, `${label}: listing page at ${offset}`);
    if (total < 0) total = page.body.pagination.total;
    assert.is(page.body.pagination.total, total, `${label}: total stable while paging`);
    for (const m of page.body.media) {
      assert.not.ok(seen.has(m.id), `${label}: ${m.id} listed twice`);
      seen.set(m.id, m);
    }
    if (!page.body.pagination.hasMore) break;
    assert.ok(offset < 10_000, 'paging terminates');
  }
  assert.is(total, seen.size, `${label}: listing total equals the distinct items found`);

  let unackedPresent = 0;
  const referenced = new Set<string>();
  for (const m of seen.values()) {
    if (m.type === 'folder') {
      assert.is(m.blob, 'folder');
      continue;
    }
    const s = st.sent.get(m.name);
    assert.ok(s, `${label}: listed item ${m.name} (${m.id}) is one this test sent`);
    if (s!.outcome === 'acked') assert.is(m.id, s!.mediaId, `${label}: ${m.name} has the acknowledged id`);
    else {
      unackedPresent++;
      assert.ok(s!.outcome === 'lost', `${label}: ${m.name} stored although it was ${s!.outcome}`);
    }
    assert.is(m.type, 'image');
    assert.ok(
      ['pending', 'processing', 'ready'].includes(m.processingStatus),
      `${label}: listed ${m.name} is ${m.processingStatus}`,
    );
    referenced.add(keyOfUrl(m.blob));
    for (const f of m.frames ?? []) referenced.add(keyOfUrl(f.blob));
    const blob = await fetchBytes(m.blob);
    assert.is(blob.status, 200, `${label}: blob of listed ${m.name} opens`);
    assert.is(sha256(blob.bytes), s!.sha256, `${label}: blob of listed ${m.name} is complete`);
    assert.ok(Array.isArray(m.frames) && m.frames.length >= 1, `${label}: listed ${m.name} has a frame`);
    const frame = await fetchBytes(m.frames[0].blob);
    assert.is(frame.status, 200, `${label}: frame of listed ${m.name} opens`);
  }
  for (const s of acked) assert.ok(seen.has(s.mediaId!), `${label}: acknowledged ${s.name} is listed`);
  return { items: seen.size, unackedPresent, referenced };
}

/**
 * One cycle: WORKERS concurrent uploaders and one slow upload; SIGKILL once at
 * least `target` uploads of this cycle were acknowledged, after a random delay,
 * while the slow upload is mid-body.
 */
async function crashCycle(srv: ServerProcess, st: State, cycle: number) {
  let killing = false;
  let ackedThisCycle = 0;
  const target = randInt(3, 10);

  const slowBytes = {
    bytes: await sharp(randomBytes(320 * 300 * 3), { raw: { width: 320, height: 300, channels: 3 } })
      .png({ compressionLevel: 1 })
      .toBuffer(),
    ext: 'png',
  };
  // ~4 KB every 40 ms, and the last chunk held back: mid-body whenever the kill comes.
  const slow = slowUpload(srv, st, cycle, slowBytes.bytes, slowBytes.ext, 4096, 40, { holdLastChunk: true });

  const worker = async () => {
    while (!killing) {
      const r = await upload(srv, st, cycle, () => killing);
      if (r.outcome === 'acked') ackedThisCycle++;
      if (r.outcome === 'rejected') {
        killing = true; // stop early; the assertion below reports it
        return;
      }
    }
  };
  const workers = Array.from({ length: WORKERS }, worker);

  const started = Date.now();
  while (slow.progress.fileBytesSent === 0) await sleep(5);
  while (
    ackedThisCycle < target &&
    Date.now() - started < 15_000 &&
    ![...st.sent.values()].some((s) => s.outcome === 'rejected')
  ) {
    await sleep(5);
  }
  await sleep(randInt(0, 150));
  const slowMidBody = slow.progress.fileBytesSent > 0 && !slow.progress.bodyDone && slow.rec.outcome === 'pending';
  // Sent and not answered yet (the slow upload included).
  const inFlightAtKill = [...st.sent.values()].filter((s) => s.cycle === cycle && s.outcome === 'pending').length;
  const ackedAtKill = ackedThisCycle;
  killing = true;
  const exit = await srv.kill();
  await Promise.all(workers);
  await slow.done;
  assert.ok(slowMidBody, 'the slow upload was mid-body at the kill');
  assert.is(slow.rec.outcome, 'lost');

  const rejected = [...st.sent.values()].filter((s) => s.outcome === 'rejected');
  assert.equal(
    rejected.map((s) => `${s.name}: ${s.detail}`),
    [],
    'no upload was refused',
  );
  assert.is(exit.signal, 'SIGKILL');
  const thisCycle = [...st.sent.values()].filter((s) => s.cycle === cycle);
  return {
    acked: thisCycle.filter((s) => s.outcome === 'acked').length,
    ackedAtKill,
    lost: thisCycle.filter((s) => s.outcome === 'lost').length,
    inFlightAtKill,
    slowMidBody,
    slowSent: `${slow.progress.fileBytesSent}/${slowBytes.bytes.length}`,
  };
}

const label = (cycle: number) => `after kill ${cycle}`;

const t = suite('crash safety of uploads (real server process, SIGKILL)');

t('acknowledged uploads survive SIGKILL; nothing half-written is visible; SIGTERM is graceful', async () => {
  const testStarted = Date.now();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mlib-crash-'));
  console.log(`crash test seed ${SEED} (CRASH_SEED=${SEED} replays it), DATA_DIR ${dataDir}`);
  let srv: ServerProcess | null = null;
  try {
    srv = await startServerProcess({ dataDir, env: UPLOAD_ONLY });
    const me = await getJson(srv, '/api/me');
    assert.is(me.status, 200, JSON.stringify(me.body));
    const created = await fetch(`${srv.baseUrl}/api/organization/${me.body.organizationId}/datasets`, {
      method: 'POST',
      headers: { 'x-api-key': srv.key, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Crash' }),
    });
    assert.is(created.status, 200);
    const datasetId = ((await created.json()) as { dataset: { id: string } }).dataset.id;
    const folder = await fetch(`${srv.baseUrl}/api/folder`, {
      method: 'POST',
      headers: { 'x-api-key': srv.key, 'content-type': 'application/json' },
      body: JSON.stringify({ datasetId, name: 'inside' }),
    });
    assert.is(folder.status, 200);
    const folderPath = ((await folder.json()) as { folder: { path: string } }).folder.path;
    const st: State = { dataDir, datasetId, folderPath, sent: new Map(), counter: 0 };

    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      const t0 = Date.now();
      const c = await crashCycle(srv, st, cycle);
      const t1 = Date.now();
      const tmpLeft = tmpEntries(dataDir).length;
      const blobs = checkStoreFiles(dataDir, 120_000);
      srv = await startServerProcess({ dataDir, env: UPLOAD_ONLY });
      const t2 = Date.now();
      const v = await verify(srv, st, label(cycle));
      const t3 = Date.now();
      // Orphans: files a killed upload stored before its row was written. The
      // start-up sweep removes exactly those (every visible item's files stay).
      const orphans = [...blobs].filter((k) => !v.referenced.has(k));
      if (orphans.length > 0) {
        const swept = await waitForLog(srv, 'removed orphaned files', 10_000);
        assert.ok(swept, `${label(cycle)}: the start-up sweep reported ${orphans.length} orphan(s) removed`);
        assert.is(swept!.count, orphans.length, `${label(cycle)}: the sweep removed exactly the unreferenced files`);
      }
      assert.not.ok(
        srv.logs.some((l) => l.includes('"msg":"orphan sweep failed"')),
        'orphan sweep did not fail',
      );
      const after = checkStoreFiles(dataDir);
      assert.equal(
        [...after].sort(),
        [...v.referenced].sort(),
        `${label(cycle)}: after the sweep the store holds exactly the visible items' files`,
      );
      console.log(
        `cycle ${cycle}: ${c.acked} acknowledged (${c.ackedAtKill} when the kill was sent), ${c.inFlightAtKill} in flight at SIGKILL ` +
          `(${c.lost} lost), slow upload ${c.slowMidBody ? 'mid-body' : 'NOT mid-body'} at ${c.slowSent} bytes; ` +
          `${tmpLeft} temp file(s) left by the crash, ${blobs.size} whole blobs on disk, ${orphans.length} orphan(s) swept; after restart ${v.items} items listed, ` +
          `${v.unackedPresent} unacknowledged upload(s) (all cycles so far) present and complete ` +
          `[uploads ${t1 - t0} ms, restart ${t2 - t1} ms, checks ${Date.now() - t2} ms (verify ${t3 - t2})]`,
      );
      assert.ok(c.acked >= 1, 'some uploads were acknowledged before the kill');
    }

    // Graceful shutdown: SIGTERM while an upload is mid-body; it completes, exit 0.
    const img = await makeUploadImage();
    // At least 20 chunks 50 ms apart, whatever the image's size, so the body is surely mid-way at SIGTERM.
    const slow = slowUpload(srv, st, CYCLES + 1, img.bytes, img.ext, Math.max(1, Math.ceil(img.bytes.length / 20)), 50);
    while (slow.progress.fileBytesSent === 0) await sleep(5);
    await sleep(60);
    assert.not.ok(slow.progress.bodyDone, 'the upload is still mid-body when SIGTERM is sent');
    const exit = await srv.stop();
    const last = await slow.done;
    assert.is(last.outcome, 'acked', `the upload in flight at SIGTERM completes (${last.detail ?? ''})`);
    assert.equal(exit, { code: 0, signal: null }, 'SIGTERM: graceful exit 0');
    assert.ok(
      srv.logs.some((l) => l.includes('"msg":"stopped"')),
      'logged "stopped"',
    );
    srv = null;

    // The database after the final shutdown.
    const onDisk = checkStoreFiles(dataDir);
    const db = new Database(path.join(dataDir, 'library.db'), { readonly: true, fileMustExist: true });
    try {
      assert.equal(db.pragma('integrity_check', { simple: false }), [{ integrity_check: 'ok' }]);
      assert.equal(db.pragma('foreign_key_check'), []);
      const acked = [...st.sent.values()].filter((s) => s.outcome === 'acked');
      const rowOf = db.prepare(`SELECT blob_key, size_bytes, status, processing_status FROM media WHERE id = ?`);
      const framesOf = db.prepare(`SELECT blob_key FROM frames WHERE media_id = ?`).pluck();
      for (const s of acked) {
        const row = rowOf.get(s.mediaId) as
          { blob_key: string; size_bytes: number; status: string; processing_status: string } | undefined;
        assert.ok(row, `row of ${s.name}`);
        assert.is(row!.blob_key.slice(0, 64), s.sha256);
        assert.is(row!.size_bytes, s.size);
        assert.is(row!.status, 'active');
        assert.is(row!.processing_status, 'pending', 'queued for the ingest pipeline, which this test keeps off');
        const frameKeys = framesOf.all(s.mediaId) as string[];
        assert.ok(frameKeys.length >= 1);
        for (const k of [row!.blob_key, ...frameKeys]) {
          assert.ok(
            statSync(path.join(dataDir, 'files', k.slice(0, 2), k.slice(2, 4), k)).isFile(),
            `blob ${k} on disk`,
          );
        }
      }
      // Every row's file is on disk, and every file on disk belongs to a row.
      const inDb = new Set<string>();
      for (const { name: table } of db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as Array<{
        name: string;
      }>) {
        const cols = (db.pragma(`table_info(${JSON.stringify(table)})`) as Array<{ name: string }>).map((c) => c.name);
        if (!cols.includes('blob_key')) continue;
        for (const k of db
          .prepare(`SELECT blob_key FROM "${table}" WHERE blob_key IS NOT NULL`)
          .pluck()
          .all() as string[]) {
          if (/^[0-9a-f]{64}\./.test(k)) inDb.add(k);
        }
      }
      assert.equal([...onDisk].sort(), [...inDb].sort(), 'files on disk are exactly the files the database references');
      // The per-organization storage counter moved in the same transactions as the rows.
      const counters = db
        .prepare(
          `SELECT o.id, o.storage_bytes AS counter,
                  (SELECT coalesce(sum(size_bytes), 0) FROM media m WHERE m.organization_id = o.id AND m.status = 'active' AND m.type <> 'folder') AS actual
           FROM organizations o`,
        )
        .all() as Array<{ id: string; counter: number; actual: number }>;
      for (const c of counters) assert.is(c.counter, c.actual, `storage counter of organization ${c.id}`);
    } finally {
      db.close();
    }
    console.log(
      `total: ${[...st.sent.values()].filter((s) => s.outcome === 'acked').length} acknowledged, ` +
        `${[...st.sent.values()].filter((s) => s.outcome === 'lost').length} lost to kills, in ${((Date.now() - testStarted) / 1000).toFixed(1)} s`,
    );
    rmSync(dataDir, { recursive: true, force: true });
  } catch (err) {
    if (srv) {
      console.log(`server log tail:\n${srv.logs.slice(-30).join('\n')}`);
      await srv.kill();
    }
    console.log(`DATA_DIR kept for inspection: ${dataDir}`);
    throw err;
  }
});

/**
 * The start-up sweep and a deduplicating upload of the same content, in the
 * interleaving the event loop allows: the sweep has judged an old orphan
 * (unreferenced, mtime over a minute old) and is about to unlink it when an
 * upload of identical bytes finds the file, freshens its mtime and returns its
 * key (the caller then writes a row referencing it). The sweep's unlink must not
 * take the file away under that row. A client retrying an upload a crash
 * killed, right after a restart, is exactly this case.
 * The instance's `stat` is wrapped only to run the upload inside the sweep's
 * await gap between its age re-check and its unlink, deterministically.
 */
t('orphan sweep never removes a blob that a concurrent upload just deduplicated onto', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mlib-sweep-race-'));
  try {
    const store = new LocalBlobStore(dir);
    await store.init();
    const bytes = randomBytes(4096);
    const orphan = await store.putBuffer(bytes, 'png');
    const old = new Date(Date.now() - 120_000);
    utimesSync(store.pathFor(orphan.key), old, old);

    const realStat = store.stat.bind(store);
    // Inside the sweep's stat of the orphan: start the upload and let it run
    // (up to 200 ms; a store that makes it wait for the sweep is fine too).
    const race: { upload: Promise<StoredBlob> | null } = { upload: null };
    store.stat = async (key: string) => {
      const st = await realStat(key);
      if (key === orphan.key && !race.upload) {
        race.upload = store.putBuffer(bytes, 'png');
        await Promise.race([race.upload.catch(() => undefined), sleep(200)]);
      }
      return st;
    };
    await store.sweepOrphans(async () => new Set<string>(), 60_000);
    assert.ok(race.upload, 'the upload ran while the sweep was deciding');
    const put = await race.upload!;
    assert.is(put.key, orphan.key, 'the upload got the content key');
    assert.ok(await realStat(orphan.key), 'the blob the upload was just handed is still stored');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

t.run();
