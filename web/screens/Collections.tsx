/**
 * The collection picker (/): a card per collection of the organization linking to /c/:datasetId, creating
 * one (admins and owners, as the API allows), and the local models' status.
 */
import { useState } from 'preact/hooks';
import { api, describeError } from '../lib/api';
import { followLink } from '../lib/router';
import { isAdmin, session } from '../lib/session';
import { useLoad } from '../components/useLoad';
import { Alert } from '../components/Alert';
import { ModelsStatus } from '../components/ModelsStatus';
import { formatDate } from '../components/format';
import '../components/collections.css';

interface Dataset {
  id: string;
  name: string;
  icon: string | null;
  createdAt: string;
  /** Not sent by the API today; shown when it is. */
  itemCount?: number;
}

function CreateCollection({ orgId, onCreated }: { orgId: string; onCreated(): void }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const formEl = e.currentTarget as HTMLFormElement;
    const name = String(new FormData(formEl).get('name') ?? '').trim();
    if (!name) return setError('Give the collection a name.');
    setBusy(true);
    try {
      await api('POST', `/api/organization/${encodeURIComponent(orgId)}/datasets`, { body: { name } });
      setError(null);
      formEl.reset();
      onCreated();
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="create-collection" onSubmit={submit}>
      <label for="new-collection">New collection</label>
      <input id="new-collection" name="name" maxLength={200} placeholder="Name" required />
      <button type="submit" class="primary" disabled={busy}>
        Create
      </button>
      <Alert message={error} />
    </form>
  );
}

function CollectionCard({ dataset }: { dataset: Dataset }) {
  return (
    <li class="collection-card">
      <a href={`/c/${encodeURIComponent(dataset.id)}`} onClick={followLink}>
        <span class="collection-name">{dataset.name}</span>
      </a>
      <span class="muted">
        {dataset.itemCount != null ? `${dataset.itemCount} items · ` : ''}created {formatDate(dataset.createdAt)}
      </span>
    </li>
  );
}

export function Collections(_props: { params?: Record<string, string> }) {
  const orgId = session.value?.organizationId ?? '';
  const list = useLoad(
    (signal) =>
      api<{ datasets: Dataset[] }>('GET', `/api/organization/${encodeURIComponent(orgId)}/datasets`, { signal }).then(
        (r) => r.datasets,
      ),
    [orgId],
  );
  const admin = isAdmin();
  return (
    <div class="collections-page">
      <div class="collections-head">
        <h1>Collections</h1>
        <ModelsStatus />
      </div>
      {admin && <CreateCollection orgId={orgId} onCreated={list.reload} />}
      <Alert message={list.error} />
      {list.loading && !list.data && <p role="status">Loading collections…</p>}
      {list.data && list.data.length === 0 && (
        <section class="empty-state">
          <h2>No collections yet</h2>
          <p>{admin ? 'Create one above to start adding photos and videos.' : 'Ask an admin to create one.'}</p>
        </section>
      )}
      {list.data && list.data.length > 0 && (
        <ul class="collection-grid" aria-label="Collections">
          {list.data.map((d) => (
            <CollectionCard key={d.id} dataset={d} />
          ))}
        </ul>
      )}
    </div>
  );
}
