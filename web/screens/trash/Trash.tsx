/**
 * The trash of a collection (/c/:datasetId/trash, ours, issue #27): what was deleted, newest first, with when,
 * by whom and where it was; restore, delete forever (confirmed) and empty the trash. A purge runs as a
 * background job: the entries leave the list at once and the list is read again once it is done.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError } from '../../lib/api';
import { followLink } from '../../lib/router';
import { canWrite } from '../../lib/session';
import { MediaThumb } from '../../components/MediaThumb';
import { fetchCollection } from '../browse/browseApi';
import { fetchTrash, purgeEntries, restoreEntries, type TrashEntry } from './trashApi';
import './trash.css';

const PAGE = 50;
const WHEN = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** What the confirm dialog asks about: some entries, or the whole trash. */
type Confirming = { ids: string[]; label: string } | { ids: null; label: string } | null;

export function Trash({ params }: { params: Record<string, string> }) {
  const datasetId = params.datasetId;
  const [name, setName] = useState<string | null>(null);
  const [entries, setEntries] = useState<TrashEntry[] | null>(null);
  const [total, setTotal] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<Confirming>(null);
  const writable = canWrite();
  const browseHref = `/c/${encodeURIComponent(datasetId)}`;

  const load = async (more = false) => {
    try {
      const page = await fetchTrash(datasetId, more ? (entries?.length ?? 0) : 0, PAGE);
      setEntries((old) => (more && old ? [...old, ...page.entries] : page.entries));
      setTotal(page.pagination.total);
      setError(null);
    } catch (err) {
      setError(describeError(err));
    }
  };
  useEffect(() => {
    fetchCollection(datasetId).then(
      (c) => setName(c.name),
      () => setName(null),
    );
    void load();
  }, [datasetId]);

  const drop = (ids: string[] | null) => {
    setEntries((old) => (ids === null ? [] : (old ?? []).filter((e) => !ids.includes(e.id))));
    setTotal((n) => (ids === null ? 0 : Math.max(0, n - ids.length)));
  };
  const restore = async (entry: TrashEntry) => {
    try {
      await restoreEntries(datasetId, [entry.id]);
      drop([entry.id]);
      setNotice(`Restored “${entry.name}” to ${placeOf(entry, name)}.`);
    } catch (err) {
      setError(describeError(err));
    }
  };
  const purge = async (ids: string[] | null) => {
    setConfirming(null);
    try {
      await purgeEntries(datasetId, ids ?? undefined);
      drop(ids);
      setNotice(ids === null ? 'The trash is being emptied.' : 'Deleted for good.');
      // The purge is a job: read the list again once it has had time to run.
      setTimeout(() => void load(), 1500);
    } catch (err) {
      setError(describeError(err));
    }
  };

  return (
    <section class="trash" aria-labelledby="trash-title">
      <div class="trash-head">
        <h1 id="trash-title">Trash{name ? ` — ${name}` : ''}</h1>
        <a href={browseHref} onClick={followLink}>
          Back to the collection
        </a>
        {writable && entries && entries.length > 0 ? (
          <button
            type="button"
            class="danger"
            onClick={() => setConfirming({ ids: null, label: 'everything in the trash' })}
          >
            Empty trash
          </button>
        ) : null}
      </div>
      <p class="muted">Deleted items stay here until they are deleted for good or purged automatically.</p>
      {notice ? (
        <p class="notice" role="status">
          {notice}
        </p>
      ) : null}
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      <TrashList
        entries={entries}
        collectionName={name}
        writable={writable}
        onRestore={(e) => void restore(e)}
        onPurge={(e) => setConfirming({ ids: [e.id], label: `“${e.name}”` })}
      />
      {entries && entries.length < total ? (
        <button type="button" onClick={() => void load(true)}>
          Show more
        </button>
      ) : null}
      {confirming ? (
        <ConfirmPurge
          label={confirming.label}
          onCancel={() => setConfirming(null)}
          onConfirm={() => void purge(confirming.ids)}
        />
      ) : null}
    </section>
  );
}

/** Where an entry was: its folders' names, or the collection's top level. */
function placeOf(entry: TrashEntry, collectionName: string | null): string {
  if (entry.location.length === 0) return `${collectionName ?? 'the collection'} (top level)`;
  return entry.location.map((f) => f.name || 'a folder').join(' / ');
}

function TrashList(props: {
  entries: TrashEntry[] | null;
  collectionName: string | null;
  writable: boolean;
  onRestore: (e: TrashEntry) => void;
  onPurge: (e: TrashEntry) => void;
}) {
  if (props.entries === null)
    return (
      <p class="loading" role="status">
        Loading the trash…
      </p>
    );
  if (props.entries.length === 0)
    return (
      <div class="empty-state" role="status">
        <p>The trash is empty.</p>
      </div>
    );
  return (
    <ul class="trash-list" aria-label="Deleted items">
      {props.entries.map((e) => (
        <li key={e.id} class="trash-entry">
          <span class="trash-thumb">
            <MediaThumb item={e.media} />
          </span>
          <span class="trash-text">
            <span class="trash-name">{e.name}</span>
            <span class="muted">
              {e.type === 'folder' ? `Folder · ${e.itemCount} ${e.itemCount === 1 ? 'entry' : 'entries'} · ` : ''}
              Deleted {WHEN.format(new Date(e.deletedAt))} by {e.deletedBy.name ?? 'someone'} · from{' '}
              {placeOf(e, props.collectionName)}
            </span>
          </span>
          {props.writable ? (
            <span class="trash-buttons">
              <button type="button" aria-label={`Restore ${e.name}`} onClick={() => props.onRestore(e)}>
                Restore
              </button>
              <button
                type="button"
                class="danger"
                aria-label={`Delete forever ${e.name}`}
                onClick={() => props.onPurge(e)}
              >
                Delete forever
              </button>
            </span>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

function ConfirmPurge(props: { label: string; onCancel: () => void; onConfirm: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => dialog.current?.showModal(), []);
  return (
    <dialog ref={dialog} class="trash-dialog" aria-labelledby="trash-dialog-title" onClose={props.onCancel}>
      <h2 id="trash-dialog-title">Delete forever?</h2>
      <p>This deletes {props.label} for good, with its files. It cannot be undone.</p>
      <div class="dialog-buttons">
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
        <button type="button" class="danger" onClick={props.onConfirm}>
          Delete forever
        </button>
      </div>
    </dialog>
  );
}
