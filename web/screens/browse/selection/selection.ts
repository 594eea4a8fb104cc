/**
 * The browse grid's selection, one for the open listing: indices picked by click, Shift-click (a range),
 * Ctrl/Cmd-click, Shift+arrows or a rubber band, or "all N matching" (sent to the server as the listing's
 * query, less the items deselected since). Module signals, so other screens' code can read and drive it:
 * the phone layout enters selection mode by long-press (`enterSelectionMode`), albums or AI tools add a
 * button to the selection bar with one call (`addSelectionAction`).
 */
import { computed, signal } from '@preact/signals';

export interface SelectionState {
  /** The listing (browseState.listingKey) the indices belong to; opening another clears the selection. */
  listing: string;
  indices: ReadonlySet<number>;
  /** Where a Shift-click or Shift+arrow range starts. */
  anchor: number | null;
  /** Every item of the listing (its query), less `excluded`. */
  all: boolean;
  excluded: ReadonlySet<number>;
}

const EMPTY: SelectionState = { listing: '', indices: new Set(), anchor: null, all: false, excluded: new Set() };

export const selection = signal<SelectionState>(EMPTY);
/** Set by a long press or the bar: a click on a tile then toggles it instead of opening it. */
export const selectionMode = signal(false);
/** True while anything is selected or selection mode is on (the selection bar shows). */
export const isSelecting = computed(
  () => selectionMode.value || selection.value.all || selection.value.indices.size > 0,
);

const set = (patch: Partial<SelectionState>) => (selection.value = { ...selection.value, ...patch });

/** Ties the selection to a listing: a different one starts empty. */
export function bindListing(listing: string): void {
  // peek: the caller (a render) must not subscribe to the selection.
  if (selection.peek().listing !== listing) {
    selection.value = { ...EMPTY, listing };
    selectionMode.value = false;
  }
}

export function isSelected(index: number, s: SelectionState = selection.value): boolean {
  return s.all ? !s.excluded.has(index) : s.indices.has(index);
}

/** How many items are selected, given the listing's total. */
export function selectedCount(total: number, s: SelectionState = selection.value): number {
  return s.all ? Math.max(0, total - s.excluded.size) : s.indices.size;
}

/** Ctrl/Cmd-click, Space, a tap in selection mode: one item in or out. */
export function toggle(index: number): void {
  const s = selection.value;
  if (s.all) {
    const excluded = new Set(s.excluded);
    if (!excluded.delete(index)) excluded.add(index);
    set({ excluded, anchor: index });
    return;
  }
  const indices = new Set(s.indices);
  if (!indices.delete(index)) indices.add(index);
  set({ indices, anchor: index });
}

/** Shift-click, Shift+arrows: the range from the anchor to `index` (added to what is selected when `additive`). */
export function selectRange(index: number, additive = false): void {
  const s = selection.value;
  const from = s.anchor ?? index;
  const [lo, hi] = from <= index ? [from, index] : [index, from];
  if (s.all) {
    const excluded = new Set(s.excluded);
    for (let i = lo; i <= hi; i++) excluded.delete(i);
    set({ excluded });
    return;
  }
  const indices = new Set(additive ? s.indices : []);
  for (let i = lo; i <= hi; i++) indices.add(i);
  set({ indices, anchor: from });
}

/** A rubber band's tiles (added to the selection when `additive`). */
export function selectIndices(list: number[], additive: boolean): void {
  const s = selection.value;
  const indices = new Set(additive ? s.indices : []);
  for (const i of list) indices.add(i);
  set({ indices, all: false, excluded: new Set(), anchor: list.length ? list[0] : s.anchor });
}

/** "Select all N matching" (Ctrl+A): the listing's query. */
export function selectAllMatching(): void {
  set({ all: true, excluded: new Set(), indices: new Set() });
}

/** Esc, the bar's Clear, after an action. */
export function clearSelection(): void {
  selection.value = { ...EMPTY, listing: selection.value.listing };
  selectionMode.value = false;
}

/** Selection mode on (a long press on a phone: `enterSelectionMode(index)` also selects that tile). */
export function enterSelectionMode(index?: number): void {
  selectionMode.value = true;
  if (index !== undefined && !isSelected(index)) toggle(index);
}

/** What an action of the selection bar is given: the selection as the bulk API takes it, and a refresh. */
export interface SelectionContext {
  datasetId: string;
  count: number;
  /** The selection as POST /api/media/bulk takes it: ids (the items loaded if need be) or the listing's query. */
  target(): Promise<BulkTarget>;
  /** Reloads the listing (after a change) and clears the selection. */
  done(): void;
}

export type BulkTarget =
  { ids: string[] } | { selection: { datasetId: string; query: Record<string, string> }; exclude: string[] };

export interface SelectionAction {
  id: string;
  label: string;
  /** Shown only to members and above. */
  writes?: boolean;
  run(ctx: SelectionContext): void | Promise<void>;
}

/** Buttons other features add to the selection bar, after its own. */
export const extraActions = signal<SelectionAction[]>([]);

/** Adds a button to the selection bar (one line for albums, AI tools…); returns its removal. */
export function addSelectionAction(action: SelectionAction): () => void {
  extraActions.value = [...extraActions.value.filter((a) => a.id !== action.id), action];
  return () => (extraActions.value = extraActions.value.filter((a) => a !== action));
}

/**
 * A click on tile `index`: Shift picks the range from the anchor (with Ctrl/Cmd, added), Ctrl/Cmd toggles it,
 * and in selection mode a plain click toggles too. True when the click was the selection's (nothing opens).
 */
export function clickSelect(e: MouseEvent, index: number): boolean {
  if (e.button !== 0 || e.altKey) return false;
  if (e.shiftKey) selectRange(index, e.ctrlKey || e.metaKey);
  else if (e.ctrlKey || e.metaKey || isSelecting.value) toggle(index);
  else return false;
  e.preventDefault();
  return true;
}
