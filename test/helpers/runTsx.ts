/**
 * Runs a TypeScript entry point of this repository (`node --import tsx <args>`: src/main.ts, a script) to its exit,
 * as an operator would, for the tests of what it prints when it refuses: its exit code and its stderr.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/**
 * `env` is added to this process's environment and the test profile's (no model fetch, warnings only, any port);
 * `uid` runs it as that user (and group). Killed after 60 s.
 */
export function runTsx(
  args: string[],
  opts: { env?: Record<string, string>; uid?: number } = {},
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
      cwd: ROOT,
      env: {
        ...process.env,
        MODEL_PROFILE: 'test',
        AUTO_FETCH_MODELS: '0',
        LOG_LEVEL: 'warn',
        PORT: '0',
        // tsx keeps its cache in the temp folder per user; another user gets its own.
        ...(opts.uid !== undefined ? { HOME: os.tmpdir() } : {}),
        ...opts.env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
      ...(opts.uid !== undefined ? { uid: opts.uid, gid: opts.uid } : {}),
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}
