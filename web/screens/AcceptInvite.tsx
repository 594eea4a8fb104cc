/**
 * Accepting an invitation (/invite?token=…): shows who invited you into which organization with which
 * role, then asks for your name and a password and signs you in.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, describeError } from '../lib/api';
import { location, navigate } from '../lib/router';
import { adoptSession, type SessionInfo } from '../lib/session';
import { AuthCard } from '../components/AuthCard';
import { Field } from '../components/Field';
import { Alert } from '../components/Alert';
import { NewPasswordFields, passwordProblem } from '../components/NewPasswordFields';

interface InviteInfo {
  email: string;
  role: string;
  organizationName: string;
  expiresAt: string;
  /** The email has an account already: joining takes that account's password, nothing new. */
  accountExists?: boolean;
}

function InviteFacts({ invite }: { invite: InviteInfo }) {
  return (
    <dl class="auth-facts">
      <dt>Organization</dt>
      <dd>{invite.organizationName}</dd>
      <dt>Role</dt>
      <dd>{invite.role}</dd>
      <dt>Email</dt>
      <dd>{invite.email}</dd>
      <dt>Expires</dt>
      <dd>{new Date(invite.expiresAt).toLocaleString()}</dd>
    </dl>
  );
}

export function AcceptInvite(_props: { params?: Record<string, string> }) {
  const token = location.value.query.get('token') ?? '';
  const [invite, setInvite] = useState<InviteInfo | null>(null);
  const [loadError, setLoadError] = useState<string | null>(token ? null : 'This invitation link has no token.');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!token) return;
    api<InviteInfo>('GET', '/api/auth/invite', { query: { token } }).then(setInvite, (err) =>
      setLoadError(describeError(err)),
    );
  }, [token]);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const password = String(form.get('password') ?? '');
    const problem = invite?.accountExists ? null : passwordProblem(password, String(form.get('confirm') ?? ''));
    if (problem) return setError(problem);
    setBusy(true);
    setError(null);
    try {
      const body = { token, name: String(form.get('name') ?? '').trim() || undefined, password };
      adoptSession(await api<SessionInfo>('POST', '/api/auth/accept-invite', { body }));
      navigate('/', { replace: true });
    } catch (err) {
      setError(describeError(err));
      setBusy(false);
    }
  };
  if (loadError)
    return (
      <AuthCard title="Join Lumen">
        <Alert message={loadError} />
      </AuthCard>
    );
  if (!invite)
    return (
      <AuthCard title="Join Lumen">
        <p role="status">Loading the invitation…</p>
      </AuthCard>
    );
  return (
    <AuthCard title={`Join ${invite.organizationName}`}>
      <InviteFacts invite={invite} />
      <form onSubmit={submit}>
        <Alert message={error} />
        {invite.accountExists ? <ExistingAccountFields /> : <NewAccountFields />}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Joining…' : 'Accept invitation'}
        </button>
      </form>
    </AuthCard>
  );
}

/** An existing account joins with its own password. */
function ExistingAccountFields() {
  return (
    <>
      <p>You already have an account with this email: enter its password to join.</p>
      <Field label="Password" name="password" type="password" autoComplete="current-password" required autoFocus />
    </>
  );
}

/** A new account: a name and a password, twice. */
function NewAccountFields() {
  return (
    <>
      <Field label="Your name" name="name" autoComplete="name" required autoFocus />
      <NewPasswordFields />
    </>
  );
}
