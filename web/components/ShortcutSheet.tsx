/** The `?` sheet, generated from lib/keymap.ts (the one keymap). */
import { signal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { actionOf, KEYMAP, keyLabel, type Shortcut } from '../lib/keymap';

export const shortcutSheetOpen = signal(false);

export function ShortcutSheet() {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (actionOf(e) === 'help') shortcutSheetOpen.value = !shortcutSheetOpen.value;
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (shortcutSheetOpen.value && !d.open) d.showModal();
    if (!shortcutSheetOpen.value && d.open) d.close();
  }, [shortcutSheetOpen.value]);
  const shortcuts = Object.values(KEYMAP) as Shortcut[];
  return (
    <dialog
      ref={dialog}
      class="shortcut-sheet"
      aria-label="Keyboard shortcuts"
      // Esc fires cancel at once (close follows a task later): the screens' own Esc must not see the sheet as open.
      onCancel={() => (shortcutSheetOpen.value = false)}
      onClose={() => (shortcutSheetOpen.value = false)}
    >
      <h2>Keyboard shortcuts</h2>
      <table>
        <tbody>
          {shortcuts.map((s) => (
            <tr key={s.description}>
              <td>
                {s.keys.map((k) => (
                  <kbd key={k}>{keyLabel(k)}</kbd>
                ))}
              </td>
              <td>{s.description}</td>
              <td class="muted">{s.scope}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="button" onClick={() => (shortcutSheetOpen.value = false)}>
        Close
      </button>
    </dialog>
  );
}
