/**
 * The folder tree on a narrow screen (below 720 px, drawer.css): a drawer over the page instead of a sidebar.
 * The Folders button opens it and focus moves to the open folder in the tree; Esc, the backdrop, the close
 * button or choosing a folder closes it, and focus returns to the button. While open, Tab stays inside it.
 * On a wide screen the same aside is the sidebar and the buttons are hidden.
 */
import type { ComponentChildren } from 'preact';
import { signal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import type { BrowseState } from './browseState';
// After browse.css, so the narrow-screen rules win (esbuild keeps the first import's order).
import './browse.css';
import './drawer.css';

export const folderDrawerOpen = signal(false);
/** Whether the filters, and the folder actions, show on a narrow screen (on a wide one they always do). */
export const filtersOpen = signal(false);
export const actionsOpen = signal(false);

const DRAWER_ID = 'folder-drawer';
/** What the open drawer covers. */
const BEHIND = '.app-header, .browse-main, .upload-panel';
let opener: HTMLElement | null = null;

export function closeFolderDrawer(): void {
  if (!folderDrawerOpen.value) return;
  folderDrawerOpen.value = false;
  for (const el of document.querySelectorAll<HTMLElement>(BEHIND)) el.inert = false; // before focus can return
  opener?.focus();
}

const focusables = (root: HTMLElement) =>
  [...root.querySelectorAll<HTMLElement>('button, [href], input, select, [tabindex="0"]')].filter(
    (el) => !el.hasAttribute('disabled') && el.offsetParent !== null,
  );

export function FolderDrawer({ label, children }: { label: string; children: ComponentChildren }) {
  const aside = useRef<HTMLElement>(null);
  const open = folderDrawerOpen.value;
  useEffect(() => () => void (folderDrawerOpen.value = false), []);
  useEffect(() => {
    if (!open) return;
    const root = aside.current;
    // The rest of the page is out of reach (pointer, keyboard, screen reader) while the drawer is open.
    const behind = [...document.querySelectorAll<HTMLElement>(BEHIND)];
    for (const el of behind) el.inert = true;
    (root?.querySelector<HTMLElement>('[role="treeitem"][tabindex="0"]') ?? root)?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        closeFolderDrawer();
      } else if (e.key === 'Tab' && root) {
        const all = focusables(root);
        if (all.length === 0) return;
        const at = all.indexOf(document.activeElement as HTMLElement);
        const next = e.shiftKey ? (at <= 0 ? all.length - 1 : at - 1) : at === all.length - 1 ? 0 : at + 1;
        e.preventDefault();
        all[next].focus();
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => {
      window.removeEventListener('keydown', onKey, true);
      for (const el of behind) el.inert = false;
    };
  }, [open]);
  return (
    <>
      {open && <div class="drawer-backdrop" aria-hidden="true" onClick={closeFolderDrawer} />}
      <aside
        ref={aside}
        id={DRAWER_ID}
        class={open ? 'browse-sidebar drawer-open' : 'browse-sidebar'}
        aria-label={label}
        tabIndex={-1}
      >
        <div class="drawer-head">
          <h2>Folders</h2>
          <button type="button" aria-label="Close folders" onClick={closeFolderDrawer}>
            ✕
          </button>
        </div>
        {children}
      </aside>
    </>
  );
}

/** The narrow screen's buttons above the grid: Folders (opens the drawer), Filters and folder actions (show their bars). */
export function PhoneBar(props: { folderName: string; activeFilters: number; hasActions: boolean }) {
  const { folderName, activeFilters } = props;
  return (
    <div class="browse-phone-bar">
      <button
        type="button"
        class="folders-button"
        aria-expanded={folderDrawerOpen.value}
        aria-controls={DRAWER_ID}
        onClick={(e) => {
          opener = e.currentTarget;
          folderDrawerOpen.value = true;
        }}
      >
        <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
          <path fill="currentColor" d="M3 6a1 1 0 0 1 1-1h5l2 2h9a1 1 0 0 1 1 1v10a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1z" />
        </svg>
        <span>Folders</span>
        <span class="visually-hidden">, open: {folderName}</span>
      </button>
      <button
        type="button"
        class="filters-button"
        aria-expanded={filtersOpen.value}
        onClick={() => (filtersOpen.value = !filtersOpen.value)}
      >
        Filters{activeFilters ? ` (${activeFilters})` : ''}
      </button>
      {props.hasActions && (
        <button
          type="button"
          class="actions-button"
          aria-expanded={actionsOpen.value}
          onClick={() => (actionsOpen.value = !actionsOpen.value)}
        >
          Organize
        </button>
      )}
    </div>
  );
}

/** How many filters narrow the listing (shown on the Filters button). */
export const activeFilterCount = (s: BrowseState): number =>
  (s.type !== 'all' ? 1 : 0) +
  (s.from ? 1 : 0) +
  (s.to ? 1 : 0) +
  s.tags.length +
  (s.recursive ? 1 : 0) +
  [s.country, s.place, s.camera, s.bbox].filter(Boolean).length;

/** The browse root's classes for what the narrow screen shows. */
export const phoneClasses = (): string =>
  (filtersOpen.value ? ' filters-open' : '') + (actionsOpen.value ? ' actions-open' : '');
