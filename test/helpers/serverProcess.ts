/**
 * Runs the real server (`src/main.ts` through tsx) as a child process over a
 * given DATA_DIR, for tests that need a process boundary: crash (SIGKILL) and
 * graceful-shutdown (SIGTERM) tests. The in-process harness (testApp.ts) is
 * the right tool for everything else.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

export const SERVER_KEY = 'crash-test-owner-key-0123456789abcdef';
const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');

export interface ServerProcess {
  child: ChildProcess;
  pid: number;
  port: number;
  baseUrl: string;
  dataDir: string;
  key: string;
  /** Every stdout/stderr line so far (JSON log lines and anything else). */
  logs: string[];
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL, then wait for the exit. */
  kill(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM (graceful), then wait for the exit, up to `timeoutMs` (then SIGKILL and throw). */
  stop(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', resolve);
  });
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/**
 * Spawns `node --import tsx src/main.ts` with DATA_DIR, a fixed bootstrap key,
 * HOST=127.0.0.1, a free PORT and a matching PUBLIC_URL; waits for the
 * `listening` log line and for GET /healthz to answer 200.
 */
export async function startServerProcess(opts: {
  dataDir: string;
  env?: Record<string, string>;
  startTimeoutMs?: number;
  /** Modules to preload (`--import`, after tsx), e.g. a test's hook into the server. */
  preload?: string[];
}): Promise<ServerProcess> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: opts.dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: baseUrl,
    BOOTSTRAP_API_KEY: SERVER_KEY,
    LOG_LEVEL: 'info',
    MODEL_PROFILE: 'test',
    SHUTDOWN_GRACE_SECONDS: '10',
    FORCE_COLOR: '0',
    AUTO_FETCH_MODELS: '0', // no test reaches the network unless it asks (and points MODEL_HUB_URL at 127.0.0.1)
    ...opts.env,
  };
  const preload = (opts.preload ?? []).flatMap((m) => ['--import', m]);
  const child = spawn(process.execPath, ['--import', 'tsx', ...preload, 'src/main.ts'], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  let listeningPort: number | null = null;
  let onListening: (() => void) | null = null;
  const collect = (stream: NodeJS.ReadableStream) => {
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      rest += chunk;
      let nl: number;
      while ((nl = rest.indexOf('\n')) >= 0) {
        const line = rest.slice(0, nl);
        rest = rest.slice(nl + 1);
        logs.push(line);
        if (listeningPort === null && line.startsWith('{')) {
          try {
            const entry = JSON.parse(line) as { msg?: string; port?: number };
            if (entry.msg === 'listening' && typeof entry.port === 'number') {
              listeningPort = entry.port;
              onListening?.();
            }
          } catch {
            /* not a JSON line */
          }
        }
      }
    });
  };
  collect(child.stdout!);
  collect(child.stderr!);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  let hasExited = false;
  void exited.then(() => (hasExited = true));

  const timeoutMs = opts.startTimeoutMs ?? 30_000;
  const tail = () => logs.slice(-20).join('\n');
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`server did not log "listening" within ${timeoutMs} ms:\n${tail()}`)),
        timeoutMs,
      );
      onListening = () => {
        clearTimeout(timer);
        resolve();
      };
      if (listeningPort !== null) onListening();
      void exited.then(({ code, signal }) => {
        clearTimeout(timer);
        reject(new Error(`server exited during start-up (code ${code}, signal ${signal}):\n${tail()}`));
      });
    });
    if (listeningPort !== port) throw new Error(`server listens on ${listeningPort}, expected ${port}`);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (hasExited) throw new Error(`server exited before /healthz answered:\n${tail()}`);
      const status = await fetch(`${baseUrl}/healthz`).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200) break;
      if (Date.now() > deadline)
        throw new Error(`/healthz did not answer 200 within ${timeoutMs} ms (last ${status}):\n${tail()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } catch (err) {
    if (!hasExited) child.kill('SIGKILL');
    await exited;
    throw err;
  }

  return {
    child,
    pid: child.pid!,
    port,
    baseUrl,
    dataDir: opts.dataDir,
    key: SERVER_KEY,
    logs,
    exited,
    async kill() {
      if (!hasExited) child.kill('SIGKILL');
      return exited;
    },
    async stop(stopTimeoutMs = 20_000) {
      if (!hasExited) child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), stopTimeoutMs)));
      const result = await Promise.race([exited, timedOut]);
      clearTimeout(timer);
      if (result === 'timeout') {
        child.kill('SIGKILL');
        await exited;
        throw new Error(`server did not exit within ${stopTimeoutMs} ms of SIGTERM:\n${tail()}`);
      }
      return result;
    },
  };
}
