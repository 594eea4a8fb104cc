/**
 * Storage (/admin/storage): bytes per collection and for the organization (originals, deleted items' files,
 * derived files when measured), items per processing status, the database's size, and the integrity report
 * (missing files, items without thumbnails, untracked and rotten files).
 */
import { useState } from 'preact/hooks';
import { api, describeError } from '../../lib/api';
import { useLoad } from '../../components/useLoad';
import { Alert } from '../../components/Alert';
import { formatBytes, formatDate } from '../../components/format';
import { AdminPage } from './AdminPage';
import { IntegrityRepair } from './IntegrityRepair';

type Items = Record<'pending' | 'processing' | 'ready' | 'failed', number>;
interface Usage {
  organization: {
    name: string;
    items: number;
    originalBytes: number;
    deletedBytes: number;
    derivedBytes: number | null;
  };
  collections: Array<{
    id: string;
    name: string;
    items: Items;
    originalBytes: number;
    deletedBytes: number;
    derivedBytes: number | null;
  }>;
  database: { bytes: number };
}
interface Integrity {
  checkedAt: string;
  items: number;
  files: number;
  ok: boolean;
  counts: Record<'missingOriginals' | 'missingDerived' | 'withoutRenditions' | 'untracked' | 'rotten', number>;
}

const bytes = (n: number | null) => (n === null ? 'not measured' : formatBytes(n));
const COUNT_NAMES: Array<[keyof Integrity['counts'], string]> = [
  ['missingOriginals', 'Originals missing'],
  ['missingDerived', 'Derived files missing'],
  ['withoutRenditions', 'Items without thumbnails'],
  ['untracked', 'Files no item uses'],
  ['rotten', 'Originals damaged'],
];

function Totals({ usage }: { usage: Usage }) {
  const o = usage.organization;
  return (
    <dl class="admin-figures">
      {(
        [
          ['Items', String(o.items)],
          ['Originals', formatBytes(o.originalBytes)],
          ['Derived files', bytes(o.derivedBytes)],
          ['Deleted, not purged', formatBytes(o.deletedBytes)],
          ['Database (server)', formatBytes(usage.database.bytes)],
        ] as const
      ).map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function Collections({ usage }: { usage: Usage }) {
  return (
    <table class="data-table">
      <caption class="visually-hidden">Storage per collection</caption>
      <thead>
        <tr>
          <th scope="col">Collection</th>
          <th scope="col">Ready</th>
          <th scope="col">Pending</th>
          <th scope="col">Processing</th>
          <th scope="col">Failed</th>
          <th scope="col">Originals</th>
          <th scope="col">Derived</th>
          <th scope="col">Deleted</th>
        </tr>
      </thead>
      <tbody>
        {usage.collections.map((c) => (
          <tr key={c.id}>
            <th scope="row">{c.name}</th>
            <td>{c.items.ready}</td>
            <td>{c.items.pending}</td>
            <td>{c.items.processing}</td>
            <td>{c.items.failed}</td>
            <td>{formatBytes(c.originalBytes)}</td>
            <td>{bytes(c.derivedBytes)}</td>
            <td>{formatBytes(c.deletedBytes)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function IntegrityReport() {
  const [report, setReport] = useState<Integrity | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const check = async () => {
    setBusy(true);
    try {
      setReport((await api<{ report: Integrity }>('GET', '/api/admin/integrity')).report);
      setError(null);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="account-section" aria-labelledby="integrity-title">
      <h2 id="integrity-title">Integrity</h2>
      <p class="muted">Checks that every file the library refers to is in the store (a look at each file).</p>
      <button type="button" onClick={() => void check()} disabled={busy}>
        {busy ? 'Checking…' : 'Check integrity'}
      </button>
      <Alert message={error} />
      <IntegrityRepair<Integrity> onReport={setReport} />
      {report && (
        <div role="status">
          <p>
            {report.ok ? 'All good: ' : 'Problems found: '}
            {`${report.items} items and ${report.files} files checked at ${formatDate(report.checkedAt)}.`}
          </p>
          <dl class="admin-figures">
            {COUNT_NAMES.map(([key, label]) => (
              <div key={key}>
                <dt>{label}</dt>
                <dd>{report.counts[key]}</dd>
              </div>
            ))}
          </dl>
        </div>
      )}
    </section>
  );
}

export function AdminStorage(_props: { params?: Record<string, string> }) {
  const [derived, setDerived] = useState(false);
  const usage = useLoad(
    (signal) => api<Usage>('GET', '/api/admin/storage', { query: { derived: derived || undefined }, signal }),
    [derived],
  );
  return (
    <AdminPage title="Storage">
      <section class="account-section" aria-labelledby="usage-title">
        <h2 id="usage-title">Usage</h2>
        <Alert message={usage.error} />
        {usage.loading && <p role="status">{derived ? 'Measuring derived files…' : 'Loading…'}</p>}
        {usage.data && <Totals usage={usage.data} />}
        {!derived && (
          <button type="button" onClick={() => setDerived(true)}>
            Measure derived files
          </button>
        )}
        {usage.data && <Collections usage={usage.data} />}
      </section>
      <IntegrityReport />
    </AdminPage>
  );
}
