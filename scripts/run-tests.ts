/**
 * Test runner: runs every test/**\/*.test.ts file (uvu suites) in its own Node
 * process, two at a time, so servers, worker threads and environment changes of
 * one file can't leak into another. Prints each file's output, then one summary
 * line `N passed, M failed, K skipped` that CI reads.
 *
 * Usage: npm test [-- <substring filter>...]
 */
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';

const root = path.resolve(import.meta.dirname, '..');
const filters = process.argv.slice(2);

function findTests(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...findTests(full));
    else if (name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

interface Result {
  file: string;
  passed: number;
  failed: number;
  skipped: number;
  code: number | null;
  output: string;
  ms: number;
}

function runFile(file: string): Promise<Result> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file], {
      cwd: root,
      env: {
        ...process.env,
        FORCE_COLOR: '0',
        LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
        // Files run two at a time, each with its own model worker: one intra-op thread each (the default is
        // every core) keeps them from crowding the browser and the servers; tests check behaviour, not speed.
        MODEL_THREADS: process.env.MODEL_THREADS ?? '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => {
      const num = (label: string) => {
        const all = [...output.matchAll(new RegExp(`${label}:\\s+(\\d+)`, 'g'))];
        return all.reduce((s, m) => s + Number(m[1]), 0);
      };
      // uvu's Total leaves skipped tests out already: failures are Total − Passed.
      const total = num('Total');
      const passed = num('Passed');
      const skipped = num('Skipped');
      let failed = Math.max(0, total - passed);
      // A file that crashed or exited non-zero without reporting counts as one failure.
      if (code !== 0 && failed === 0) failed = 1;
      resolve({ file: path.relative(root, file), passed, failed, skipped, code, output, ms: Date.now() - started });
    });
  });
}

const files = findTests(path.join(root, 'test')).filter(
  (f) => filters.length === 0 || filters.some((s) => f.includes(s)),
);
const parallel = Math.max(1, Math.min(Number(process.env.TEST_PARALLEL ?? 2), os.cpus().length));
const results: Result[] = [];
let next = 0;
async function worker() {
  while (next < files.length) {
    const file = files[next++];
    const r = await runFile(file);
    results.push(r);
    process.stdout.write(
      `\n=== ${r.file} (${(r.ms / 1000).toFixed(1)} s): ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped\n`,
    );
    if (r.failed > 0 || process.env.TEST_VERBOSE) process.stdout.write(r.output);
    else {
      // Keep skip messages visible: they say what was not exercised and why.
      for (const line of r.output.split('\n')) if (/^SKIP/.test(line)) process.stdout.write(line + '\n');
    }
  }
}
await Promise.all(Array.from({ length: parallel }, worker));
const sum = (k: 'passed' | 'failed' | 'skipped') => results.reduce((s, r) => s + r[k], 0);
const failedFiles = results.filter((r) => r.failed > 0).map((r) => r.file);
if (failedFiles.length) process.stdout.write(`\nFailed files: ${failedFiles.join(', ')}\n`);
process.stdout.write(`\n${sum('passed')} passed, ${sum('failed')} failed, ${sum('skipped')} skipped\n`);
process.exit(sum('failed') > 0 ? 1 : 0);
