/**
 * The one keymap: every keyboard shortcut is declared here with its description, and the `?` sheet
 * (components/ShortcutSheet.tsx) is generated from this list, so the sheet never drifts from the code.
 */
export interface Shortcut {
  /** KeyboardEvent.key values that trigger it. */
  keys: string[];
  /** Where it works. */
  scope: 'everywhere' | 'browse' | 'viewer' | 'video';
  description: string;
}

export const KEYMAP = {
  help: { keys: ['?'], scope: 'everywhere', description: 'Show these shortcuts' },
  search: { keys: ['/'], scope: 'everywhere', description: 'Focus the search box' },
  close: { keys: ['Escape'], scope: 'everywhere', description: 'Close the viewer or dialog' },
  next: { keys: ['ArrowRight'], scope: 'viewer', description: 'Next item' },
  previous: { keys: ['ArrowLeft'], scope: 'viewer', description: 'Previous item' },
  objects: { keys: ['1'], scope: 'viewer', description: 'Show or hide objects' },
  faces: { keys: ['2'], scope: 'viewer', description: 'Show or hide faces' },
  text: { keys: ['3'], scope: 'viewer', description: 'Show or hide text' },
  info: { keys: ['i'], scope: 'viewer', description: 'Show or hide details' },
  copyText: { keys: ['c'], scope: 'viewer', description: "Copy the item's text (OCR)" },
  favorite: { keys: ['f'], scope: 'viewer', description: 'Add to or remove from favourites' },
  nextFrame: { keys: ['.'], scope: 'video', description: 'Next analysed frame' },
  previousFrame: { keys: [','], scope: 'video', description: 'Previous analysed frame' },
} satisfies Record<string, Shortcut>;

export type Action = keyof typeof KEYMAP;

/** True when typing into a field: shortcuts other than Escape then stay out of the way. */
function typing(event: KeyboardEvent): boolean {
  const el = event.target as HTMLElement | null;
  return !!el && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName));
}

/** The action a key press means, if any (ignores presses with Ctrl/Meta/Alt and presses while typing). */
export function actionOf(event: KeyboardEvent): Action | null {
  if (event.ctrlKey || event.metaKey || event.altKey) return null;
  if (typing(event) && event.key !== 'Escape') return null;
  for (const [action, shortcut] of Object.entries(KEYMAP) as Array<[Action, Shortcut]>)
    if (shortcut.keys.includes(event.key)) return action;
  return null;
}

/** Human label of a key for the sheet. */
export function keyLabel(key: string): string {
  return ({ ArrowLeft: '←', ArrowRight: '→', Escape: 'Esc' } as Record<string, string>)[key] ?? key;
}
