/**
 * The People screen (/c/:datasetId/people): one card per person (face cluster) with a face crop, the name and
 * how many items they are in; named first, then by count. Paged (100 a page, ?page=N) so 5,000 people load
 * as fast as 50. Writers select several cards to merge them, rename in place, and merge the suggested pairs
 * ("these may be the same person") in one click. Hidden people show with "Show hidden".
 */
import { useState } from 'preact/hooks';
import { describeError } from '../../lib/api';
import { followLink, location, navigate } from '../../lib/router';
import { canWrite } from '../../lib/session';
import { useLoad } from '../../components/useLoad';
import { Alert } from '../../components/Alert';
import { Crop } from './Crop';
import { NameEditor } from './NameEditor';
import { fetchPeople, mergePeople, personName, type PeoplePage, type Person } from './peopleApi';
import { Suggestions } from './Suggestions';
import './people.css';

export const PEOPLE_PAGE_SIZE = 100;

export function People({ params }: { params: Record<string, string> }) {
  const datasetId = params.datasetId;
  const query = location.value.query;
  const page = Math.max(1, Number(query.get('page')) || 1);
  const includeHidden = query.get('hidden') === 'true';
  const [selected, setSelected] = useState<string[]>([]);
  const [message, setMessage] = useState<{ text: string; kind: 'ok' | 'error' } | null>(null);
  const [busy, setBusy] = useState(false);
  const loaded = useLoad(
    (signal) =>
      fetchPeople(datasetId, { offset: (page - 1) * PEOPLE_PAGE_SIZE, limit: PEOPLE_PAGE_SIZE, includeHidden }, signal),
    [datasetId, page, includeHidden],
  );
  const base = `/c/${encodeURIComponent(datasetId)}/people`;
  const urlOf = (p: number, hidden = includeHidden) => {
    const q = new URLSearchParams();
    if (p > 1) q.set('page', String(p));
    if (hidden) q.set('hidden', 'true');
    const s = q.toString();
    return s ? `${base}?${s}` : base;
  };
  const people = loaded.data?.clusters ?? [];
  const chosen = people.filter((p) => selected.includes(p.id));
  const merge = async (target: Person, others: string[]) => {
    setBusy(true);
    try {
      const merged = await mergePeople(target.id, others);
      setSelected([]);
      setMessage({ text: `Merged ${others.length + 1} people into ${personName(merged)}.`, kind: 'ok' });
      loaded.reload();
    } catch (err) {
      setMessage({ text: describeError(err), kind: 'error' });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="people" aria-labelledby="people-title">
      <div class="people-head">
        <h1 id="people-title">People</h1>
        <a href={`/c/${encodeURIComponent(datasetId)}`} onClick={followLink}>
          Back to the collection
        </a>
        <label class="people-hidden-toggle">
          <input
            type="checkbox"
            checked={includeHidden}
            onChange={(e) => navigate(urlOf(1, (e.target as HTMLInputElement).checked))}
          />{' '}
          Show hidden
        </label>
      </div>
      <Alert message={message?.text ?? null} kind={message?.kind} />
      {canWrite() ? (
        <Suggestions datasetId={datasetId} generation={people.length} onMerge={(a, b) => merge(a, [b.id])} />
      ) : null}
      {canWrite() && chosen.length > 0 ? (
        <div class="people-selection" role="region" aria-label="Selected people">
          <span>{chosen.length} selected</span>
          <button
            type="button"
            class="primary"
            disabled={chosen.length < 2 || busy}
            onClick={() =>
              void merge(
                chosen[0],
                chosen.slice(1).map((p) => p.id),
              )
            }
          >
            {chosen.length < 2 ? 'Select another to merge' : `Merge ${chosen.length} into ${personName(chosen[0])}`}
          </button>
          <button type="button" onClick={() => setSelected([])}>
            Clear selection
          </button>
        </div>
      ) : null}
      <PeopleBody
        loaded={loaded}
        datasetId={datasetId}
        selected={selected}
        onToggle={(id) => setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s, id]))}
        onRenamed={() => loaded.reload()}
      />
      {loaded.data ? <Pager page={page} total={loaded.data.pagination.total} urlOf={urlOf} /> : null}
    </section>
  );
}

function PeopleBody(props: {
  loaded: { data: PeoplePage | undefined; error: string | null; loading: boolean; reload(): void };
  datasetId: string;
  selected: string[];
  onToggle: (id: string) => void;
  onRenamed: () => void;
}) {
  const { data, error } = props.loaded;
  if (error)
    return (
      <div class="empty-state" role="alert">
        <p>People could not be loaded: {error}</p>
        <button type="button" onClick={() => props.loaded.reload()}>
          Try again
        </button>
      </div>
    );
  if (!data)
    return (
      <p class="loading" role="status">
        Loading people…
      </p>
    );
  if (data.clusters.length === 0) return <EmptyPeople faces={data.faces} />;
  return (
    <ul class="people-grid" aria-label="People">
      {data.clusters.map((p) => (
        <PersonCard
          key={p.id}
          person={p}
          href={`/c/${encodeURIComponent(props.datasetId)}/people/${encodeURIComponent(p.id)}`}
          selected={props.selected.includes(p.id)}
          onToggle={() => props.onToggle(p.id)}
          onRenamed={props.onRenamed}
        />
      ))}
    </ul>
  );
}

function EmptyPeople({ faces }: { faces: PeoplePage['faces'] }) {
  let text = 'No faces yet: people appear here once photos with faces are analysed.';
  if (!faces.modelsReady) text = 'No face model is installed, so no faces are found. An administrator can add one.';
  else if (faces.pending > 0) text = `${faces.pending.toLocaleString()} faces are waiting to be grouped into people.`;
  return (
    <div class="empty-state" role="status">
      <p>{text}</p>
    </div>
  );
}

function PersonCard(props: {
  person: Person;
  href: string;
  selected: boolean;
  onToggle: () => void;
  onRenamed: () => void;
}) {
  const { person } = props;
  const label = personName(person);
  return (
    <li class={props.selected ? 'person-card selected' : 'person-card'}>
      <a href={props.href} onClick={followLink} class="person-face-link" aria-label={`Open ${label}`}>
        <Crop src={person.preview} alt={label} />
      </a>
      <div class="person-card-text">
        <NameEditor person={person} onSaved={props.onRenamed} />
        <span class="person-count muted">
          {person.mediaCount.toLocaleString()} {person.mediaCount === 1 ? 'item' : 'items'}
          {person.hidden ? ' · hidden' : ''}
        </span>
      </div>
      {canWrite() ? (
        <label class="person-select">
          <input type="checkbox" checked={props.selected} onChange={props.onToggle} />
          <span class="visually-hidden">Select {label}</span>
        </label>
      ) : null}
    </li>
  );
}

function Pager({ page, total, urlOf }: { page: number; total: number; urlOf: (p: number) => string }) {
  const pages = Math.max(1, Math.ceil(total / PEOPLE_PAGE_SIZE));
  if (pages <= 1) return null;
  return (
    <nav class="people-pager" aria-label="Pages of people">
      {page > 1 ? (
        <a href={urlOf(page - 1)} onClick={followLink} rel="prev">
          Previous
        </a>
      ) : null}
      <span>
        Page {page} of {pages} ({total.toLocaleString()} people)
      </span>
      {page < pages ? (
        <a href={urlOf(page + 1)} onClick={followLink} rel="next">
          Next
        </a>
      ) : null}
    </nav>
  );
}
