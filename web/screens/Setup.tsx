/**
 * First run (/setup?token=…, the link the server printed at its first start): the owner chooses their
 * email, name and password, and is signed in.
 */
import { useState } from 'preact/hooks';
import { api, describeError } from '../lib/api';
import { location, navigate } from '../lib/router';
import { adoptSession, type SessionInfo } from '../lib/session';
import { AuthCard } from '../components/AuthCard';
import { Field } from '../components/Field';
import { NewPasswordFields, passwordProblem } from '../components/NewPasswordFields';
import { Alert } from '../components/Alert';

export function Setup(_props: { params?: Record<string, string> }) {
  const token = location.value.query.get('token') ?? '';
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const password = String(form.get('password') ?? '');
    const problem = passwordProblem(password, String(form.get('confirm') ?? ''));
    if (problem) return setError(problem);
    setBusy(true);
    setError(null);
    try {
      const body = {
        token,
        email: String(form.get('email') ?? '').trim(),
        name: String(form.get('name') ?? '').trim() || undefined,
        password,
      };
      adoptSession(await api<SessionInfo>('POST', '/api/auth/setup', { body }));
      navigate('/', { replace: true });
    } catch (err) {
      setError(describeError(err));
      setBusy(false);
    }
  };
  if (!token)
    return (
      <AuthCard title="Set up Lumen">
        <Alert message="This setup link has no token. Use the full link the server printed when it first started." />
      </AuthCard>
    );
  return (
    <AuthCard title="Set up Lumen">
      <p class="muted">Create the owner account of this library.</p>
      <form onSubmit={submit}>
        <Alert message={error} />
        <Field label="Email" name="email" type="email" autoComplete="username" required autoFocus />
        <Field label="Name" name="name" autoComplete="name" />
        <NewPasswordFields />
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Creating…' : 'Create owner account'}
        </button>
      </form>
    </AuthCard>
  );
}
