/**
 * API keys (/admin/keys): the organization's keys (name, role, prefix, created, last used); create one with a
 * name and a role up to your own (the secret is shown once, with a copy button), rename, revoke.
 */
import { useState } from 'preact/hooks';
import { api, describeError } from '../../lib/api';
import { session } from '../../lib/session';
import { useLoad } from '../../components/useLoad';
import { Alert } from '../../components/Alert';
import { Field } from '../../components/Field';
import { formatDate } from '../../components/format';
import { CopyLink } from '../../components/CopyLink';
import { AdminPage } from './AdminPage';

interface Key {
  id: string;
  name: string;
  role: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
}

const ROLES = ['viewer', 'member', 'admin', 'owner'];

function CreateKey({ onCreated }: { onCreated(key: Key & { key: string }): void }) {
  const [error, setError] = useState<string | null>(null);
  const own = ROLES.indexOf(session.value?.role ?? 'viewer');
  const submit = async (e: Event) => {
    e.preventDefault();
    const formEl = e.currentTarget as HTMLFormElement;
    const form = new FormData(formEl);
    try {
      const body = { name: String(form.get('name') ?? '').trim() || undefined, role: String(form.get('role')) };
      onCreated(await api<Key & { key: string }>('POST', '/api/keys', { body }));
      setError(null);
      formEl.reset();
    } catch (err) {
      setError(describeError(err));
    }
  };
  return (
    <form onSubmit={submit} class="inline-form">
      <Alert message={error} />
      <Field label="Key name" name="name" />
      <div class="field">
        <label for="key-role">Key role</label>
        <select id="key-role" name="role" defaultValue="member">
          {ROLES.slice(0, own + 1).map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" class="primary">
        Create key
      </button>
    </form>
  );
}

function KeyRow({ k, onDone }: { k: Key; onDone(error: string | null): void }) {
  const [editing, setEditing] = useState(false);
  const call = async (method: 'PATCH' | 'DELETE', body?: object) => {
    try {
      await api(method, `/api/keys/${encodeURIComponent(k.id)}`, { body });
      onDone(null);
    } catch (err) {
      onDone(describeError(err));
    }
  };
  return (
    <tr>
      <td>
        {editing ? (
          <form
            class="admin-actions"
            onSubmit={(e) => {
              e.preventDefault();
              const name = String(new FormData(e.currentTarget).get('name') ?? '');
              setEditing(false);
              void call('PATCH', { name });
            }}
          >
            <input name="name" aria-label={`New name for ${k.name}`} defaultValue={k.name} required maxLength={200} />
            <button type="submit">Save</button>
          </form>
        ) : (
          k.name
        )}
      </td>
      <td>{k.role}</td>
      <td>
        <code>{k.prefix}…</code>
      </td>
      <td>{formatDate(k.createdAt)}</td>
      <td>{k.lastUsedAt ? formatDate(k.lastUsedAt) : 'never'}</td>
      <td>
        <span class="admin-actions">
          {!editing && (
            <button type="button" aria-label={`Rename ${k.name}`} onClick={() => setEditing(true)}>
              Rename
            </button>
          )}
          <button type="button" class="danger" aria-label={`Revoke ${k.name}`} onClick={() => void call('DELETE')}>
            Revoke
          </button>
        </span>
      </td>
    </tr>
  );
}

export function AdminKeys(_props: { params?: Record<string, string> }) {
  const keys = useLoad((signal) => api<{ keys: Key[] }>('GET', '/api/keys', { signal }).then((r) => r.keys), []);
  const [created, setCreated] = useState<(Key & { key: string }) | null>(null);
  const [error, setError] = useState<string | null>(null);
  return (
    <AdminPage title="API keys">
      <section class="account-section" aria-labelledby="new-key-title">
        <h2 id="new-key-title">New key</h2>
        <CreateKey
          onCreated={(key) => {
            setCreated(key);
            keys.reload();
          }}
        />
        {created && (
          <div class="invite-created" role="status">
            <p>
              Key <strong>{created.name}</strong> ({created.role}) created. Copy the secret now: it is not shown again.
            </p>
            <CopyLink label="Key secret" url={created.key} />
          </div>
        )}
      </section>
      <section class="account-section" aria-labelledby="keys-title">
        <h2 id="keys-title">Keys</h2>
        <Alert message={error ?? keys.error} />
        {keys.data?.length === 0 && <p class="muted">No keys.</p>}
        {!!keys.data?.length && (
          <table class="data-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Role</th>
                <th scope="col">Starts with</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.map((k) => (
                <KeyRow
                  key={k.id}
                  k={k}
                  onDone={(message) => {
                    setError(message);
                    if (created?.id === k.id) setCreated(null);
                    keys.reload();
                  }}
                />
              ))}
            </tbody>
          </table>
        )}
      </section>
    </AdminPage>
  );
}
