/**
 * The selection bar's "Add to album…" and "Share…" (issue #28, members and up), added when this module is
 * first imported (by Browse). Each opens a dialog over the page in a container of its own, removed on close.
 * A selection becomes a list of ids (selectionIds.ts): the album and selection link APIs take ids only.
 */
import { render, type ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError } from '../../lib/api';
import { Alert } from '../../components/Alert';
import { addSelectionAction, type SelectionContext } from '../browse/selection';
import { ShareDialog } from '../share/ShareDialog';
import { AlbumForm } from './AddToAlbum';
import { selectionIds } from './selectionIds';
import './selection-album.css';

function openDialog(make: (close: () => void) => ComponentChildren): void {
  const host = document.createElement('div');
  document.body.append(host);
  render(
    make(() => {
      render(null, host);
      host.remove();
    }),
    host,
  );
}

function Modal(props: { title: string; onClose(): void; children: ComponentChildren }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    if (!dialog.current?.open) dialog.current?.showModal();
  }, []);
  return (
    <dialog ref={dialog} class="selection-album" aria-labelledby="selection-album-title" onClose={props.onClose}>
      <h2 id="selection-album-title">{props.title}</h2>
      {props.children}
      <button type="button" onClick={() => dialog.current?.close()}>
        Close
      </button>
    </dialog>
  );
}

function SelectionAlbumDialog({ ctx, onClose }: { ctx: SelectionContext; onClose(): void }) {
  const noun = ctx.count === 1 ? 'item' : 'items';
  return (
    <Modal title={`Add ${ctx.count.toLocaleString()} ${noun} to an album`} onClose={onClose}>
      <AlbumForm datasetId={ctx.datasetId} mediaIds={async () => selectionIds(await ctx.target())} />
    </Modal>
  );
}

function SelectionShareDialog({ ctx, onClose }: { ctx: SelectionContext; onClose(): void }) {
  const [ids, setIds] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    ctx
      .target()
      .then(selectionIds)
      .then(setIds, (err) => setError(describeError(err)));
  }, [ctx]);
  const name = `${ctx.count.toLocaleString()} ${ctx.count === 1 ? 'item' : 'items'}`;
  if (ids)
    return (
      <ShareDialog datasetId={ctx.datasetId} target={{ kind: 'selection', mediaIds: ids, name }} onClose={onClose} />
    );
  return (
    <Modal title={`Share ${name}`} onClose={onClose}>
      {error ? <Alert message={error} /> : <p role="status">Gathering the selection…</p>}
    </Modal>
  );
}

addSelectionAction({
  id: 'album-add',
  label: 'Add to album…',
  writes: true,
  run: (ctx) => openDialog((close) => <SelectionAlbumDialog ctx={ctx} onClose={close} />),
});

addSelectionAction({
  id: 'share-selection',
  label: 'Share…',
  writes: true,
  run: (ctx) => openDialog((close) => <SelectionShareDialog ctx={ctx} onClose={close} />),
});
