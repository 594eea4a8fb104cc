/**
 * Builds the web application (web/ → dist/web): one esbuild bundle of the Preact TSX and its CSS,
 * with content hashes in the asset names (served `immutable`), and index.html naming them (served
 * `no-cache`). Fails when the initial JavaScript exceeds its budget (100 kB gzip, issue #15).
 * Code splitting: a screen may `import()` heavy code (the map and its atlas) as a chunk loaded from our
 * origin when it opens; the budget counts the entry and every chunk it imports statically.
 *
 * Usage: npm run build:web [-- --outdir <dir>]
 */
import { build, type Metafile } from 'esbuild';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { writeAppIcons } from './web-icons.js';

const root = path.resolve(import.meta.dirname, '..');
/** The initial JavaScript may not exceed this many gzip bytes. */
export const JS_BUDGET_GZIP_BYTES = 100 * 1024;

export interface WebBuild {
  outdir: string;
  /** Gzip size of the entry script, in bytes. */
  jsGzipBytes: number;
  cssGzipBytes: number;
}

export async function buildWeb(outdir = path.join(root, 'dist/web')): Promise<WebBuild> {
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: { app: 'web/main.tsx' },
    bundle: true,
    format: 'esm',
    splitting: true,
    chunkNames: 'chunk-[hash]',
    target: 'es2022',
    minify: true,
    sourcemap: 'linked',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: path.join(outdir, 'assets'),
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    metafile: true,
    logLevel: 'warning',
    legalComments: 'none',
  });
  const outputs = result.metafile.outputs;
  const entry = Object.keys(outputs).find((f) => outputs[f].entryPoint === 'web/main.tsx');
  const cssBundle = entry ? outputs[entry].cssBundle : undefined;
  if (!entry || !cssBundle) throw new Error('esbuild produced no script or stylesheet');
  const js = path.resolve(root, entry);
  const css = path.resolve(root, cssBundle);
  const url = (file: string) => '/' + path.relative(outdir, file).split(path.sep).join('/');
  const template = await readFile(path.join(root, 'web/index.html'), 'utf8');
  const html = template.replace('%SCRIPT%', url(js)).replace('%STYLESHEET%', url(css));
  await writeFile(path.join(outdir, 'index.html'), html);
  await writeAppIcons(root, outdir);
  let jsGzipBytes = 0;
  for (const file of initialScripts(outputs, entry))
    jsGzipBytes += gzipSync(await readFile(path.resolve(root, file))).length;
  const cssGzipBytes = gzipSync(await readFile(css)).length;
  if (jsGzipBytes > JS_BUDGET_GZIP_BYTES)
    throw new Error(`initial JavaScript is ${jsGzipBytes} bytes gzip, over the ${JS_BUDGET_GZIP_BYTES}-byte budget`);
  return { outdir, jsGzipBytes, cssGzipBytes };
}

/** The entry script and the chunks it imports statically (what the page loads before any screen asks for more). */
function initialScripts(outputs: Metafile['outputs'], entry: string): string[] {
  const seen = new Set<string>([entry]);
  for (const file of seen)
    for (const imp of outputs[file]?.imports ?? []) if (imp.kind === 'import-statement') seen.add(imp.path);
  return [...seen];
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const i = process.argv.indexOf('--outdir');
  const built = await buildWeb(i > 0 ? path.resolve(process.argv[i + 1]) : undefined);
  const kb = (n: number) => (n / 1024).toFixed(1);
  console.log(
    `web app → ${path.relative(root, built.outdir)}: JS ${kb(built.jsGzipBytes)} kB gzip, CSS ${kb(built.cssGzipBytes)} kB gzip`,
  );
}
