/**
 * `npm start`'s build (the `prestart` script): builds what changed since the last build and nothing else.
 *
 * Two parts, each with its inputs, its output and its command — the server (`tsc -p tsconfig.build.json` →
 * dist/src) and the web application (scripts/build-web.ts → dist/web). A part is built when its output is
 * missing or the sha256 of its inputs (every file's path and bytes) differs from the one dist/.build-stamp.json
 * recorded after its last successful build. A first start (no dist/) therefore builds both, exactly as
 * `npm run build` does; a start after no change builds nothing (issue #29: 8–10 s to the first answer → the
 * server's own start-up). A failed build records nothing, so the next start tries again.
 *
 * Plain JavaScript run by node, not TypeScript through tsx: tsx's own start-up (~0.5 s) would be most of what
 * a start with nothing to build costs. Usage: node scripts/build-if-changed.mjs [--force]
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const STAMP = path.join(root, 'dist', '.build-stamp.json');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
/** Inputs every part depends on: the dependencies (their types, the bundled packages) and the compiler settings. */
const SHARED = ['package.json', 'package-lock.json', 'tsconfig.json'];

/** @type {Record<string, { inputs: string[], output: string, command: string[] }>} */
const PARTS = {
  server: {
    inputs: [...SHARED, 'tsconfig.build.json', 'src', 'scripts/models.ts'],
    output: 'dist/src/main.js',
    command: [bin('tsc'), '-p', 'tsconfig.build.json'],
  },
  web: {
    inputs: [...SHARED, 'web', 'scripts/build-web.ts'],
    output: 'dist/web/index.html',
    command: [bin('tsx'), 'scripts/build-web.ts'],
  },
};

/** Every file under `rel` (a file or a folder), sorted, skipping build outputs and dependencies. */
function filesOf(rel) {
  const full = path.join(root, rel);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [rel];
  return readdirSync(full)
    .filter((name) => name !== 'node_modules' && name !== 'dist')
    .sort()
    .flatMap((name) => filesOf(path.join(rel, name)));
}

/** The sha256 of the inputs' paths and contents. */
function fingerprint(inputs) {
  const hash = createHash('sha256');
  for (const file of inputs.flatMap(filesOf)) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(path.join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

function readStamp() {
  try {
    return JSON.parse(readFileSync(STAMP, 'utf8'));
  } catch {
    return {};
  }
}

const force = process.argv.includes('--force');
const stamp = readStamp();
let failed = false;
for (const [name, part] of Object.entries(PARTS)) {
  const print = fingerprint(part.inputs);
  if (!force && stamp[name] === print && existsSync(path.join(root, part.output))) continue;
  const started = Date.now();
  const run = spawnSync(part.command[0], part.command.slice(1), { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) {
    failed = true;
    delete stamp[name];
    console.error(`build of the ${name} failed (${part.command.slice(1).join(' ')})`);
    continue;
  }
  stamp[name] = print;
  console.error(`built the ${name} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
mkdirSync(path.dirname(STAMP), { recursive: true });
writeFileSync(STAMP, JSON.stringify(stamp, null, 2) + '\n');
process.exit(failed ? 1 : 0);
