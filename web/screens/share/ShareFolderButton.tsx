/** "Share" on the browse screen: a live link to the open folder (or the whole collection at its root). */
import { useState } from 'preact/hooks';
import { canWrite } from '../../lib/session';
import { ShareDialog } from './ShareDialog';

export function ShareFolderButton(props: { datasetId: string; path: string; name: string }) {
  const [open, setOpen] = useState(false);
  if (!canWrite()) return null;
  const labels = props.path.split('.');
  const folderId = labels.length > 1 ? labels[labels.length - 1] : undefined;
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Share
      </button>
      {open && (
        <ShareDialog
          datasetId={props.datasetId}
          target={{ kind: 'folder', folderId, name: props.name }}
          onClose={() => setOpen(false)}
        />
      )}
    </>
  );
}
