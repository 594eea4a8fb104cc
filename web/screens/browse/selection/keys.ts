/**
 * The grid's selection keys (listed in lib/keymap.ts for the shortcut sheet): Shift+arrows extend the
 * selection from its anchor, Space toggles the focused tile, Ctrl/Cmd+A selects all matching, Esc clears.
 */
import { clearSelection, selectAllMatching, selectRange, selection, toggle } from './selection';

/**
 * Handles a selection key pressed on tile `from`; with `to` (an arrow with Shift moved focus there), extends
 * the range. True when the key was one of these (the caller prevents its default).
 */
export function gridSelectionKey(e: KeyboardEvent, from: number, to?: number): boolean {
  if (to !== undefined) {
    if (selection.value.anchor === null) toggle(from);
    selectRange(to);
    return true;
  }
  if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'a') {
    selectAllMatching();
    return true;
  }
  if (e.key === ' ' && !e.ctrlKey && !e.metaKey) {
    toggle(from);
    return true;
  }
  if (e.key === 'Escape' && (selection.value.all || selection.value.indices.size > 0)) {
    clearSelection();
    return true;
  }
  return false;
}
