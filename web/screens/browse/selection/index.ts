/**
 * The browse grid's selection for other screens: enter selection mode (a long press on a phone), read or
 * clear the selection, and add a button to the selection bar, e.g.
 *   addSelectionAction({ id: 'album', label: 'Add to album…', writes: true, run: async (ctx) => … await ctx.target() … });
 */
export {
  addSelectionAction,
  clearSelection,
  enterSelectionMode,
  isSelecting,
  selection,
  selectionMode,
  type BulkTarget,
  type SelectionAction,
  type SelectionContext,
} from './selection';
export { runBulk } from './bulkApi';
export { undoOffer, undoStatus, undoText } from './undo';
export { UndoToast } from './UndoToast';
