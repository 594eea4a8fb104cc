/** The Undo toast for the last action (undo.ts), as the selection bar shows it: for single-item actions elsewhere. */
import { undoLast, undoOffer, undoStatus } from './undo';
import './selection.css';

export function UndoToast(props: { after: () => void }) {
  const offer = undoOffer.value;
  const status = undoStatus.value;
  if (!offer)
    return status ? (
      <span class="undo-status" role="status">
        {status}
      </span>
    ) : null;
  return (
    <div class="undo-toast" role="status">
      <span>{offer.text}</span>
      <button type="button" onClick={() => void undoLast(props.after)}>
        Undo
      </button>
      <button type="button" aria-label="Dismiss" onClick={() => (undoOffer.value = null)}>
        ×
      </button>
    </div>
  );
}
