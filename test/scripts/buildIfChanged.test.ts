/**
 * `npm start` builds only what changed (issue #29: it rebuilt everything, 8–10 s to the first answer). Runs
 * the prestart script, scripts/build-if-changed.mjs, in this checkout: once to bring dist/ up to date (a build
 * if needed), then again, which must build nothing and take well under a second or two — also after a source
 * file's modification time changes without its bytes (the stamp holds content hashes, not times).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const run = () => {
  const started = performance.now();
  const r = spawnSync(process.execPath, ['scripts/build-if-changed.mjs'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 300_000,
  });
  return { ...r, ms: performance.now() - started };
};

const t = suite('build if changed');

t('npm start builds nothing when nothing changed', () => {
  const first = run();
  assert.is(first.status, 0, `first build failed:\n${first.stderr}`);
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  assert.is(pkg.scripts.prestart, 'node scripts/build-if-changed.mjs');
  const again = run();
  assert.is(again.status, 0, again.stderr);
  assert.not.match(again.stderr, /built the/);
  assert.ok(again.ms < 3000, `a start with nothing to build spent ${again.ms.toFixed(0)} ms building`);
  // A file touched without a change (a checkout, a save without edits) is not a change.
  const file = path.join(ROOT, 'src/main.ts');
  const { atime, mtime } = statSync(file);
  utimesSync(file, atime, new Date());
  try {
    const touched = run();
    assert.not.match(touched.stderr, /built the/);
  } finally {
    utimesSync(file, atime, mtime);
  }
  const stamp = JSON.parse(readFileSync(path.join(ROOT, 'dist/.build-stamp.json'), 'utf8'));
  assert.match(stamp.server, /^[0-9a-f]{64}$/);
  assert.match(stamp.web, /^[0-9a-f]{64}$/);
});

t.run();
