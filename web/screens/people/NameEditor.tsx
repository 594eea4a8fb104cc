/**
 * A person's name, renamed in place: the name (or "Add a name") as a button; activated, a text field that
 * saves on Enter or on leaving it, and puts the name back on Escape. Viewers see the name only.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError } from '../../lib/api';
import { canWrite } from '../../lib/session';
import { personName, updatePerson, type Person } from './peopleApi';

export function NameEditor(props: { person: Person; onSaved: (p: Person) => void; heading?: boolean }) {
  const { person } = props;
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState(person.name ?? '');
  const [error, setError] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (editing) input.current?.focus();
  }, [editing]);
  const Tag = props.heading ? 'h1' : 'span';
  if (!canWrite()) return <Tag class="person-name">{personName(person)}</Tag>;
  const save = async () => {
    if (!editing) return;
    setEditing(false);
    if (value.trim() === (person.name ?? '')) return;
    try {
      setError(null);
      props.onSaved(await updatePerson(person.id, { name: value }));
    } catch (err) {
      setError(describeError(err));
    }
  };
  if (editing)
    return (
      <input
        ref={input}
        class="person-name-input"
        aria-label={`Name of ${personName(person)}`}
        value={value}
        maxLength={100}
        onInput={(e) => setValue((e.target as HTMLInputElement).value)}
        onBlur={() => void save()}
        onKeyDown={(e) => {
          if (e.key === 'Enter') void save();
          if (e.key === 'Escape') {
            setValue(person.name ?? '');
            setEditing(false);
          }
          e.stopPropagation();
        }}
      />
    );
  return (
    <Tag class="person-name">
      <button
        type="button"
        class={person.name ? 'link-button' : 'link-button muted'}
        aria-label={person.name ? `Rename ${person.name}` : 'Add a name'}
        onClick={() => {
          setValue(person.name ?? '');
          setEditing(true);
        }}
      >
        {person.name ?? 'Add a name'}
      </button>
      {error ? (
        <span class="error" role="alert">
          {' '}
          {error}
        </span>
      ) : null}
    </Tag>
  );
}
