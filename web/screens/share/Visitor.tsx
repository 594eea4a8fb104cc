/**
 * The visitor's page (/s/:token): no account, no header, only what the link shares. A password prompt when
 * the link has one; then the grid, a viewer (the preview, a video's playable copy, the original when
 * downloads are allowed) and an upload button when uploads are. A link that is unknown, expired or revoked
 * shows one and the same "not available" page, also when it happens while the page is open.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, describeError } from '../../lib/api';
import { Alert } from '../../components/Alert';
import { MediaThumb } from '../../components/MediaThumb';
import { shareCall, type ShareInfo, type SharedItem, type SharedPage } from './visitorApi';
import './share.css';

type State =
  | { kind: 'loading' }
  | { kind: 'locked' }
  | { kind: 'gone' }
  | { kind: 'error'; message: string }
  | { kind: 'open'; info: ShareInfo; items: SharedItem[]; total: number };
const PAGE = 60;

export function Visitor({ params }: { params: Record<string, string> }) {
  const token = params.token;
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [viewing, setViewing] = useState<number | null>(null);
  const fail = (err: unknown) => {
    if (err instanceof ApiError && err.status === 404 && err.message === 'share link not found')
      return setState({ kind: 'gone' });
    if (err instanceof ApiError && err.status === 401) return setState({ kind: 'locked' });
    setState({ kind: 'error', message: describeError(err) });
  };
  const load = async (limit = PAGE) => {
    try {
      const info = await shareCall<ShareInfo>(token, 'GET');
      const page = await shareCall<SharedPage>(token, 'GET', `/media?limit=${limit}`);
      setState({ kind: 'open', info, items: page.media, total: page.pagination.total });
    } catch (err) {
      fail(err);
    }
  };
  useEffect(() => {
    document.title = 'Shared with you';
    void load();
  }, [token]);
  if (state.kind === 'loading')
    return (
      <p class="loading" role="status">
        Opening…
      </p>
    );
  if (state.kind === 'locked') return <PasswordPrompt token={token} onUnlocked={() => void load()} onGone={fail} />;
  if (state.kind === 'gone' || state.kind === 'error')
    return (
      <main class="visitor" id="main">
        <h1>This link is not available</h1>
        <p>{state.kind === 'error' ? state.message : 'It may have expired or been withdrawn by its owner.'}</p>
      </main>
    );
  const { info, items, total } = state;
  // Opening an item asks the server first: a link revoked meanwhile shows as gone at once.
  const open = (at: number) => {
    const i = (at + items.length) % items.length;
    void shareCall(token, 'GET', `/media/${encodeURIComponent(items[i].id)}`).then(() => setViewing(i), fail);
  };
  return (
    <main class="visitor" id="main">
      <div class="visitor-head">
        <h1>{info.name}</h1>
        {info.organizationName && <span class="muted">Shared by {info.organizationName}</span>}
        <span class="muted" role="status">
          {total} {total === 1 ? 'item' : 'items'}
        </span>
      </div>
      {info.canUpload && <VisitorUpload token={token} onDone={() => void load(items.length + PAGE)} onGone={fail} />}
      {viewing !== null && items[viewing] ? (
        <SharedViewer item={items[viewing]} onClose={() => setViewing(null)} onStep={(d) => open(viewing + d)} />
      ) : null}
      <ul class="visitor-grid" aria-label={`Items of ${info.name}`}>
        {items.map((m, i) => (
          <li key={m.id}>
            <button type="button" onClick={() => open(i)} aria-label={`Open ${m.name}`}>
              <MediaThumb item={{ ...m, blob: '' }} />
            </button>
          </li>
        ))}
      </ul>
      {items.length < total && (
        <button type="button" onClick={() => void load(items.length + PAGE)}>
          Show more
        </button>
      )}
    </main>
  );
}

function PasswordPrompt(props: { token: string; onUnlocked(): void; onGone(err: unknown): void }) {
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const password = String(new FormData(e.currentTarget as HTMLFormElement).get('password') ?? '');
    try {
      await shareCall(props.token, 'POST', '/unlock', { password });
      props.onUnlocked();
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return props.onGone(err);
      setError(describeError(err));
    }
  };
  return (
    <main class="visitor" id="main">
      <form class="visitor-lock" onSubmit={submit}>
        <h1>This link is protected</h1>
        <label for="share-unlock">Password</label>
        <input id="share-unlock" name="password" type="password" autoComplete="current-password" required />
        <button type="submit" class="primary">
          Open
        </button>
        <Alert message={error} />
      </form>
    </main>
  );
}

function SharedViewer(props: { item: SharedItem; onClose(): void; onStep(delta: number): void }) {
  const { item } = props;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') props.onClose();
      else if (e.key === 'ArrowRight') props.onStep(1);
      else if (e.key === 'ArrowLeft') props.onStep(-1);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [item.id]);
  return (
    <section class="visitor-viewer" aria-label={item.name}>
      <div class="visitor-viewer-bar">
        <h2>{item.name}</h2>
        <button type="button" onClick={() => props.onStep(-1)} aria-label="Previous item">
          ←
        </button>
        <button type="button" onClick={() => props.onStep(1)} aria-label="Next item">
          →
        </button>
        {item.downloadUrl && (
          <a href={item.downloadUrl} download={item.name}>
            Download
          </a>
        )}
        <button type="button" onClick={props.onClose}>
          Close
        </button>
      </div>
      {item.type === 'video' ? (
        item.playbackUrl ? (
          <video src={item.playbackUrl} poster={item.previewUrl ?? undefined} controls aria-label={item.name} />
        ) : (
          <p class="muted">This video is still being prepared.</p>
        )
      ) : (
        <img src={item.previewUrl ?? item.thumbnailUrl ?? ''} alt={item.name} />
      )}
    </section>
  );
}

function VisitorUpload(props: { token: string; onDone(): void; onGone(err: unknown): void }) {
  const [message, setMessage] = useState<{ text: string; kind: 'ok' | 'error' } | null>(null);
  const send = async (files: FileList | null) => {
    if (!files?.length) return;
    let sent = 0;
    for (const file of Array.from(files)) {
      const form = new FormData();
      form.append('file', file, file.name);
      try {
        await shareCall(props.token, 'POST', '/upload', form);
        sent++;
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return props.onGone(err);
        setMessage({ text: `${file.name}: ${describeError(err)}`, kind: 'error' });
      }
    }
    if (sent) setMessage({ text: `${sent} ${sent === 1 ? 'file' : 'files'} added`, kind: 'ok' });
    props.onDone();
  };
  return (
    <div class="visitor-upload">
      <label for="visitor-files">Add your photos and videos</label>{' '}
      <input
        id="visitor-files"
        type="file"
        multiple
        accept="image/*,video/*"
        onChange={(e) => void send(e.currentTarget.files)}
      />
      <Alert message={message?.text ?? null} kind={message?.kind} />
    </div>
  );
}
