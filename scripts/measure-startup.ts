/**
 * Start to first answer of `npm start`: spawns it with a fresh temp DATA_DIR and a free PORT, polls GET /healthz
 * every 20 ms and prints the time to the first 200, then stops the server (SIGTERM to its process group).
 * The figures behind docs/measurements/startup.md.
 *
 * Usage: npx tsx scripts/measure-startup.ts [--runs N] [--clean]
 *   --clean   removes dist/ before the first run (that run then includes the whole first build)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const runs = Number(args[args.indexOf('--runs') + 1] || 3) || 3;

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/** One `npm start`: milliseconds from spawn to the first 200 of /healthz. */
async function startOnce(): Promise<number> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'startup-'));
  const port = await freePort();
  const started = performance.now();
  const child = spawn('npm', ['start', '--silent'], {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', AUTO_FETCH_MODELS: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  let exited = false;
  child.once('exit', () => (exited = true));
  try {
    for (;;) {
      if (exited) throw new Error(`npm start exited before answering:\n${stderr}`);
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) return performance.now() - started;
      if (performance.now() - started > 120_000) throw new Error('no answer within 120 s');
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    if (!exited) {
      const gone = new Promise((r) => child.once('exit', r));
      process.kill(-child.pid!, 'SIGTERM');
      await gone;
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (args.includes('--clean')) rmSync(path.join(root, 'dist'), { recursive: true, force: true });
const times: number[] = [];
for (let i = 0; i < runs; i++) {
  const ms = await startOnce();
  times.push(ms);
  console.log(`run ${i + 1}: ${(ms / 1000).toFixed(2)} s to the first answer`);
}
const sorted = [...times].sort((a, b) => a - b);
console.log(
  `${runs} runs: median ${(sorted[Math.floor(runs / 2)] / 1000).toFixed(2)} s, min ${(sorted[0] / 1000).toFixed(2)} s, ` +
    `max ${(sorted[runs - 1] / 1000).toFixed(2)} s (load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')})`,
);
