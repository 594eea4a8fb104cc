/**
 * `npm run bench [-- [--quick] [section ...]]`: performance figures, each beside
 * a baseline measured in the same run. A script, not a test: it prints a table
 * per section and writes `.bench/results-<section>.json`.
 *
 *   npm run bench                  every section, full size
 *   npm run bench -- --quick       every section on a small data set (checks the script works)
 *   npm run bench -- library       only the library section
 *
 * A later issue adds a section by writing scripts/bench/<name>.ts exporting
 * `run<Name>Bench(opts: BenchOptions): Promise<SectionResult>` and listing it in
 * SECTIONS below.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  formatSection,
  fmtMs,
  machineInfo,
  now,
  writeResults,
  type BenchOptions,
  type SectionResult,
} from './bench/harness.js';
import { runAiBench } from './bench/ai.js';
import { runSearchBench } from './bench/search.js';
import { runSearchApiBench } from './bench/searchApi.js';
import { runLibraryBench } from './bench/library.js';
import { runIngestBench } from './bench/ingest.js';
import { runEditBench } from './bench/edit.js';
import { runGenerateBench } from './bench/generate.js';
import { runWebBench } from './bench/web.js';
import { runRenditionsBench } from './bench/renditions.js';
import { runThroughputBench } from './bench/throughput.js';
import { runImportBench } from './bench/importCli.js';
import { runSearchableBench } from './bench/searchable.js';
import { runScaleBench } from './bench/scale.js';
import { runFormatsBench } from './bench/formats.js';
import { runBackupBench } from './bench/backup.js';
import { runBulkBench } from './bench/bulk.js';
import { runDuplicatesBench } from './bench/duplicates.js';
import { runPlacesBench } from './bench/places.js';
import { runPeopleBench } from './bench/people.js';
import { runTimelineBench } from './bench/timeline.js';
import { runSoakBench } from './bench/soak.js';

const SECTIONS: Record<string, { describe: string; run: (opts: BenchOptions) => Promise<SectionResult> }> = {
  library: {
    describe:
      'collection of 100,000 items (BENCH_LIBRARY_SIZE to change): browse, tags, tag filters, folder moves, writes, uploads, each beside the code before (issues 2, 17)',
    run: runLibraryBench,
  },
  search: {
    describe:
      'vector index: 10k/100k/1M vectors a collection, bit first pass + int8 re-rank vs exact scan, recall@10 (issue 5)',
    run: runSearchBench,
  },
  'search-api': {
    describe:
      'GET /api/search end to end over HTTP at 10k/100k/1M frames vs the same request with an exact scan, recall@10 (issue 5)',
    run: runSearchApiBench,
  },
  ai: {
    describe: 'model runner vs bare ONNX session, images/s, browse latency and event loop under inference (issue 3)',
    run: runAiBench,
  },
  ingest: {
    describe:
      'ingest throughput with the real detectors (images/s, video s/s) and the share of time outside inference (issue 4)',
    run: runIngestBench,
  },
  throughput: {
    describe:
      "photos/h and video s/h at the real default models' cost (cost-equivalent SigLIP-B/16 and Florence-2-base, real YOLOX-Nano, UltraFace, PP-OCRv4), per stage, browse p99 under ingest, each speed-up beside the one before (issue 18)",
    run: runThroughputBench,
  },
  renditions: {
    describe: 'ingest of the fixture photos and videos with thumbnails (the rendition stage) vs without, same items',
    run: runRenditionsBench,
  },
  import: {
    describe:
      'npm run import against a local server (files/s, hashing and lookup included) vs sequential uploads of the same photos, and a rerun (issue 18)',
    run: runImportBench,
  },
  searchable: {
    describe:
      'an upload found by a meaning search while a 1,000-photo import is analysed: phased ingest vs first come first served (issue 18)',
    run: runSearchableBench,
  },
  edit: {
    describe:
      'POST /api/ai/edit operations on a 12-megapixel photo, each beside a decode + encode of the same image (issue 6)',
    run: runEditBench,
  },
  generate: {
    describe:
      'time per generated image with the Janus stand-in: POST /api/ai/generate and the worker vs the bare transformers.js call (issue 6)',
    run: runGenerateBench,
  },
  scale: {
    describe:
      'the same library on SQLite and PostgreSQL (PGlite; TEST_DATABASE_URL for a real server): browse (deep offsets, tag filters), text, vector and /api/search with recall@10, a 10,000-item folder move, the migrate copy rate; ingest with 1 vs 2 worker processes on Debian PostgreSQL (issue 25)',
    run: runScaleBench,
  },
  formats: {
    describe:
      'decode + frame of a 12 MP HEIC and of a RAW beside a JPEG of the same pixels, web-copy transcode speed, browse p99 during a transcode (issue 26)',
    run: runFormatsBench,
  },
  backup: {
    describe:
      'a 10,000-item library: full, incremental and unchanged backups and a restore beside cp -a, the integrity pass, the re-hash rate, browse p99 beside a throttled re-hash (issue 29)',
    run: runBackupBench,
  },
  bulk: {
    describe:
      'POST /api/media/bulk: tag 10,000 and 100,000 items beside the single-item tag write, select all matching of 1,000,000 items beside a browse page, undo (issue 27)',
    run: runBulkBench,
  },
  duplicates: {
    describe:
      'near-duplicate scan of 100,000 synthetic 768-dim vectors (LSH) beside all-pairs cosine, recall; the scan job over a SQLite library (issue 27)',
    run: runDuplicatesBench,
  },
  people: {
    describe:
      'face clusters as people over HTTP on 5,000 people: merging 100 into one beside clustering their faces, the People page and suggestions beside a browse page (issue 27)',
    run: runPeopleBench,
  },
  places: {
    describe:
      'offline reverse geocoding: index build off the event loop, lookups/s beside a linear scan, the places sweep and the map listing at 50,000 items beside a browse page (issue 26)',
    run: runPlacesBench,
  },
  soak: {
    describe:
      'a day under load, compressed: browse, search, item, tag edits, uploads and event streams at once against a server that ingests, p50/p99 beside idle, errors, memory and file handles start vs end, every upload kept; 180 s (--duration) (issue 29)',
    run: runSoakBench,
  },
  web: {
    describe:
      'the web app in Chromium: first paint of a 100k-item folder and of a search, opening an item, scrolling 10k/100k items (issue 15)',
    run: runWebBench,
  },
  timeline: {
    describe:
      'the timeline over HTTP at 100,000 items on SQLite and PGlite: month buckets and a month jump (a date-range page) beside a browse first page (issue 26)',
    run: runTimelineBench,
  },
};

/** The commit measured, and whether src/ had uncommitted changes (the figures then describe those). */
function gitState(cwd: string): { commit: string | null; srcDirty: boolean | null } {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd, encoding: 'utf8' }).trim() !== '';
    return { commit, srcDirty: dirty };
  } catch {
    return { commit: null, srcDirty: null };
  }
}

