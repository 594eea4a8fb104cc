/** The viewer's keyboard shortcuts, as lib/keymap.ts declares them (the `?` sheet lists the same). */
import { useEffect, useRef } from 'preact/hooks';
import { actionOf, type Action } from '../../lib/keymap';
import { shortcutSheetOpen } from '../../components/ShortcutSheet';

/** Handlers for the viewer's actions; an action without one is left to others. */
export type ViewerHandlers = Partial<Record<Action, () => void>>;

export function useViewerKeys(handlers: ViewerHandlers): void {
  // The latest handlers, without re-adding the listener on every render.
  const current = useRef(handlers);
  current.current = handlers;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (shortcutSheetOpen.value || document.querySelector('dialog[open]')) return;
      const action = actionOf(e);
      if (!action) return;
      const target = e.target as HTMLElement | null;
      // Esc in a field leaves the field; a second Esc closes the viewer.
      if (action === 'close' && target && ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName)) {
        target.blur();
        return;
      }
      // Arrow keys on the video's own controls (seek, volume) stay with the video.
      if ((action === 'next' || action === 'previous') && target?.tagName === 'VIDEO') return;
      const handler = current.current[action];
      if (!handler) return;
      e.preventDefault();
      handler();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
