/**
 * Runs an import: plan (plan.ts), then create the folders and upload the files still missing, several at a
 * time, with progress; a file that fails is reported and the rest go on. A rerun after an interruption finds
 * what landed by its content hash and uploads only the rest: the server stores an upload whole or not at
 * all, so nothing is imported twice and nothing is missing.
 */
import path from 'node:path';
import type { ImportOptions } from './args.js';
import { ApiError, createClient, type ApiClient } from './client.js';
import { folderResolver } from './folders.js';
import { mapLimit } from './hash.js';
import { planImport, type ImportPlan, type PlannedFile } from './plan.js';
import { createProgress, formatBytes, formatDuration, type Counts, type Progress } from './progress.js';

export interface ImportSummary {
  plan: ImportPlan;
  uploaded: number;
  bytes: number;
  /** Refused by the server as not a supported or decodable image or video (415, 422, 413). */
  refused: Array<{ relPath: string; reason: string }>;
  failed: Array<{ relPath: string; reason: string }>;
  foldersCreated: string[];
  elapsedMs: number;
}

export interface Output {
  out: { isTTY?: boolean; write(s: string): unknown };
  logEveryMs?: number;
}

/** Server answers that say "this file is not for us" rather than "something went wrong". */
const REFUSALS = new Set([413, 415, 422]);

export async function runImport(opts: ImportOptions, io: Output, client?: ApiClient): Promise<ImportSummary> {
  const api = client ?? createClient({ baseUrl: opts.server, key: opts.key });
  const say = (line: string) => io.out.write(line + '\n');
  const started = Date.now();
  say(`import ${opts.dir} → ${opts.server}${opts.dryRun ? ' (dry run: nothing is uploaded or created)' : ''}`);
  const plan = await planImport(api, opts);
  const ds = plan.dataset;
  say(`collection "${ds.name}"${ds.created ? (opts.dryRun ? ' (would be created)' : ' (created)') : ''}`);
  say(
    `${plan.files} files: ${plan.upload.length} to upload (${formatBytes(sum(plan.upload))}), ` +
      `${plan.inLibrary.length} already in the collection, ${plan.duplicates.length} duplicates within the folder, ` +
      `${plan.unsupported.length} unsupported; ${plan.ignored.length} hidden or housekeeping entries left out`,
  );
  const folders = folderResolver(api, ds.id, ds.id.replace(/-/g, '').toLowerCase(), opts.dryRun || !ds.id);
  const summary: ImportSummary = {
    plan,
    uploaded: 0,
    bytes: 0,
    refused: [],
    failed: [],
    foldersCreated: [],
    elapsedMs: 0,
  };
  if (opts.dryRun) {
    for (const f of plan.upload) await folders.resolve(folderNames(opts.into, f.relPath));
  } else {
    await uploadAll(api, opts, plan, summary, folders, createProgress(io.out, { logEveryMs: io.logEveryMs }));
  }
  summary.foldersCreated = folders.created();
  summary.elapsedMs = Date.now() - started;
  printSummary(say, opts, summary);
  return summary;
}

const sum = (files: PlannedFile[]) => files.reduce((n, f) => n + f.size, 0);

/** The folder names a file goes into: --into, then the folders of its relative path. */
function folderNames(into: string, relPath: string): string {
  const dir = path.posix.dirname(relPath);
  return [into, dir === '.' ? '' : dir].filter(Boolean).join('/');
}

async function uploadAll(
  api: ApiClient,
  opts: ImportOptions,
  plan: ImportPlan,
  summary: ImportSummary,
  folders: ReturnType<typeof folderResolver>,
  progress: Progress,
): Promise<void> {
  const skipped = plan.inLibrary.length + plan.duplicates.length;
  const counts: Counts = {
    total: plan.upload.length + skipped,
    totalBytes: sum(plan.upload),
    uploaded: 0,
    skipped,
    failed: 0,
    bytes: 0,
  };
  if (plan.upload.length === 0) return;
  let fatal: ApiError | null = null;
  await mapLimit(plan.upload, opts.concurrency, async (f) => {
    if (fatal) return;
    try {
      const folderPath = await folders.resolve(folderNames(opts.into, f.relPath));
      await api.upload(
        {
          datasetId: plan.dataset.id,
          ...(folderPath ? { path: folderPath } : {}),
          name: path.posix.basename(f.relPath),
        },
        f.absPath,
        path.posix.basename(f.relPath),
        f.sidecar,
      );
      counts.uploaded++;
      counts.bytes += f.size;
    } catch (err) {
      const e = err instanceof ApiError ? err : new ApiError(0, 'local', (err as Error).message);
      // A key that may not upload here fails every file alike: stop instead of repeating it for each.
      if (e.status === 401 || e.status === 403) fatal = e;
      if (REFUSALS.has(e.status)) summary.refused.push({ relPath: f.relPath, reason: e.message });
      else summary.failed.push({ relPath: f.relPath, reason: e.status ? `${e.status}: ${e.message}` : e.message });
      counts.failed++;
      counts.totalBytes -= f.size;
    }
    progress.update(counts);
  });
  progress.finish(counts);
  summary.uploaded = counts.uploaded;
  summary.bytes = counts.bytes;
  if (fatal) throw fatal;
}

function printSummary(say: (l: string) => void, opts: ImportOptions, s: ImportSummary): void {
  const { plan } = s;
  const list = (title: string, rows: Array<{ relPath: string; reason: string }>) => {
    if (!rows.length) return;
    say(`${title} (${rows.length}):`);
    for (const r of rows.slice(0, 50)) say(`  ${r.relPath}: ${r.reason}`);
    if (rows.length > 50) say(`  … and ${rows.length - 50} more`);
  };
  if (opts.dryRun) {
    for (const f of s.foldersCreated) say(`would create folder ${f}`);
    for (const f of plan.upload) say(`would upload ${f.relPath} (${formatBytes(f.size)})`);
  }
  list(
    'duplicates within the folder, skipped',
    plan.duplicates.map((d) => ({ relPath: d.relPath, reason: `same bytes as ${d.sameAs}` })),
  );
  list('unsupported, skipped', [...plan.unsupported, ...s.refused]);
  list('failed', s.failed);
  const verb = opts.dryRun ? 'would upload' : 'uploaded';
  const count = opts.dryRun ? plan.upload.length : s.uploaded;
  say(
    `done in ${formatDuration(s.elapsedMs)}: ${verb} ${count} (${formatBytes(opts.dryRun ? sum(plan.upload) : s.bytes)}), ` +
      `${plan.inLibrary.length + plan.duplicates.length} skipped (already in the collection, or repeated), ` +
      `${plan.unsupported.length + s.refused.length} unsupported, ${s.failed.length} failed, ` +
      `${s.foldersCreated.length} folders ${opts.dryRun ? 'to create' : 'created'}`,
  );
}
