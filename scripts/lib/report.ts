import { formatBytes } from '../../src/cli/import/progress.js';
import type { IntegrityReport } from '../../src/features/backup/integrity.js';

/** The integrity report in lines: a summary, then what was found, a line each (at most 20 of a kind). */
export function printReport(r: IntegrityReport): void {
  const c = r.counts;
  const rehash = r.rehash
    ? r.rehash.position === null
      ? `re-hash of ${r.rehash.files} originals (${formatBytes(r.rehash.bytes)}) finished ${r.rehash.completedAt}`
      : `re-hash under way: ${r.rehash.files} originals (${formatBytes(r.rehash.bytes)}) so far`
    : 'originals never re-hashed';
  console.log(
    `${r.ok ? 'ok' : 'PROBLEMS'}: ${r.items} items, ${r.files} files; ${c.missingOriginals} originals missing, ` +
      `${c.missingDerived} derived files missing, ${c.withoutRenditions} items without thumbnails, ` +
      `${r.untracked === null ? 'untracked files not looked for (this store cannot be listed)' : `${c.untracked} untracked files`}, ` +
      `${c.rotten} rotten originals; ${rehash}`,
  );
  const some = <T>(list: T[]) => list.slice(0, 20);
  for (const f of some(r.missingOriginals)) console.log(`original missing: ${f.blobKey} (item ${f.mediaId})`);
  for (const f of some(r.missingDerived)) console.log(`${f.role} missing: ${f.blobKey} (item ${f.mediaId})`);
  for (const id of some(r.withoutRenditions)) console.log(`no thumbnails: item ${id}`);
  for (const u of some(r.untracked ?? [])) console.log(`untracked: ${u.key} (${formatBytes(u.size)})`);
  for (const f of some(r.rotten)) console.log(`rotten (checksum differs): ${f.blobKey} (item ${f.mediaId})`);
}
