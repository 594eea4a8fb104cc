/** A labelled form input with an optional hint; the label is a real <label>, so every field has a name. */
import { useId } from 'preact/hooks';
import './forms.css';

interface FieldProps {
  label: string;
  name: string;
  type?: 'text' | 'email' | 'password';
  autoComplete?: string;
  required?: boolean;
  autoFocus?: boolean;
  /** Shown under the input and tied to it with aria-describedby. */
  hint?: string;
}

export function Field({ label, hint, type = 'text', ...input }: FieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {/* Preact's input types are a union by `type`; a union-typed value needs the cast to pick one member. */}
      <input id={id} type={type as 'text'} aria-describedby={hintId} {...input} />
      {hint && (
        <small id={hintId} class="muted">
          {hint}
        </small>
      )}
    </div>
  );
}
