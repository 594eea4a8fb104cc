/**
 * The bench keeps running to the end (issue #29: `npm run bench -- library` had stopped at migration 022,
 * whose column a trigger of migration 025 names). Runs `npm run bench -- --quick library` — its every
 * measurement, the migration timings included, on a 4,000-item library: about 15 s — and fails on a
 * non-zero exit or a section that says it failed.
 *
 * BENCH_QUICK_SECTIONS=all (or a comma-separated list) runs those sections' quick mode instead; the full
 * set needs minutes, the model stand-ins and Chromium, too much for every CI run.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const chosen = process.env.BENCH_QUICK_SECTIONS ?? 'library';
const sections = chosen === 'all' ? [] : chosen.split(',').map((s) => s.trim());

const t = suite('bench quick runs');

t(`npm run bench -- --quick ${chosen} runs to the end`, () => {
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'bench-quick-'));
  try {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/bench.ts', '--quick', ...sections], {
      cwd: ROOT,
      env: { ...process.env, BENCH_OUT_DIR: outDir, LOG_LEVEL: 'silent' },
      encoding: 'utf8',
      timeout: chosen === 'library' ? 120_000 : 3_600_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    const output = `${run.stdout}\n${run.stderr}`;
    const failures = output.split('\n').filter((l) => /^\[[\w-]+\] failed:/.test(l));
    const tail = output.split('\n').slice(-40).join('\n');
    assert.equal(failures, [], `sections failed:\n${tail}`);
    assert.is(run.status, 0, `exit ${run.status} (${run.signal ?? 'no signal'}):\n${tail}`);
    const wrote = readdirSync(outDir).filter((f) => f.startsWith('results-'));
    for (const name of sections) assert.ok(wrote.includes(`results-${name}.json`), `no results for ${name}`);
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
});

t.run();
