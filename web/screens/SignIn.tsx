/**
 * Sign in with email and password. Shown at whatever URL a signed-out person opened, so once the session
 * is adopted the app renders that same URL: people land where they first asked to go.
 */
import { useState } from 'preact/hooks';
import { api, ApiError, describeError } from '../lib/api';
import { adoptSession, type SessionInfo } from '../lib/session';
import { AuthCard } from '../components/AuthCard';
import { Field } from '../components/Field';
import { Alert } from '../components/Alert';

/** "Try again in 2 minutes" from a lockout answer (429 with retryAfterSeconds, or the message alone). */
export function lockoutMessage(err: ApiError): string {
  const seconds = Number(err.body.retryAfterSeconds);
  if (!Number.isFinite(seconds) || seconds <= 0) return err.message;
  const wait = seconds < 90 ? `${Math.ceil(seconds)} seconds` : `${Math.ceil(seconds / 60)} minutes`;
  return `Too many failed attempts. Try again in ${wait}.`;
}

function signInError(err: unknown): string {
  if (err instanceof ApiError && err.status === 429) return lockoutMessage(err);
  if (err instanceof ApiError && err.status === 401) return err.message || 'Wrong email or password.';
  return describeError(err);
}

export function SignIn(_props: { params?: Record<string, string> }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(null);
    try {
      const body = { email: String(form.get('email') ?? '').trim(), password: String(form.get('password') ?? '') };
      adoptSession(await api<SessionInfo>('POST', '/api/auth/login', { body }));
    } catch (err) {
      setError(signInError(err));
      setBusy(false);
    }
  };
  return (
    <AuthCard title="Sign in">
      <form onSubmit={submit}>
        <Alert message={error} />
        <Field label="Email" name="email" type="email" autoComplete="username" required autoFocus />
        <Field label="Password" name="password" type="password" autoComplete="current-password" required />
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </AuthCard>
  );
}
