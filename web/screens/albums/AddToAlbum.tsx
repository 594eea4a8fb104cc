/** "Add to album" in the viewer (members and up): pick an album of the collection, or name a new one. */
import { useState } from 'preact/hooks';
import { describeError } from '../../lib/api';
import { canWrite } from '../../lib/session';
import { Alert } from '../../components/Alert';
import { addToAlbum, createAlbum, listAlbums, type Album } from './albumApi';
import './albums.css';

const NEW = '__new__';

export function AddToAlbum({ datasetId, mediaIds }: { datasetId: string; mediaIds: string[] }) {
  const [albums, setAlbums] = useState<Album[] | null>(null);
  const [choice, setChoice] = useState('');
  const [message, setMessage] = useState<{ text: string; kind: 'ok' | 'error' } | null>(null);
  if (!canWrite()) return null;
  const load = async (open: boolean) => {
    if (!open || albums) return;
    try {
      const list = (await listAlbums(datasetId)).albums;
      setAlbums(list);
      setChoice(list[0]?.id ?? NEW);
    } catch (err) {
      setMessage({ text: describeError(err), kind: 'error' });
    }
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    try {
      if (choice === NEW) {
        const name = String(form.get('name') ?? '').trim();
        if (!name) return setMessage({ text: 'Give the new album a name.', kind: 'error' });
        const album = await createAlbum(datasetId, name, mediaIds);
        setAlbums((list) => [album, ...(list ?? [])]);
        setChoice(album.id);
        setMessage({ text: `Added to ${album.name}`, kind: 'ok' });
      } else {
        const { album, changed } = await addToAlbum(choice, mediaIds);
        setMessage({ text: changed ? `Added to ${album.name}` : `Already in ${album.name}`, kind: 'ok' });
      }
    } catch (err) {
      setMessage({ text: describeError(err), kind: 'error' });
    }
  };
  return (
    <details class="add-to-album" onToggle={(e) => void load((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>Add to album</summary>
      <form onSubmit={submit}>
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
        <button type="submit" class="primary">
          Add
        </button>
        <Alert message={message?.text ?? null} kind={message?.kind} />
      </form>
    </details>
  );
}
