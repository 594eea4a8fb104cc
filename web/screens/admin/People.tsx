/**
 * People (/admin/people): the organization's members with their role and latest activity; change a role (up
 * to your own; the server keeps an owner), remove a member (their sessions and keys end at once); invitations.
 */
import { useState } from 'preact/hooks';
import { api, describeError } from '../../lib/api';
import { loadSession, session } from '../../lib/session';
import { useLoad } from '../../components/useLoad';
import { Alert } from '../../components/Alert';
import { formatDate } from '../../components/format';
import { InviteManager } from '../../components/InviteManager';
import { AdminPage } from './AdminPage';

interface Member {
  userId: string;
  email: string;
  name: string;
  role: string;
  joinedAt: string;
  lastSeenAt: string | null;
  keyLastUsedAt: string | null;
  you: boolean;
}

const ROLES = ['viewer', 'member', 'admin', 'owner'];
const rank = (role: string | undefined) => ROLES.indexOf(role ?? 'viewer');

/** The later of two optional timestamps. */
const latest = (a: string | null, b: string | null) => (!a ? b : !b ? a : a > b ? a : b);

function MemberRow({ m, onChange }: { m: Member; onChange(message: string, error?: boolean): void }) {
  const [confirming, setConfirming] = useState(false);
  const own = session.value?.role;
  const above = rank(m.role) > rank(own);
  const label = m.name || m.email;
  const act = async (method: 'PATCH' | 'DELETE', body?: object) => {
    try {
      await api(method, `/api/members/${encodeURIComponent(m.userId)}`, { body });
      onChange(method === 'DELETE' ? `${label} was removed.` : `${label} is now ${(body as { role: string }).role}.`);
      if (m.you) await loadSession();
    } catch (err) {
      onChange(describeError(err), true);
    }
  };
  const active = latest(m.lastSeenAt, m.keyLastUsedAt);
  return (
    <tr>
      <td>
        {label}
        {m.you && <span class="muted"> (you)</span>}
      </td>
      <td>{m.email}</td>
      <td>
        <select
          aria-label={`Role of ${label}`}
          value={m.role}
          disabled={above}
          onChange={(e) => void act('PATCH', { role: e.currentTarget.value })}
        >
          {ROLES.filter((r) => rank(r) <= rank(own) || r === m.role).map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </td>
      <td>{active ? formatDate(active) : '—'}</td>
      <td>
        {above ? null : confirming ? (
          <span class="admin-actions">
            <button type="button" class="danger" onClick={() => void act('DELETE')}>
              Confirm removal of {label}
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Keep
            </button>
          </span>
        ) : (
          <button type="button" class="danger" aria-label={`Remove ${label}`} onClick={() => setConfirming(true)}>
            Remove
          </button>
        )}
      </td>
    </tr>
  );
}

function Members() {
  const members = useLoad(
    (signal) => api<{ members: Member[] }>('GET', '/api/members', { signal }).then((r) => r.members),
    [],
  );
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  return (
    <section class="account-section" aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      <Alert message={members.error} />
      {message && <Alert message={message.text} kind={message.error ? 'error' : 'ok'} />}
      {members.loading && !members.data && <p role="status">Loading members…</p>}
      {members.data && (
        <table class="data-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Last active</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {members.data.map((m) => (
              <MemberRow
                key={`${m.userId}:${m.role}`}
                m={m}
                onChange={(text, error = false) => {
                  setMessage({ text, error });
                  members.reload();
                }}
              />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function AdminPeople(_props: { params?: Record<string, string> }) {
  return (
    <AdminPage title="People">
      <Members />
      <InviteManager />
    </AdminPage>
  );
}
