/** The last bulk action the server holds for this user, offered for Undo (also after a reload). */
import { signal } from '@preact/signals';
import { describeError } from '../../../lib/api';
import { lastBulk, undoBulk } from './bulkApi';

export interface UndoOffer {
  actionId: string;
  text: string;
}

export const undoOffer = signal<UndoOffer | null>(null);
export const undoStatus = signal<string | null>(null);

const VERBS: Record<string, string> = {
  addTags: 'Added tags to',
  removeTags: 'Removed tags from',
  setTagGroup: 'Set a tag group on',
  clearTagGroup: 'Cleared a tag group on',
  move: 'Moved',
  favorite: 'Added to favourites',
  unfavorite: 'Removed from favourites',
  archive: 'Archived',
  unarchive: 'Unarchived',
  delete: 'Moved to the trash',
  restore: 'Restored',
};

/** The toast's text for an action of this operation on this many items. */
export const undoText = (type: string, count: number): string =>
  `${VERBS[type] ?? 'Changed'} ${count.toLocaleString()} ${count === 1 ? 'item' : 'items'}.`;

/** Asks the server for the last action (a reload keeps the offer while the server holds it). */
export async function loadUndoOffer(): Promise<void> {
  try {
    const { action } = await lastBulk();
    if (action?.undoable)
      undoOffer.value = {
        actionId: action.id,
        text: undoText(action.operation.type, action.changedCount),
      };
  } catch {
    /* no offer */
  }
}

/** Undoes the offered action; `after` reloads what the screen shows. */
export async function undoLast(after: () => void): Promise<void> {
  const offer = undoOffer.value;
  if (!offer) return;
  undoStatus.value = 'Undoing…';
  try {
    const r = await undoBulk(offer.actionId);
    undoOffer.value = null;
    undoStatus.value = `Undone: ${r.reverted.toLocaleString()} ${r.reverted === 1 ? 'item' : 'items'} back as they were.`;
    after();
  } catch (err) {
    undoOffer.value = null;
    undoStatus.value = `Could not undo: ${describeError(err)}`;
  }
}
