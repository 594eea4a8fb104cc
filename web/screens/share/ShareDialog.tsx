/**
 * Creating a share link: a dialog with its name, password, expiry and permissions; once made, the link is
 * shown with a Copy button (the token is answered only this once: only its hash is kept).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, describeError } from '../../lib/api';
import { Alert } from '../../components/Alert';
import { CopyLink } from '../../components/CopyLink';
import './share.css';

export interface ShareTarget {
  kind: 'album' | 'folder' | 'selection';
  albumId?: string;
  folderId?: string;
  mediaIds?: string[];
  /** A name to start from (the album's or folder's). */
  name: string;
}

export function ShareDialog(props: { datasetId: string; target: ShareTarget; onClose(): void; onCreated?(): void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [url, setUrl] = useState<string | null>(null);
  const [withPassword, setWithPassword] = useState(false);
  useEffect(() => {
    if (!dialog.current?.open) dialog.current?.showModal();
  }, []);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const password = String(form.get('password') ?? '');
    const expires = String(form.get('expires') ?? '');
    const { kind, albumId, folderId, mediaIds } = props.target;
    setBusy(true);
    try {
      const made = await api<{ url: string }>(
        'POST',
        `/api/dataset/${encodeURIComponent(props.datasetId)}/share-links`,
        {
          body: {
            kind,
            albumId,
            folderId,
            mediaIds,
            name: String(form.get('name') ?? '').trim() || props.target.name,
            password: password || undefined,
            // The end of the chosen day, in the visitor's and the owner's local time.
            expiresAt: expires ? new Date(`${expires}T23:59:59`).toISOString() : undefined,
            canDownload: form.get('download') === 'on',
            canUpload: form.get('upload') === 'on',
            showOrganization: form.get('org') === 'on',
          },
        },
      );
      setUrl(made.url);
      setWithPassword(password !== '');
      setError(null);
      props.onCreated?.();
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <dialog ref={dialog} class="share-dialog" aria-labelledby="share-title" onClose={props.onClose}>
      <h2 id="share-title">Share “{props.target.name}”</h2>
      {url ? (
        <div class="share-made">
          <p>
            Anyone with this link{withPassword ? ' and its password' : ''} can open it
            {props.target.kind === 'folder' ? ', new items included' : ''}.
          </p>
          <CopyLink label="Share link" url={url} />
        </div>
      ) : (
        <form class="share-form" onSubmit={submit}>
          <label for="share-name">Name</label>
          <input id="share-name" name="name" maxLength={200} defaultValue={props.target.name} />
          <label for="share-password">Password (optional)</label>
          <input id="share-password" name="password" type="password" minLength={4} autoComplete="new-password" />
          <label for="share-expires">Expires (optional)</label>
          <input id="share-expires" name="expires" type="date" min={new Date().toISOString().slice(0, 10)} />
          <fieldset>
            <legend>Visitors may</legend>
            <label>
              <input type="checkbox" name="download" /> Download originals
            </label>
            {props.target.kind !== 'selection' && (
              <label>
                <input type="checkbox" name="upload" /> Upload photos and videos
              </label>
            )}
            <label>
              <input type="checkbox" name="org" /> See the organization’s name
            </label>
          </fieldset>
          <Alert message={error} />
          <button type="submit" class="primary" disabled={busy}>
            Create link
          </button>
        </form>
      )}
      <button type="button" class="share-close" onClick={() => dialog.current?.close()}>
        Close
      </button>
    </dialog>
  );
}
