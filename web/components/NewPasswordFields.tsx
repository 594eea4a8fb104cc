/** A new password and its confirmation (setup, accepting an invitation, changing the password). */
import { Field } from './Field';

/** Passwords this app accepts (the server checks the same minimum). */
export const MIN_PASSWORD_LENGTH = 8;

/** The problem with a new password and its confirmation, or null. */
export function passwordProblem(password: string, confirm: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `The password needs at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (password !== confirm) return 'The two passwords differ.';
  return null;
}

/** `name` is the form field of the password; the confirmation is always `confirm`. */
export function NewPasswordFields({
  label = 'Password',
  name = 'password',
  confirmLabel = 'Confirm password',
}: {
  label?: string;
  name?: string;
  confirmLabel?: string;
}) {
  return (
    <>
      <Field
        label={label}
        name={name}
        type="password"
        autoComplete="new-password"
        required
        hint={`At least ${MIN_PASSWORD_LENGTH} characters.`}
      />
      <Field label={confirmLabel} name="confirm" type="password" autoComplete="new-password" required />
    </>
  );
}
