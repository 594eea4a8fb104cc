/**
 * Abandoned uploads (issue #29): a client that sends a multipart upload's header and part of its body, then
 * drops the connection, at any byte, must leave no scratch file in DATA_DIR/tmp, no error-level log line and
 * no open file handle behind. Malformed HTTP must not be logged at error level either. Runs the real server
 * (src/main.ts) as a child process, so its log and its /proc/<pid>/fd are the ones `npm start` would have.
 */
import { mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServerProcess, SERVER_KEY, type ServerProcess } from '../helpers/serverProcess.js';
import { makeImage } from '../helpers/testApp.js';

interface Ctx {
  server: ServerProcess;
  dataDir: string;
  datasetId: string;
}

const t = suite<Ctx>('abandoned uploads');

t.before(async (ctx) => {
  ctx.dataDir = mkdtempSync(path.join(os.tmpdir(), 'mlib-abandon-'));
  // No ingest: its jobs open files of their own, which would blur the count of handles.
  ctx.server = await startServerProcess({
    dataDir: ctx.dataDir,
    env: { INGEST_CONCURRENCY: '0', UPLOAD_IDLE_SECONDS: '1' },
  });
  const me: any = await (await fetch(`${ctx.server.baseUrl}/api/me`, { headers: { 'x-api-key': SERVER_KEY } })).json();
  const r = await fetch(`${ctx.server.baseUrl}/api/organization/${me.organizationId}/datasets`, {
    method: 'POST',
    headers: { 'x-api-key': SERVER_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'abandoned' }),
  });
  ctx.datasetId = ((await r.json()) as any).dataset.id;
});
t.after(async (ctx) => {
  await ctx.server?.stop();
  rmSync(ctx.dataDir, { recursive: true, force: true });
});

/**
 * Open files and network sockets of the server: what a dropped upload could leak (a scratch file, its TCP socket).
 * Pipes, anonymous inodes and UNIX sockets are left out: ExifTool's child processes (libuv gives a child's stdio
 * UNIX socket pairs) and worker threads open and close those on their own schedule — a second ExifTool process
 * under load — which is not a leak.
 */
