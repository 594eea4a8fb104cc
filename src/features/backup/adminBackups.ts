import path from 'node:path';
import { requireRole } from '../kernel/access.js';
import type { Principal, Services } from '../kernel/services.js';
import { DomainError } from '../../platform/errors.js';
import { backupServiceOf, type RunningBackup } from './backupService.js';
import { checkIntegrity, type IntegrityReport } from './integrity.js';
import { listBackupDirs } from './manifest.js';
import { repairIntegrity, type RepairDeps, type RepairResult } from './repair.js';

/** One backup in BACKUP_DIR as the admin API lists it. */
export interface BackupSummary {
  id: string;
  createdAt: string;
  engine: 'sqlite' | 'postgres';
  files: number;
  bytes: number;
  databaseBytes: number;
  copiedFiles: number;
  copiedBytes: number;
  /** Files the library was missing, or had damaged, when it was made (named in its manifest). */
  missing: number;
  corrupt: number;
  durationMs: number;
  /** The command that restores it into this server's DATA_DIR (run with the server stopped). */
  restoreCommand: string;
}

/** What GET /api/admin/backups answers. */
export interface BackupListing {
  backupDir: string | null;
  schedule: { intervalHours: number; keep: number; nextAt: string | null };
  running: RunningBackup | null;
  lastError: string | null;
  /** Newest first. */
  backups: BackupSummary[];
  /** Folders without a manifest: a backup under way, or one a stop interrupted. */
  unfinished: string[];
}

/** The backups in BACKUP_DIR, the one running and the schedule (admins: it names folders of the server). */
export async function listBackups(deps: Pick<Services, 'storage' | 'config'>, principal: Principal) {
  requireRole(principal, 'admin');
  const service = backupServiceOf(deps);
  const dir = deps.config.backupDir ?? null;
  const found = dir ? await listBackupDirs(dir) : [];
  const listing: BackupListing = {
    backupDir: dir,
    schedule: {
      intervalHours: dir ? deps.config.backupIntervalHours : 0,
      keep: deps.config.backupKeep,
      nextAt: service?.nextAt() ?? null,
    },
    running: service?.running() ?? null,
    lastError: service?.lastError() ?? null,
    backups: found
      .flatMap(({ manifest: m }) =>
        m
          ? [
              {
                id: m.id,
                createdAt: m.createdAt,
                engine: m.engine,
                files: m.files.length,
                bytes: m.files.reduce((n, f) => n + f.size, 0),
                databaseBytes: m.database.size,
                copiedFiles: m.copied.files,
                copiedBytes: m.copied.bytes,
                missing: m.missing.length,
                corrupt: m.corrupt.length,
                durationMs: m.durationMs,
                restoreCommand:
                  m.engine === 'postgres'
                    ? pgRestoreCommand(path.join(dir!, m.id, m.database.file))
                    : restoreCommand(path.join(dir!, m.id), deps.config.dataDir),
              },
            ]
          : [],
      )
      .reverse(),
    unfinished: found.filter((b) => !b.manifest).map((b) => b.id),
  };
  return listing;
}

/** A word for a POSIX shell: as it is when it is plain, else in single quotes. */
const shellWord = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/**
 * `npm run restore` of one backup folder into DATA_DIR, from the server's folder with its settings: --force because
 * DATA_DIR holds the library (its database is moved aside, never deleted; newer files go to the quarantine).
 */
export const restoreCommand = (backupFolder: string, dataDir: string) =>
  `npm run restore -- --from ${shellWord(backupFolder)} --to ${shellWord(dataDir)} --force`;

/** A PostgreSQL library's database comes back with pg_restore (npm run restore says the same and stops). */
export const pgRestoreCommand = (dumpFile: string) =>
  `pg_restore --clean --dbname "$DATABASE_URL" ${shellWord(dumpFile)}`;

/** Starts a backup into BACKUP_DIR in the background (conflict: one runs, or BACKUP_DIR is unset). */
export function startBackup(deps: Pick<Services, 'storage'>, principal: Principal): { backup: RunningBackup } {
  requireRole(principal, 'admin');
  const service = backupServiceOf(deps);
  if (!service) throw new DomainError('unavailable', 'backups are not available in this process');
  return { backup: service.start('api') };
}

/**
 * The integrity report (existence of every file, untracked files, items without thumbnails) with the last
 * re-hash's findings; the re-hash itself runs in `npm run check`, throttled, over as many nights as it takes.
 */
export async function integrityReport(
  deps: Pick<Services, 'storage' | 'blobs' | 'config'>,
  principal: Principal,
): Promise<{ report: IntegrityReport }> {
  requireRole(principal, 'admin');
  return { report: await checkIntegrity(deps) };
}

/**
 * The integrity report, then its safe repairs (repair.ts): thumbnails and re-analysis queued, untracked files
 * moved to the quarantine folder; originals untouched. Answers the report it acted on and what it did.
 */
export async function repairFromReport(
  deps: RepairDeps,
  principal: Principal,
): Promise<{ report: IntegrityReport; repair: RepairResult }> {
  requireRole(principal, 'admin');
  const report = await checkIntegrity(deps);
  return { report, repair: await repairIntegrity(deps, report) };
}
