/**
 * npm run models -- <command>
 *
 *   list                 every catalog model: installed / partial / missing, and checksum state
 *   fetch [name...]      download from the Hugging Face hub (default: the models the default profile uses;
 *                        `all` for every downloadable model: hub repositories and download URLs); refuses when OFFLINE=1
 *   verify [name...]     re-hash installed files against known / recorded sha256 (default: all present)
 *
 * Settings: MODELS_DIR (where model folders and checksums.lock.json live),
 * OFFLINE, MODEL_HUB_URL (default https://huggingface.co; tests point it at 127.0.0.1).
 * Exit status: 0 ok, 1 a mismatch / missing / failed download, 2 usage or refused.
 */
import { loadConfig } from '../src/config.js';
import { loadCatalog, type Catalog, type ModelEntry } from '../src/models/catalog.js';
import { lockPath, readLock } from '../src/models/checksums.js';
import { DEFAULT_HUB_URL, fetchModel } from '../src/models/fetch.js';
import { modelStatus, verifyModel, type ModelStatus } from '../src/models/inventory.js';
import { fetchableEntries, profileEntries } from '../src/models/selection.js';

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

function rolesOf(catalog: Catalog, name: string): string {
  const roles = Object.entries(catalog.roles.default)
    .filter(([, v]) => v === name)
    .map(([k]) => k);
  return roles.length ? roles.join(',') : '-';
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
          rolesOf(catalog, entry.name),
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
    default:
      return fail('usage: npm run models -- list | fetch [name...|all] | verify [name...]', 2);
  }
}

process.exitCode = await main().catch((err: Error) => fail(err.message, 1));
