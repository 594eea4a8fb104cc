/** Moves the selection: a folder picker over the collection's folders (the top level included). */
import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError } from '../../../lib/api';
import { allFolders, type FolderChoice } from '../allFolders';

export function MoveDialog(props: {
  datasetId: string;
  rootName: string;
  count: number;
  onMove: (destinationPath: string) => void | Promise<void>;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [choices, setChoices] = useState<FolderChoice[] | null>(null);
  const [dest, setDest] = useState('');
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    dialog.current?.showModal();
    allFolders(props.datasetId, '')
      .then(setChoices)
      .catch((err) => setError(describeError(err)));
  }, []);
  const submit = (e: Event) => {
    e.preventDefault();
    void props.onMove(dest || props.datasetId.replace(/-/g, ''));
  };
  return (
    <dialog ref={dialog} class="bulk-dialog" aria-labelledby="bulk-move-title" onClose={props.onClose}>
      <form onSubmit={submit}>
        <h2 id="bulk-move-title">Move {props.count.toLocaleString()} selected items</h2>
        <label>
          To folder{' '}
          <select value={dest} onChange={(e) => setDest(e.currentTarget.value)} disabled={!choices}>
            <option value="">{props.rootName} (top level)</option>
            {(choices ?? []).map((c) => (
              <option key={c.path} value={c.path}>
                {'\u2003'.repeat(c.depth + 1) + c.name}
              </option>
            ))}
          </select>
        </label>
        {error ? (
          <p class="error" role="alert">
            {error}
          </p>
        ) : null}
        <div class="dialog-buttons">
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" class="primary" disabled={!choices}>
            Move
          </button>
        </div>
      </form>
    </dialog>
  );
}
