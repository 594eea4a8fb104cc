/** "Add to album" (members and up): pick an album of the collection, or name a new one. */
import { useEffect, useState } from 'preact/hooks';
import { describeError } from '../../lib/api';
import { canWrite } from '../../lib/session';
import { Alert } from '../../components/Alert';
import { addToAlbum, createAlbum, listAlbums, type Album } from './albumApi';
import './albums.css';

const NEW = '__new__';

/** In the viewer: a disclosure with the album form for one item. */
export function AddToAlbum({ datasetId, mediaIds }: { datasetId: string; mediaIds: string[] }) {
  const [open, setOpen] = useState(false);
  if (!canWrite()) return null;
  return (
    <details class="add-to-album" onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>Add to album</summary>
      {open && <AlbumForm datasetId={datasetId} mediaIds={async () => mediaIds} />}
    </details>
  );
}

/**
 * The album form: lists the collection's albums when shown; `mediaIds` is asked for on submit (a browse
 * selection resolves its ids then), and `onAdded` is told how many were added.
 */
export function AlbumForm(props: {
  datasetId: string;
  mediaIds(): Promise<string[]>;
  onAdded?(album: Album, changed: number): void;
}) {
  const { datasetId } = props;
  const [albums, setAlbums] = useState<Album[] | null>(null);
  const [choice, setChoice] = useState('');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ text: string; kind: 'ok' | 'error' } | null>(null);
  useEffect(() => {
    listAlbums(datasetId).then(
      ({ albums: list }) => {
        setAlbums(list);
        setChoice(list[0]?.id ?? NEW);
      },
      (err) => setMessage({ text: describeError(err), kind: 'error' }),
    );
  }, [datasetId]);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const name = String(form.get('name') ?? '').trim();
    if (choice === NEW && !name) return setMessage({ text: 'Give the new album a name.', kind: 'error' });
    setBusy(true);
    try {
      const mediaIds = await props.mediaIds();
      if (choice === NEW) {
        const album = await createAlbum(datasetId, name, mediaIds);
        setAlbums((list) => [album, ...(list ?? [])]);
        setChoice(album.id);
        setMessage({ text: `Added to ${album.name}`, kind: 'ok' });
        props.onAdded?.(album, album.itemCount);
      } else {
        const { album, changed } = await addToAlbum(choice, mediaIds);
        setMessage({ text: changed ? `Added to ${album.name}` : `Already in ${album.name}`, kind: 'ok' });
        props.onAdded?.(album, changed);
      }
    } catch (err) {
      setMessage({ text: describeError(err), kind: 'error' });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="add-to-album-form" onSubmit={submit}>
      <label for="album-choice">Album</label>
      <select id="album-choice" value={choice} onChange={(e) => setChoice(e.currentTarget.value)}>
        {(albums ?? []).map((a) => (
          <option key={a.id} value={a.id}>
            {a.name}
          </option>
        ))}
        <option value={NEW}>New album…</option>
      </select>
      {choice === NEW && (
        <>
          <label for="album-new-name">New album name</label>
          <input id="album-new-name" name="name" maxLength={200} />
        </>
      )}
      <button type="submit" class="primary" disabled={busy || albums === null}>
        Add
      </button>
      <Alert message={message?.text ?? null} kind={message?.kind} />
    </form>
  );
}
