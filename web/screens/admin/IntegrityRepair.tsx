/**
 * "Repair what is safe" under the integrity report (/admin/storage, issue #29): a confirmation that says what the
 * repair does, then POST /api/admin/integrity/repair and what it did. Originals are never touched.
 */
import { useState } from 'preact/hooks';
import { api, describeError } from '../../lib/api';
import { Alert } from '../../components/Alert';
import './backups.css';

interface Repair {
  renditionsQueued: number;
  reanalysisQueued: number;
  quarantined: number;
  quarantineDir: string;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function describe(r: Repair): string {
  if (r.renditionsQueued + r.reanalysisQueued + r.quarantined === 0)
    return 'Nothing needed repairing. Originals were not touched.';
  return (
    `Queued ${plural(r.renditionsQueued, 'item', 'items')} for new thumbnails and ` +
    `${plural(r.reanalysisQueued, 'item', 'items')} to be analysed again; moved ` +
    `${plural(r.quarantined, 'untracked file', 'untracked files')} to ${r.quarantineDir}. Originals were not touched.`
  );
}

/** `onReport`: the report the repair acted on, for the screen to show. */
export function IntegrityRepair<R>({ onReport }: { onReport: (report: R) => void }) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const repair = async () => {
    setBusy(true);
    setResult(null);
    try {
      const r = await api<{ report: R; repair: Repair }>('POST', '/api/admin/integrity/repair');
      onReport(r.report);
      setResult(describe(r.repair));
      setError(null);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  };
  return (
    <div>
      {!confirming && (
        <button type="button" onClick={() => setConfirming(true)} disabled={busy}>
          Repair what is safe
        </button>
      )}
      {confirming && (
        <div class="repair-confirm" role="group" aria-labelledby="repair-what">
          <p id="repair-what">
            The repair checks the library again, then queues missing thumbnails and derived files to be made again from
            the originals, and moves files no item uses (older than an hour) to the quarantine folder, where you can
            judge them. It never deletes or changes an original: missing or damaged originals come back only from a
            backup.
          </p>
          <div class="admin-actions">
            <button type="button" onClick={() => void repair()} disabled={busy}>
              {busy ? 'Repairing…' : 'Repair now'}
            </button>
            <button type="button" onClick={() => setConfirming(false)} disabled={busy}>
              Cancel
            </button>
          </div>
        </div>
      )}
      <Alert message={error} />
      <Alert kind="ok" message={result} />
    </div>
  );
}
