/**
 * Folder management for admins and owners: create a folder in the open one, rename the open folder, move it
 * elsewhere. Each opens a small dialog; the API's refusal (a duplicate, a move into itself) shows in it.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError } from '../../lib/api';
import { createFolder, moveMedia, renameFolder } from './browseApi';
import { allFolders, type FolderChoice } from './allFolders';
import type { Crumb } from './folderStore';

type Mode = 'create' | 'rename' | 'move' | null;

export interface FolderActionsProps {
  datasetId: string;
  /** The open folder ('' for the root) and its breadcrumbs (the last one is the open folder). */
  path: string;
  crumbs: Crumb[];
  rootName: string;
  /** Called after a change with the path to open next (the new folder's, the moved folder's new one). */
  onChanged: (openPath: string) => void;
}

export function FolderActions(props: FolderActionsProps) {
  const [mode, setMode] = useState<Mode>(null);
  const folder = props.path ? props.crumbs[props.crumbs.length - 1] : undefined;
  return (
    <div class="folder-actions" role="group" aria-label="Folder actions">
      <button type="button" onClick={() => setMode('create')}>
        New folder
      </button>
      <button type="button" disabled={!folder} onClick={() => setMode('rename')}>
        Rename folder
      </button>
      <button type="button" disabled={!folder} onClick={() => setMode('move')}>
        Move folder
      </button>
      {mode ? <FolderDialog {...props} mode={mode} folder={folder} onClose={() => setMode(null)} /> : null}
    </div>
  );
}

const TITLES = { create: 'New folder', rename: 'Rename folder', move: 'Move folder' } as const;

function FolderDialog(
  props: FolderActionsProps & { mode: Exclude<Mode, null>; folder: Crumb | undefined; onClose: () => void },
) {
  const { mode, folder, datasetId } = props;
  const dialog = useRef<HTMLDialogElement>(null);
  const [name, setName] = useState(mode === 'rename' ? (folder?.name ?? '') : '');
  const [dest, setDest] = useState('');
  const [choices, setChoices] = useState<FolderChoice[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    dialog.current?.showModal();
    if (mode === 'move')
      allFolders(datasetId, folder?.path ?? '')
        .then(setChoices)
        .catch((err) => setError(describeError(err)));
  }, []);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      props.onChanged(await apply(props, name, dest));
      props.onClose();
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <dialog ref={dialog} class="folder-dialog" aria-labelledby="folder-dialog-title" onClose={props.onClose}>
      <form onSubmit={submit}>
        <h2 id="folder-dialog-title">{TITLES[mode]}</h2>
        {mode === 'move' ? (
          <label>
            Move “{folder?.name}” to{' '}
            <select value={dest} onChange={(e) => setDest(e.currentTarget.value)} disabled={!choices}>
              <option value="">{props.rootName} (top level)</option>
              {(choices ?? []).map((c) => (
                <option key={c.path} value={c.path}>
                  {'\u2003'.repeat(c.depth + 1) + c.name}
                </option>
              ))}
            </select>
          </label>
        ) : (
          <label>
            Name <input value={name} required maxLength={255} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
        )}
        {error ? (
          <p class="error" role="alert">
            {error}
          </p>
        ) : null}
        <div class="dialog-buttons">
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" class="primary" disabled={busy}>
            {mode === 'create' ? 'Create' : mode === 'rename' ? 'Rename' : 'Move'}
          </button>
        </div>
      </form>
    </dialog>
  );
}

/** Runs the dialog's change; returns the path to open afterwards. */
async function apply(
  props: FolderActionsProps & { mode: Exclude<Mode, null>; folder: Crumb | undefined },
  name: string,
  dest: string,
) {
  const { mode, folder, datasetId, path } = props;
  if (mode === 'create') return (await createFolder(datasetId, name, path)).folder.path;
  if (!folder) return path;
  if (mode === 'rename') {
    await renameFolder(folder.id, name);
    return path;
  }
  const root = path.split('.')[0];
  const moved = await moveMedia(folder.id, dest || root);
  return moved.newPath;
}
