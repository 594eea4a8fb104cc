/** Changing your own password (Account screen): the current one, then the new one twice. */
import { useState } from 'preact/hooks';
import { api, describeError } from '../lib/api';
import { Field } from './Field';
import { Alert } from './Alert';
import { NewPasswordFields, passwordProblem } from './NewPasswordFields';

/** `onChanged`: the server ended the person's other sessions, so lists of them are stale. */
export function PasswordForm({ onChanged }: { onChanged?(): void }) {
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const formEl = e.currentTarget as HTMLFormElement;
    const form = new FormData(formEl);
    const newPassword = String(form.get('newPassword') ?? '');
    const problem = passwordProblem(newPassword, String(form.get('confirm') ?? ''));
    setDone(null);
    if (problem) return setError(problem);
    setBusy(true);
    try {
      await api('POST', '/api/auth/password', {
        body: { currentPassword: String(form.get('currentPassword') ?? ''), newPassword },
      });
      setError(null);
      setDone('Password changed. Your other devices were signed out.');
      formEl.reset();
      onChanged?.();
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="account-section" aria-labelledby="password-title">
      <h2 id="password-title">Change password</h2>
      <form onSubmit={submit} class="narrow-form">
        <Alert message={error} />
        <Alert message={done} kind="ok" />
        <Field
          label="Current password"
          name="currentPassword"
          type="password"
          autoComplete="current-password"
          required
        />
        <NewPasswordFields label="New password" name="newPassword" confirmLabel="Confirm new password" />
        <button type="submit" class="primary" disabled={busy}>
          Change password
        </button>
      </form>
    </section>
  );
}
