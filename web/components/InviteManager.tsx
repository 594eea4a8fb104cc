/**
 * Inviting people (Account screen, admins and owners): choose an email and a role, get a one-time link to
 * hand over (shown once, with its expiry), and see, resend (a new link) or revoke the invitations not yet accepted.
 */
import { useState } from 'preact/hooks';
import { api, describeError } from '../lib/api';
import { session } from '../lib/session';
import { useLoad } from './useLoad';
import { Alert } from './Alert';
import { Field } from './Field';
import { formatDate } from './format';
import { CopyLink } from './CopyLink';

interface Invite {
  id: string;
  email: string;
  role: string;
  organizationId: string;
  expiresAt: string;
  createdAt?: string;
}

interface CreatedInvite extends Invite {
  token: string;
  url: string;
}

/** Roles one can hand out, least to most: up to one's own (the server refuses a role above it). */
const rolesFor = (own: string | undefined): string[] =>
  own === 'owner' ? ['viewer', 'member', 'admin', 'owner'] : ['viewer', 'member', 'admin'];

function InviteForm({ onCreated }: { onCreated(invite: CreatedInvite): void }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const formEl = e.currentTarget as HTMLFormElement;
    const form = new FormData(formEl);
    setBusy(true);
    try {
      const body = { email: String(form.get('email') ?? '').trim(), role: String(form.get('role') ?? 'member') };
      onCreated(await api<CreatedInvite>('POST', '/api/invites', { body }));
      setError(null);
      formEl.reset();
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} class="inline-form">
      <Alert message={error} />
      <Field label="Email to invite" name="email" type="email" required />
      <div class="field">
        <label for="invite-role">Role</label>
        <select id="invite-role" name="role" defaultValue="member">
          {rolesFor(session.value?.role).map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" class="primary" disabled={busy}>
        Create invitation
      </button>
    </form>
  );
}

function PendingInvites({
  invites,
  onRevoke,
  onResend,
}: {
  invites: Invite[];
  onRevoke(id: string): void;
  onResend(id: string): void;
}) {
  if (invites.length === 0) return <p class="muted">No pending invitations.</p>;
  return (
    <table class="data-table">
      <caption class="visually-hidden">Pending invitations</caption>
      <thead>
        <tr>
          <th scope="col">Email</th>
          <th scope="col">Role</th>
          <th scope="col">Expires</th>
          <th scope="col">
            <span class="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {invites.map((i) => (
          <tr key={i.id}>
            <td>{i.email}</td>
            <td>{i.role}</td>
            <td>{formatDate(i.expiresAt)}</td>
            <td>
              <button type="button" aria-label={`Resend invitation for ${i.email}`} onClick={() => onResend(i.id)}>
                Resend
              </button>{' '}
              <button
                type="button"
                class="danger"
                aria-label={`Revoke invitation for ${i.email}`}
                onClick={() => onRevoke(i.id)}
              >
                Revoke
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function InviteManager() {
  const invites = useLoad(
    (signal) => api<{ invites: Invite[] }>('GET', '/api/invites', { signal }).then((r) => r.invites),
    [],
  );
  const [created, setCreated] = useState<CreatedInvite | null>(null);
  const [error, setError] = useState<string | null>(null);
  const revoke = async (id: string) => {
    try {
      await api('DELETE', `/api/invites/${encodeURIComponent(id)}`);
      if (created?.id === id) setCreated(null);
      setError(null);
      invites.reload();
    } catch (err) {
      setError(describeError(err));
    }
  };
  const resend = async (id: string) => {
    try {
      setCreated(await api<CreatedInvite>('POST', `/api/invites/${encodeURIComponent(id)}/resend`));
      setError(null);
      invites.reload();
    } catch (err) {
      setError(describeError(err));
    }
  };
  return (
    <section class="account-section" aria-labelledby="invites-title">
      <h2 id="invites-title">Invite people</h2>
      <InviteForm
        onCreated={(invite) => {
          setCreated(invite);
          invites.reload();
        }}
      />
      {created && (
        <div class="invite-created" role="status">
          <p>
            Invitation for <strong>{created.email}</strong> ({created.role}) created. Send them this link; it works once
            and expires {formatDate(created.expiresAt)}. It is not shown again.
          </p>
          <CopyLink label="Invitation link" url={created.url} />
        </div>
      )}
      <h3>Pending invitations</h3>
      <Alert message={error ?? invites.error} />
      {invites.loading && !invites.data && <p role="status">Loading invitations…</p>}
      {invites.data && (
        <PendingInvites invites={invites.data} onRevoke={(id) => void revoke(id)} onResend={(id) => void resend(id)} />
      )}
    </section>
  );
}
