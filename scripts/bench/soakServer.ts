/**
 * The soak bench's server: `src/main.ts` in a child process of its own (as `npm start` runs it, without the
 * build step), so its memory and open file handles are the server's alone, not the load generator's.
 * The probe preloaded into it (soakProbe.ts) reports memory after a full GC over the IPC channel; open file
 * handles are the entries of /proc/<pid>/fd (Linux; null elsewhere).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export const SOAK_KEY = 'bench-soak-key-0123456789abcdef0';

export interface ProcessSample {
  at: number;
  rss: number;
  heapUsed: number;
  fds: number | null;
}

export interface SoakServer {
  baseUrl: string;
  pid: number;
  /** Lines the server logged at error level (or worse) since it started. */
  errorLines: string[];
  sample(): Promise<ProcessSample>;
  stop(): Promise<number | null>;
}

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

function openFds(pid: number): number | null {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return null;
  }
}

export async function startSoakServer(root: string, dataDir: string, modelsDir: string): Promise<SoakServer> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    MODELS_DIR: modelsDir,
    MODEL_PROFILE: 'test',
    AUTO_FETCH_MODELS: '0',
    BOOTSTRAP_API_KEY: SOAK_KEY,
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: baseUrl,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '100000000',
    INGEST_CONCURRENCY: '1',
  };
  const args = ['--expose-gc', '--import', 'tsx', '--import', './scripts/bench/soakProbe.ts', 'src/main.ts'];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const errorLines: string[] = [];
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const onLine = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      // JSON log lines carry "level"; anything else on stderr (a crash) counts too.
      if (/"level":\s*"(error|fatal)"/.test(line) || /^failed to start|Error:/.test(line)) errorLines.push(line);
    }
  };
  child.stdout!.on('data', onLine);
  child.stderr!.on('data', onLine);
  const until = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode}: ${errorLines.join('\n')}`);
    const ok = await fetch(`${baseUrl}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > until) throw new Error('server did not answer /healthz within 120 s');
    await sleep(200);
  }
  const pid = child.pid!;
  const memory = () =>
    new Promise<{ rss: number; heapUsed: number }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no memory answer from the server')), 10_000);
      const on = (msg: { type?: string; rss: number; heapUsed: number }) => {
        if (msg?.type !== 'memory') return;
        clearTimeout(timer);
        child.off('message', on);
        resolve(msg);
      };
      child.on('message', on);
      child.send('memory');
    });
  return {
    baseUrl,
    pid,
    errorLines,
    async sample() {
      const m = await memory();
      return { at: Date.now(), rss: m.rss, heapUsed: m.heapUsed, fds: openFds(pid) };
    },
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
