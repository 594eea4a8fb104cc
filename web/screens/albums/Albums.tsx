/**
 * The collection's albums (/c/:datasetId/albums): a card per album linking to its view, creating one
 * (members and up, as the API allows), and the collection's share links with their view counts.
 */
import { useState } from 'preact/hooks';
import { describeError } from '../../lib/api';
import { followLink, navigate } from '../../lib/router';
import { canWrite } from '../../lib/session';
import { Alert } from '../../components/Alert';
import { useLoad } from '../../components/useLoad';
import { ShareLinks } from '../share/ShareLinks';
import { createAlbum, listAlbums } from './albumApi';
import './albums.css';

export function Albums({ params }: { params: Record<string, string> }) {
  const datasetId = params.datasetId;
  const loaded = useLoad((signal) => listAlbums(datasetId, signal), [datasetId]);
  const [error, setError] = useState<string | null>(null);
  const base = `/c/${encodeURIComponent(datasetId)}`;
  const create = async (e: Event) => {
    e.preventDefault();
    const name = String(new FormData(e.currentTarget as HTMLFormElement).get('name') ?? '').trim();
    if (!name) return setError('Give the album a name.');
    try {
      const album = await createAlbum(datasetId, name);
      navigate(`${base}/albums/${encodeURIComponent(album.id)}`);
    } catch (err) {
      setError(describeError(err));
    }
  };
  const albums = loaded.data?.albums ?? [];
  return (
    <div class="albums">
      <div class="albums-head">
        <h1>Albums</h1>
        <a href={base} onClick={followLink}>
          Back to the collection
        </a>
      </div>
      {canWrite() && (
        <form class="album-create" onSubmit={create}>
          <label for="new-album">New album</label>
          <input id="new-album" name="name" maxLength={200} placeholder="Name" required />
          <button type="submit" class="primary">
            Create
          </button>
        </form>
      )}
      <Alert message={loaded.error ?? error} />
      {loaded.loading && !loaded.data ? (
        <p class="loading" role="status">
          Loading albums…
        </p>
      ) : albums.length === 0 ? (
        <p class="empty-state" role="status">
          No albums yet. An album gathers items from any folder; an item can be in several.
        </p>
      ) : (
        <ul class="album-list">
          {albums.map((a) => (
            <li key={a.id} class="album-card">
              <a href={`${base}/albums/${encodeURIComponent(a.id)}`} onClick={followLink}>
                <span class="album-name">{a.name}</span>
                <span class="muted">
                  {a.itemCount} {a.itemCount === 1 ? 'item' : 'items'}
                </span>
              </a>
            </li>
          ))}
        </ul>
      )}
      {canWrite() && <ShareLinks datasetId={datasetId} />}
    </div>
  );
}
