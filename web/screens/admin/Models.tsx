/**
 * Models (/admin/models): every catalog model with its state, size, licence and the features (roles) it serves;
 * which features wait for it, with how many of the organization's items wait, per feature; the background download
 * with rate and ETA; start or retry a download; import a bundle by upload (the air-gapped path), with upload
 * progress, verified on the server as the CLI does.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, describeError } from '../../lib/api';
import { useLoad } from '../../components/useLoad';
import { Alert } from '../../components/Alert';
import { formatBytes, formatDuration } from '../../components/format';
import { AdminPage } from './AdminPage';
import { sendBundle } from './bundleUpload';

interface Model {
  name: string;
  task: string;
  state: string;
  bytesDone: number;
  bytesTotal: number | null;
  licence: string;
  approxSizeMB: number | null;
  roles: string[];
  error: string | null;
  /** The organization's items whose analysis stages wait for this model, and how many per stage (feature). */
  waiting?: { items: number; stages: Record<string, number> };
}
interface Fetch {
  state: string;
  reason?: string;
  model: string | null;
  bytesPerSecond: number | null;
  etaSeconds: number | null;
}

function size(m: Model): string {
  if (m.state === 'installed' && m.bytesTotal) return formatBytes(m.bytesTotal);
  return m.approxSizeMB ? `about ${m.approxSizeMB} MB` : '—';
}

function FetchLine({ fetch }: { fetch: Fetch }) {
  if (fetch.state === 'downloading' && fetch.model) {
    const rate = fetch.bytesPerSecond ? `${formatBytes(fetch.bytesPerSecond)}/s` : 'measuring the rate';
    const eta = fetch.etaSeconds != null ? `, about ${formatDuration(fetch.etaSeconds)} left` : '';
    return <p role="status">{`Downloading ${fetch.model}: ${rate}${eta}.`}</p>;
  }
  if (fetch.state === 'off')
    return <p class="muted">{`Downloads are off (${fetch.reason ?? 'off'}): import a bundle.`}</p>;
  return <p class="muted">{`Downloads: ${fetch.state}.`}</p>;
}

/** Which features wait for the model, with how many items each: "caption: 3 items, faces: 1 item". */
function Waiting({ m }: { m: Model }) {
  const items = m.waiting?.items ?? 0;
  const plural = (n: number) => `${n} ${n === 1 ? 'item' : 'items'}`;
  if (items === 0)
    return <>{m.state !== 'installed' && m.roles.length > 0 ? `${m.roles.join(', ')}; no items` : '—'}</>;
  const stages = Object.entries(m.waiting!.stages).map(([stage, n]) => `${stage}: ${plural(n)}`);
  return (
    <>
      <strong>{plural(items)}</strong>
      <div class="muted">
        {stages.join(', ')}
        {m.state === 'installed' ? ' (catching up)' : ''}
      </div>
    </>
  );
}

function ModelRow({ m, canFetch, onFetch }: { m: Model; canFetch: boolean; onFetch(name: string): void }) {
  return (
    <tr>
      <td>{m.name}</td>
      <td>
        {m.state}
        {m.state === 'downloading' && m.bytesTotal ? (
          <progress max={m.bytesTotal} value={m.bytesDone} aria-label={`Download of ${m.name}`} />
        ) : null}
        {m.error && <div class="muted">{m.error}</div>}
      </td>
      <td>{size(m)}</td>
      <td>{m.licence}</td>
      <td>{m.roles.join(', ') || '—'}</td>
      <td>
        <Waiting m={m} />
      </td>
      <td>
        {canFetch && (m.state === 'missing' || m.state === 'failed') && (
          <button type="button" aria-label={`Download ${m.name}`} onClick={() => onFetch(m.name)}>
            {m.state === 'failed' ? 'Retry download' : 'Download'}
          </button>
        )}
      </td>
    </tr>
  );
}

function ImportBundle({ onDone }: { onDone(): void }) {
  const [progress, setProgress] = useState<{ loaded: number; total: number } | null>(null);
  const [result, setResult] = useState<{ text: string; error: boolean } | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const file = (new FormData(e.currentTarget as HTMLFormElement).get('bundle') as File | null) ?? null;
    if (!file || !file.size) return setResult({ text: 'Choose a bundle file first.', error: true });
    setResult(null);
    setProgress({ loaded: 0, total: file.size });
    try {
      const r = await sendBundle(file, (loaded, total) => setProgress({ loaded, total }));
      setResult({
        text: `Installed: ${r.models.map((m) => m.name).join(', ')}. Waiting items catch up now.`,
        error: false,
      });
      onDone();
    } catch (err) {
      setResult({ text: describeError(err), error: true });
    } finally {
      setProgress(null);
    }
  };
  return (
    <form class="inline-form" onSubmit={(e) => void submit(e)}>
      <div class="field">
        <label for="bundle-file">Model bundle (.tar)</label>
        <input id="bundle-file" name="bundle" type="file" accept=".tar,application/x-tar" />
      </div>
      <button type="submit" class="primary" disabled={!!progress}>
        Import bundle
      </button>
      {progress && (
        <progress max={progress.total} value={progress.loaded} aria-label="Bundle upload">
          {Math.round((100 * progress.loaded) / Math.max(1, progress.total))}%
        </progress>
      )}
      {result && <Alert message={result.text} kind={result.error ? 'error' : 'ok'} />}
    </form>
  );
}

export function AdminModels(_props: { params?: Record<string, string> }) {
  const [tick, setTick] = useState(0);
  const models = useLoad((signal) => api<{ models: Model[]; fetch: Fetch }>('GET', '/api/models', { signal }), [tick]);
  const [error, setError] = useState<string | null>(null);
  const busy = models.data?.models.some((m) => m.state === 'downloading' || m.state === 'queued');
  useEffect(() => {
    if (!busy) return;
    const timer = setTimeout(() => setTick((t) => t + 1), 2000);
    return () => clearTimeout(timer);
  }, [busy, tick]);
  const fetchOne = async (name: string) => {
    try {
      await api('POST', `/api/models/${encodeURIComponent(name)}/fetch`);
      setError(null);
    } catch (err) {
      setError(describeError(err));
    }
    setTick((t) => t + 1);
  };
  const data = models.data;
  return (
    <AdminPage title="Models">
      <Alert message={error ?? models.error} />
      <section class="account-section" aria-labelledby="models-title">
        <h2 id="models-title">Catalog</h2>
        {data && <FetchLine fetch={data.fetch} />}
        {data && (
          <table class="data-table">
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">State</th>
                <th scope="col">Size</th>
                <th scope="col">Licence</th>
                <th scope="col">Serves</th>
                <th scope="col">Waiting for it</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.models.map((m) => (
                <ModelRow key={m.name} m={m} canFetch={data.fetch.state !== 'off'} onFetch={(n) => void fetchOne(n)} />
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section class="account-section" aria-labelledby="import-title">
        <h2 id="import-title">Import a bundle</h2>
        <p class="muted">
          For a server without internet: make a bundle with <code>npm run models -- pack</code> on a connected machine
          and upload it here. Every file is checked before anything is installed.
        </p>
        <ImportBundle onDone={() => setTick((t) => t + 1)} />
      </section>
    </AdminPage>
  );
}
