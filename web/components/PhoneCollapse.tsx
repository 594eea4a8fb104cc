/**
 * A toolbar that folds away below 720 px (responsive.css): a button, shown only there, shows or hides it.
 * On a wide screen the wrapper is `display: contents` and the button hidden, so nothing changes.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

let nextId = 0;

export function PhoneCollapse(props: { label: string; children: ComponentChildren }) {
  const [open, setOpen] = useState(false);
  const [id] = useState(() => `phone-collapse-${++nextId}`);
  return (
    <>
      <button
        type="button"
        class="phone-collapse-button"
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen((o) => !o)}
      >
        {props.label}
      </button>
      <div id={id} class={open ? 'phone-collapse open' : 'phone-collapse'}>
        {props.children}
      </div>
    </>
  );
}