function fdTargets(pid: number): string[] {
  const unix = new Set(
    readFileSync(`/proc/${pid}/net/unix`, 'utf8')
      .split('\n')
      .slice(1)
      .map((l) => l.trim().split(/\s+/)[6]),
  );
  return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      return /^(pipe|anon_inode):/.test(target) || (inode && unix.has(inode)) ? [] : [target];
    } catch {
      return []; // closed while listed
    }
  });
}
const fdCount = (pid: number) => fdTargets(pid).length;
const scratch = (ctx: Ctx) => readdirSync(path.join(ctx.dataDir, 'tmp'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The whole request (head and body) of a multipart upload of `bytes`. */
function uploadRequest(port: number, datasetId: string, bytes: Buffer): Buffer {
  const boundary = '----abandon' + 'x'.repeat(16);
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="datasetId"\r\n\r\n${datasetId}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n` +
        `Content-Type: image/png\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const head =
    `POST /api/upload/multipart HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nx-api-key: ${SERVER_KEY}\r\nConnection: close\r\n` +
    `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body]);
}

/** Sends the first `upTo` bytes, waits a little so the server starts on them, then destroys the socket. */
async function sendAndDrop(port: number, bytes: Buffer, upTo: number, pauseMs: number): Promise<void> {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  await new Promise((r) => socket.once('connect', r));
  socket.write(bytes.subarray(0, upTo));
  await sleep(pauseMs);
  socket.destroy();
}

/** Waits until `check` holds or `ms` pass; answers whether it held. */
async function eventually(check: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await sleep(50);
  }
  return check();
}

const errorLines = (s: ServerProcess) =>
  s.logs.filter((l) => {
    try {
      return (JSON.parse(l) as { level?: string }).level === 'error';
    } catch {
      return false; // the setup link's banner
    }
  });

/** Fails listing the server's error-level lines, printed first (uvu's report chokes on long multi-line messages). */
function assertNoErrorLines(s: ServerProcess) {
  const errors = errorLines(s);
  if (errors.length) console.error(errors.map((l) => l.slice(0, 400)).join('\n'));
  assert.is(errors.length, 0, `${errors.length} error-level log lines (printed above)`);
}

t('an upload dropped at any byte leaves no scratch file, no error log line and no open handle', async (ctx) => {
  const { server } = ctx;
  // Big enough that the parser has written part of the file when the client goes away.
  const image = await makeImage({ width: 1200, height: 900, color: { r: 200, g: 10, b: 30 }, format: 'png' });
  const noise = Buffer.alloc(3 * 1024 * 1024, 7);
  const request = uploadRequest(server.port, ctx.datasetId, Buffer.concat([image, noise]));
  // A first complete upload warms the route up (lazy modules, the scratch folder) before the handles are counted.
  const full = net.connect(server.port, '127.0.0.1');
  full.end(request);
  await new Promise((r) => full.once('close', r));
  await sleep(300);
  const beforeTargets = fdTargets(server.pid);
  const before = beforeTargets.length;
  const headEnd = request.indexOf('\r\n\r\n') + 4;
  // The file part's own headers, and its last byte (the closing boundary, `\r\n--…--\r\n`, is what follows).
  const fileHeaders = request.indexOf('Content-Disposition: form-data; name="file"');
  const fileEnd = request.lastIndexOf('\r\n--');
  const offsets = [10, headEnd - 5, headEnd, headEnd + 100, headEnd + 400, headEnd + 70_000, request.length - 50];
  // Mid part headers; the whole file but not its closing boundary; inside the boundary; all but the last byte.
  offsets.push(fileHeaders + 20, fileEnd, fileEnd + 6, request.length - 1);
  for (const upTo of offsets) await sendAndDrop(server.port, request, upTo, 150);
  // Many more, at spread offsets through the file, so a handle lost now and then would add up.
  for (let i = 1; i <= 16; i++)
    await sendAndDrop(server.port, request, headEnd + Math.floor((fileEnd - headEnd) * (i / 17)), 60);
  // Several at once, mid-file.
  await Promise.all([1e5, 5e5, 1e6, 2e6].map((n) => sendAndDrop(server.port, request, headEnd + n, 200)));
  // A client that goes silent half-way without closing (a lost network): dropped after UPLOAD_IDLE_SECONDS (1 s here).
  const silent = net.connect(server.port, '127.0.0.1');
  silent.on('error', () => undefined);
  silent.resume();
  const silentClosed = new Promise((r) => silent.once('close', r));
  silent.write(request.subarray(0, headEnd + 300_000));
  const droppedInTime = await Promise.race([silentClosed.then(() => true), sleep(8000).then(() => false)]);
  silent.destroy();
  assert.ok(droppedInTime, 'the server kept a silent upload open');
  assert.ok(await eventually(() => scratch(ctx).length === 0, 3000), `scratch files left: ${scratch(ctx).join(', ')}`);
  assert.ok(
    await eventually(() => fdCount(server.pid) <= before, 3000),
    `open handles grew: ${before} → ${fdCount(server.pid)}; new: ${fdTargets(server.pid)
      .filter((t) => !beforeTargets.includes(t))
      .join(', ')}`,
  );
  assertNoErrorLines(server);
  // The server still serves.
  const health = await fetch(`${server.baseUrl}/healthz`);
  assert.is(health.status, 200);
});

t('malformed HTTP is not logged at error level', async (ctx) => {
  const { server } = ctx;
  const junks = [
    'GARBAGE\r\n\r\n',
    'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
    '\x00\x01\x02',
    // Requests that end inside their body: a short one, and a chunked one whose chunk size is not hex.
    `POST /api/media/x/tags HTTP/1.1\r\nHost: x\r\nx-api-key: ${SERVER_KEY}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"lab`,
    `POST /api/media/x/tags HTTP/1.1\r\nHost: x\r\nx-api-key: ${SERVER_KEY}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n`,
  ];
  for (const junk of junks) {
    const socket = net.connect(server.port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.resume(); // reads (and drops) the answer, so that the socket can end
    socket.end(junk);
    const closed = new Promise((r) => socket.once('close', r));
    if (!(await Promise.race([closed.then(() => true), sleep(10_000).then(() => false)]))) {
      socket.destroy();
      assert.unreachable(`the server kept a connection open after ${JSON.stringify(junk)}`);
    }
  }
  await sleep(200);
  assertNoErrorLines(server);
});

t.run();
