/**
 * One person (/c/:datasetId/people/:clusterId): the name (renamed in place), their faces, and the items they
 * are in, newest taken first (browse by clusterId, sortBy=takenAt; 100 at a time). Writers select faces
 * (each a toggle button) and move them to another person (picker) or out ("Not this person"), choose the
 * cover face, and hide or show the person.
 */
import { useState } from 'preact/hooks';
import { api, describeError } from '../../lib/api';
import { followLink, navigate } from '../../lib/router';
import { canWrite } from '../../lib/session';
import { useLoad } from '../../components/useLoad';
import { Alert } from '../../components/Alert';
import { MediaThumb, type ThumbFields } from '../../components/MediaThumb';
import { Crop } from './Crop';
import { NameEditor } from './NameEditor';
import { FaceActions } from './FaceActions';
import { fetchFaces, fetchPerson, personName, updatePerson, type Face, type Person as PersonInfo } from './peopleApi';
import './people.css';

const ITEMS_PAGE = 100;

type Item = ThumbFields & { id: string };

export function Person({ params }: { params: Record<string, string> }) {
  const { datasetId, clusterId } = params;
  const person = useLoad((signal) => fetchPerson(clusterId, signal), [clusterId]);
  const faces = useLoad((signal) => fetchFaces(clusterId, signal), [clusterId]);
  const [message, setMessage] = useState<{ text: string; kind: 'ok' | 'error' } | null>(null);
  const peopleUrl = `/c/${encodeURIComponent(datasetId)}/people`;
  if (person.error)
    return (
      <section class="empty-state" role="alert">
        <p>This person could not be opened: {person.error}</p>
        <a href={peopleUrl} onClick={followLink}>
          Back to People
        </a>
      </section>
    );
  const p = person.data;
  if (!p)
    return (
      <p class="loading" role="status">
        Loading…
      </p>
    );
  const reload = () => {
    person.reload();
    faces.reload();
  };
  const toggleHidden = async () => {
    try {
      await updatePerson(p.id, { hidden: !p.hidden });
      setMessage({ text: p.hidden ? 'Shown in People again.' : 'Hidden from People.', kind: 'ok' });
      person.reload();
    } catch (err) {
      setMessage({ text: describeError(err), kind: 'error' });
    }
  };
  return (
    <section class="person" aria-labelledby="person-title">
      <div class="people-head" id="person-title">
        <Crop src={p.preview} alt={`Cover face of ${personName(p)}`} />
        <NameEditor heading person={p} onSaved={() => person.reload()} />
        <span class="muted">
          {p.mediaCount.toLocaleString()} {p.mediaCount === 1 ? 'item' : 'items'} · {p.size.toLocaleString()} faces
        </span>
        <a href={peopleUrl} onClick={followLink}>
          Back to People
        </a>
        {canWrite() ? (
          <button type="button" onClick={() => void toggleHidden()}>
            {p.hidden ? 'Show in People' : 'Hide from People'}
          </button>
        ) : null}
      </div>
      <Alert message={message?.text ?? null} kind={message?.kind} />
      <FaceStrip
        person={p}
        datasetId={datasetId}
        faces={faces.data}
        error={faces.error}
        onDone={(text, sourceRemains) => {
          setMessage({ text, kind: 'ok' });
          if (sourceRemains) reload();
          else navigate(peopleUrl);
        }}
        onError={(text) => setMessage({ text, kind: 'error' })}
      />
      <PersonItems datasetId={datasetId} clusterId={clusterId} generation={p.size} />
    </section>
  );
}

function FaceStrip(props: {
  person: PersonInfo;
  datasetId: string;
  faces: Face[] | undefined;
  error: string | null;
  onDone: (text: string, sourceRemains: boolean) => void;
  onError: (text: string) => void;
}) {
  const [selected, setSelected] = useState<string[]>([]);
  if (props.error) return <Alert message={`Faces could not be loaded: ${props.error}`} />;
  if (!props.faces) return null;
  const name = personName(props.person);
  return (
    <section aria-labelledby="faces-title" class="person-faces">
      <h2 id="faces-title">Faces</h2>
      {canWrite() ? (
        <FaceActions
          person={props.person}
          datasetId={props.datasetId}
          selected={selected}
          onDone={(text, remains) => {
            setSelected([]);
            props.onDone(text, remains);
          }}
          onError={props.onError}
        />
      ) : null}
      <ul class="face-strip" aria-label={`Faces of ${name}`}>
        {props.faces.map((f, i) => {
          const on = selected.includes(f.objectId);
          const alt = `Face ${i + 1} of ${name}${f.manual ? ' (placed by hand)' : ''}`;
          return (
            <li key={f.objectId}>
              {canWrite() ? (
                <button
                  type="button"
                  class={on ? 'face-toggle selected' : 'face-toggle'}
                  aria-pressed={on}
                  aria-label={alt}
                  onClick={() => setSelected((s) => (on ? s.filter((x) => x !== f.objectId) : [...s, f.objectId]))}
                >
                  <Crop src={f.crop} alt="" />
                </button>
              ) : (
                <Crop src={f.crop} alt={alt} />
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/** The person's items, newest taken first, 100 at a time. */
function PersonItems(props: { datasetId: string; clusterId: string; generation: number }) {
  const [pages, setPages] = useState(1);
  const items = useLoad(
    (signal) =>
      api<{ media: Item[]; pagination: { total: number } }>(
        'GET',
        `/api/dataset/${encodeURIComponent(props.datasetId)}/media`,
        {
          query: {
            clusterId: props.clusterId,
            recursive: true,
            sortBy: 'takenAt',
            sortDirection: 'desc',
            limit: Math.min(1000, ITEMS_PAGE * pages),
          },
          signal,
        },
      ),
    [props.clusterId, pages, props.generation],
  );
  const here = `/c/${encodeURIComponent(props.datasetId)}/people/${encodeURIComponent(props.clusterId)}`;
  return (
    <section aria-labelledby="items-title">
      <h2 id="items-title">Photos and videos</h2>
      {items.error ? <Alert message={`The items could not be loaded: ${items.error}`} /> : null}
      {items.data && items.data.media.length === 0 ? <p class="muted">No items to show.</p> : null}
      <ul class="person-items" aria-label="Items with this person">
        {(items.data?.media ?? []).map((m) => (
          <li key={m.id}>
            <a href={`/m/${encodeURIComponent(m.id)}?from=${encodeURIComponent(here)}`} onClick={followLink}>
              <MediaThumb item={m} />
              <span class="visually-hidden">{m.name}</span>
            </a>
          </li>
        ))}
      </ul>
      {items.data && items.data.media.length < items.data.pagination.total ? (
        <button type="button" onClick={() => setPages((n) => n + 1)}>
          Show more
        </button>
      ) : null}
    </section>
  );
}
