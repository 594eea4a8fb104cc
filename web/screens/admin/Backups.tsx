/**
 * Backups (/admin/backups, issue #29): the backups in BACKUP_DIR (when, files, bytes, what each copied, full or
 * incremental), the schedule in words, "Back up now" with its progress (rate, ETA; polled while one runs), the
 * last failure, and each backup's restore command (a command-line step with the server stopped).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, describeError } from '../../lib/api';
import { useLoad } from '../../components/useLoad';
import { Alert } from '../../components/Alert';
import { CopyLink } from '../../components/CopyLink';
import { formatBytes, formatDate, formatDuration } from '../../components/format';
import { AdminPage } from './AdminPage';
import './backups.css';

interface Progress {
  phase: 'database' | 'scanning' | 'files' | 'verifying' | 'done';
  filesDone: number;
  filesTotal: number;
  bytesDone: number;
  bytesTotal: number;
  bytesPerSecond: number;
  etaMs: number | null;
}
interface Backup {
  id: string;
  createdAt: string;
  engine: string;
  files: number;
  bytes: number;
  databaseBytes: number;
  copiedFiles: number;
  copiedBytes: number;
  missing: number;
  corrupt: number;
  durationMs: number;
  restoreCommand: string;
}
export interface Listing {
  backupDir: string | null;
  schedule: { intervalHours: number; keep: number; nextAt: string | null };
  running: { trigger: 'api' | 'schedule'; startedAt: string; progress: Progress | null } | null;
  lastError: string | null;
  backups: Backup[];
  unfinished: string[];
}

const PHASES: Record<Progress['phase'], string> = {
  database: 'Copying the database',
  scanning: 'Listing the files',
  files: 'Copying new files',
  verifying: 'Verifying the copy',
  done: 'Finishing',
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const hours = (h: number) => (h % 24 === 0 ? plural(h / 24, 'day') : plural(h, 'hour'));

function scheduleText({ schedule }: Listing): string {
  if (schedule.intervalHours <= 0)
    return 'Scheduled backups are off — set BACKUP_INTERVAL_HOURS (for example 24) to make one on a schedule.';
  const every = schedule.intervalHours === 24 ? 'day' : hours(schedule.intervalHours);
  const next = schedule.nextAt ? ` The next one is due ${formatDate(schedule.nextAt)}.` : '';
  return `A backup is made every ${every}; the ${plural(schedule.keep, 'newest backup')} are kept (BACKUP_KEEP).${next}`;
}

function progressText(p: Progress | null): string {
  if (!p) return 'Starting…';
  const parts = [PHASES[p.phase]];
  if (p.filesTotal > 0) parts.push(`${p.filesDone} of ${plural(p.filesTotal, 'file')}`);
  if (p.bytesTotal > 0) parts.push(`${formatBytes(p.bytesDone)} of ${formatBytes(p.bytesTotal)}`);
  if (p.bytesPerSecond > 0) parts.push(`${formatBytes(p.bytesPerSecond)}/s`);
  if (p.etaMs !== null) parts.push(`about ${formatDuration(p.etaMs / 1000)} left`);
  return parts.join(' · ');
}

function Running({ running }: { running: NonNullable<Listing['running']> }) {
  const p = running.progress;
  const max = p && p.bytesTotal > 0 ? p.bytesTotal : p?.filesTotal || undefined;
  const value = p && p.bytesTotal > 0 ? p.bytesDone : p?.filesDone;
  const by = running.trigger === 'schedule' ? 'on schedule' : 'asked for';
  return (
    <div class="backup-running" role="status">
      <p>{`A backup is running (${by}, since ${formatDate(running.startedAt)}): ${progressText(p)}`}</p>
      <progress aria-label="Backup progress" max={max} value={max ? value : undefined} />
    </div>
  );
}

function kind(b: Backup): string {
  if (b.copiedFiles >= b.files) return 'Full';
  return `Incremental: ${plural(b.copiedFiles, 'new file')} (${formatBytes(b.copiedBytes)})`;
}

function BackupList({ backups }: { backups: Backup[] }) {
  if (backups.length === 0) return <p>No backups yet.</p>;
  return (
    <table class="data-table">
      <caption class="visually-hidden">Backups, newest first</caption>
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Files</th>
          <th scope="col">Size</th>
          <th scope="col">Database</th>
          <th scope="col">Copied</th>
          <th scope="col">Took</th>
        </tr>
      </thead>
      <tbody>
        {backups.map((b) => (
          <tr key={b.id}>
            <th scope="row">{formatDate(b.createdAt)}</th>
            <td>{b.files}</td>
            <td>{formatBytes(b.bytes)}</td>
            <td>{`${formatBytes(b.databaseBytes)} (${b.engine})`}</td>
            <td>
              {kind(b)}
              {b.missing + b.corrupt > 0 && (
                <span class="backup-warning">{` — the library lacked ${b.missing} and had ${b.corrupt} damaged`}</span>
              )}
            </td>
            <td>{formatDuration(b.durationMs / 1000)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Restore({ backups }: { backups: Backup[] }) {
  return (
    <section class="account-section backup-restore" aria-labelledby="restore-title">
      <h2 id="restore-title">Restore</h2>
      <p>
        Restoring is a command-line step: stop the server first, run the command in the server's folder (with its
        settings), then start the server again. The backup is verified before anything is written; the library's current
        database is moved aside, never deleted, and files newer than the backup go to DATA_DIR/quarantine.
      </p>
      {backups.some((b) => b.engine === 'postgres') && (
        <p>A PostgreSQL library's database is restored with pg_restore into the database of DATABASE_URL.</p>
      )}
      {backups.length === 0 && <p class="muted">There is no backup to restore yet.</p>}
      {backups.map((b) => (
        <CopyLink key={b.id} label={`Restore the backup of ${formatDate(b.createdAt)}`} url={b.restoreCommand} />
      ))}
    </section>
  );
}

function Off() {
  return (
    <div class="backup-off">
      <p>
        <strong>Backups are off: BACKUP_DIR is not set.</strong> Set BACKUP_DIR to a folder on another disk (a backup on
        the library's own disk does not survive that disk) and restart the server. Backups are then made every
        BACKUP_INTERVAL_HOURS (24 unless set; 0 makes them only when asked), keeping the BACKUP_KEEP newest (7).
      </p>
      <p>
        Until then, <code>npm run backup -- --to DIR</code> makes one from the command line.
      </p>
    </div>
  );
}

export function AdminBackups(_props: { params?: Record<string, string> }) {
  const listing = useLoad((signal) => api<Listing>('GET', '/api/admin/backups', { signal }), []);
  const [starting, setStarting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const data = listing.data;
  const running = !!data?.running || starting;
  useEffect(() => {
    if (!data?.running) return;
    const timer = setTimeout(listing.reload, 1000);
    return () => clearTimeout(timer);
  }, [data]);
  const start = async () => {
    setStarting(true);
    try {
      await api('POST', '/api/admin/backups');
      setError(null);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setStarting(false);
      listing.reload();
    }
  };
  return (
    <AdminPage title="Backups">
      <section class="account-section" aria-labelledby="backups-title">
        <h2 id="backups-title">Schedule and backups made</h2>
        <Alert message={listing.error} />
        {!data && listing.loading && <p role="status">Loading…</p>}
        {data && !data.backupDir && <Off />}
        {data?.backupDir && (
          <>
            <p>{`Backups go to ${data.backupDir}. Each copies the database and only the files earlier backups lack.`}</p>
            <p>{scheduleText(data)}</p>
            <div class="admin-actions">
              <button type="button" onClick={() => void start()} disabled={running}>
                {running ? 'Backing up…' : 'Back up now'}
              </button>
            </div>
            {data.running && <Running running={data.running} />}
            <Alert message={error} />
            {data.lastError && !data.running && <Alert message={`The last backup failed: ${data.lastError}`} />}
            <BackupList backups={data.backups} />
            {data.unfinished.length > 0 && (
              <p class="muted">{`Unfinished (no manifest; not restorable): ${data.unfinished.join(', ')}`}</p>
            )}
          </>
        )}
      </section>
      {data?.backupDir && <Restore backups={data.backups} />}
    </AdminPage>
  );
}