function usage(): string {
  return [
    'usage: npm run bench -- [--quick] [--keep] [section ...]',
    '  --quick   small data set and few repetitions (well under a minute)',
    "  --keep    leave each section's temp data directory in place (path printed)",
    '  --duration N   how long the soak section loads the server: seconds, or 10m, 1h (default 180 s, quick 15 s)',
    '  sections (default: all):',
    ...Object.entries(SECTIONS).map(([name, s]) => `    ${name.padEnd(10)} ${s.describe}`),
  ].join('\n');
}

/** Removes `--duration N` / `--duration=N` from args; undefined when absent, null when not a duration. */
function takeDuration(args: string[]): number | undefined | null {
  const i = args.findIndex((a) => a === '--duration' || a.startsWith('--duration='));
  if (i < 0) return undefined;
  const value = args[i].includes('=') ? args[i].split('=')[1] : args[i + 1];
  args.splice(i, args[i].includes('=') ? 1 : 2);
  const m = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(value ?? '');
  if (!m) return null;
  return Number(m[1]) * { s: 1, m: 60, h: 3600 }[(m[2] ?? 's') as 's' | 'm' | 'h'];
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(usage());
    return 0;
  }
  const quick = args.includes('--quick');
  const keep = args.includes('--keep');
  const durationS = takeDuration(args);
  if (durationS === null) {
    console.error(`--duration takes seconds (or 10m, 1h)\n${usage()}`);
    return 2;
  }
  const unknownFlags = args.filter((a) => a.startsWith('-') && a !== '--quick' && a !== '--keep');
  const names = args.filter((a) => !a.startsWith('-'));
  const unknown = names.filter((n) => !(n in SECTIONS));
  if (unknownFlags.length || unknown.length) {
    console.error(`unknown ${[...unknownFlags, ...unknown].join(', ')}\n${usage()}`);
    return 2;
  }
  const selected = names.length ? [...new Set(names)] : Object.keys(SECTIONS);

  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  // BENCH_OUT_DIR: where the results go instead (the test of the quick runs keeps its own out of .bench/).
  const outDir = process.env.BENCH_OUT_DIR ?? path.join(root, '.bench');
  const machine = machineInfo();
  const git = gitState(root);
  const started = now();
  console.log(
    `machine: ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB, ${machine.platform}; node ${machine.node}; ` +
      `load average ${machine.loadavg.join(' ')}; commit ${git.commit ?? '?'}${git.srcDirty ? ' + uncommitted src/ changes' : ''}` +
      `${quick ? '; QUICK run (small data set: figures are not comparable with the targets)' : ''}`,
  );

  let failed = false;
  for (const name of selected) {
    const opts: BenchOptions = { quick, keep, outDir, durationS, log: (line) => console.log(`[${name}] ${line}`) };
    try {
      const result = await SECTIONS[name].run(opts);
      console.log(formatSection(result));
      const file = await writeResults(outDir, result, { machine, git, startedAt: new Date().toISOString() });
      console.log(`\nwrote ${path.relative(process.cwd(), file)}`);
    } catch (err) {
      failed = true;
      console.error(`[${name}] failed:`, err);
    }
  }
  console.log(`\ntotal run time: ${fmtMs(now() - started)}`);
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
