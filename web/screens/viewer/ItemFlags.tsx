/**
 * Ours (issue #27): the viewer's favourite (heart, key f) and archive toggles and "Move to trash" — POST
 * /api/media/bulk on this one item, so that each can be undone from the same Undo toast as a bulk action (after
 * a trash, on the screen the viewer goes back to). People who cannot write see only whether the item is a
 * favourite or archived.
 */
import { useState } from 'preact/hooks';
import { api, describeError } from '../../lib/api';
import { navigate } from '../../lib/router';
import { canWrite } from '../../lib/session';
import { runBulk, undoOffer, undoStatus, undoText, UndoToast } from '../browse/selection';
import type { MediaItem } from './types';
import { useViewerKeys } from './useViewerKeys';
import './flags.css';

export function ItemFlags(props: { media: MediaItem; back: string; setMedia: (m: MediaItem) => void }) {
  const { media } = props;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [offered, setOffered] = useState<string | null>(null);
  const favorite = media.favorite === true;
  const archived = media.archived === true;
  // Key f, as lib/keymap.ts declares it (the viewer's own listener leaves actions it has no handler for).
  useViewerKeys({ favorite: () => document.querySelector<HTMLButtonElement>('.favorite-toggle')?.click() });
  if (!canWrite())
    return (
      <span class="item-flags muted">
        {favorite ? <span>♥ Favourite</span> : null}
        {archived ? <span>Archived</span> : null}
      </span>
    );
  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  /** One bulk operation on this item; its answer becomes the Undo offer. */
  const act = async (type: string) => {
    const answer = await runBulk({ ids: [media.id] }, { type });
    undoStatus.value = null;
    undoOffer.value = answer.actionId ? { actionId: answer.actionId, text: undoText(type, answer.changed) } : null;
    setOffered(answer.actionId);
  };
  const patch = (body: { favorite?: boolean; archived?: boolean }) =>
    run(async () => {
      const type =
        body.favorite !== undefined
          ? body.favorite
            ? 'favorite'
            : 'unfavorite'
          : body.archived
            ? 'archive'
            : 'unarchive';
      await act(type);
      props.setMedia({ ...media, ...body });
    });
  /** After an undo here: the item as the server has it now. */
  const reload = () =>
    void run(async () => {
      const r = await api<{ media: MediaItem }>('GET', `/api/media/${encodeURIComponent(media.id)}`);
      props.setMedia({ ...media, favorite: r.media.favorite, archived: r.media.archived });
    });
  return (
    <span class="item-flags" role="group" aria-label="Item actions">
      <button
        type="button"
        class={`favorite-toggle${favorite ? ' on' : ''}`}
        aria-pressed={favorite}
        aria-label="Favourite"
        aria-keyshortcuts="f"
        title={favorite ? 'Remove from favourites (f)' : 'Add to favourites (f)'}
        disabled={busy}
        onClick={() => void patch({ favorite: !favorite })}
      >
        <span aria-hidden="true">{favorite ? '♥' : '♡'}</span>
      </button>
      <button type="button" aria-pressed={archived} disabled={busy} onClick={() => void patch({ archived: !archived })}>
        {archived ? 'Archived' : 'Archive'}
      </button>
      <button
        type="button"
        disabled={busy}
        onClick={() =>
          void run(async () => {
            await act('delete');
            navigate(props.back);
          })
        }
      >
        Move to trash
      </button>
      {offered && (undoOffer.value?.actionId === offered || undoStatus.value) ? <UndoToast after={reload} /> : null}
      {error ? (
        <span class="error" role="alert">
          {error}
        </span>
      ) : null}
    </span>
  );
}
