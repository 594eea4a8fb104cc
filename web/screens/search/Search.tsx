/**
 * Screen 3 (issue #15): search a collection (/c/:datasetId/search?q=…, scored browse) or the whole
 * organization (/search?q=…). Results are frames: each tile shows why it matched. The URL holds the query,
 * cut-off, order and filters; changing a control replaces the URL and the search runs again.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, describeError } from '../../lib/api';
import { location, navigate } from '../../lib/router';
import { session } from '../../lib/session';
import type { OrgSearchResult, ScoredItem } from '../viewer/types';
import { hitsOfItems, hitsOfResults, type SearchHit } from './hits';
import { queryTerms } from './highlight';
import { ResultTile } from './ResultTile';
import { SearchControls } from './SearchControls';
import { apiRequest, readState, stateUrl, type SearchState } from './searchState';
import { PhoneCollapse } from '../../components/PhoneCollapse';
import { example } from './example';
import './search.css';

type Answer = { hits: SearchHit[]; total: number } | { error: string } | null;

/** Runs the search the URL describes; null while it runs. */
function useSearch(state: SearchState, datasetId: string | null): Answer {
  const [answer, setAnswer] = useState<Answer>(null);
  const image = state.by === 'image' ? example.value : null;
  const key = JSON.stringify([state, datasetId, image?.name, image?.dataUri.length]);
  useEffect(() => {
    if (!asked(state) || (state.by === 'image' && !image)) return setAnswer({ hits: [], total: 0 });
    const abort = new AbortController();
    setAnswer(null);
    const [path, query] = apiRequest(state, datasetId, session.value?.organizationId ?? '');
    const scored = image
      ? api<{ media: ScoredItem[]; pagination: { total: number } }>('POST', `${path}/search-by-image`, {
          body: { ...query, q: undefined, image: image.dataUri },
          signal: abort.signal,
        })
      : api<{ media: ScoredItem[]; pagination: { total: number } }>('GET', path, { query, signal: abort.signal });
    const run = datasetId
      ? scored.then((r) => ({ hits: hitsOfItems(r.media), total: r.pagination.total }))
      : api<{ results: OrgSearchResult[]; totalResults: number }>('GET', path, { query, signal: abort.signal }).then(
          (r) => ({ hits: hitsOfResults(r.results), total: r.results.length }),
        );
    run.then(setAnswer, (err) => !abort.signal.aborted && setAnswer({ error: describeError(err) }));
    return () => abort.abort();
  }, [key]);
  return answer;
}

/** Whether the state asks anything: words, an example image, or an object to find more like. */
const asked = (s: SearchState) => (s.by === 'text' ? !!s.q : s.by === 'image' || !!s.like);

/** The collection's tag values, for the tag filter. */
function useTagValues(datasetId: string | null): string[] | null {
  const [values, setValues] = useState<string[] | null>(null);
  useEffect(() => {
    if (!datasetId) return setValues(null);
    api<{ tags: Record<string, string[]> }>('GET', `/api/dataset/${encodeURIComponent(datasetId)}/tags`)
      .then((r) => setValues([...new Set(Object.values(r.tags).flat())].sort()))
      .catch(() => setValues([]));
  }, [datasetId]);
  return values;
}

export function Search(props: { params?: Record<string, string> }) {
  const datasetId = props.params?.datasetId ?? null;
  const loc = location.value;
  const state = readState(loc.query);
  const answer = useSearch(state, datasetId);
  const tagValues = useTagValues(datasetId);
  const here = loc.path + (loc.query.toString() ? `?${loc.query}` : '');
  const terms = queryTerms(state.q);
  const change = (next: Partial<SearchState>) => navigate(stateUrl(loc.path, { ...state, ...next }), { replace: true });
  return (
    <section class="search-screen" aria-labelledby="search-title">
      <h1 id="search-title">
        {state.by === 'image' ? 'Like this image' : state.by === 'like' ? 'More like this' : null}
        {state.by === 'text' && (state.q ? <>Results for “{state.q}”</> : 'Search')}
        <span class="muted search-scope">
          {datasetId ? (state.path ? ' in this folder' : ' in this collection') : ' in the whole library'}
        </span>
      </h1>
      {state.by === 'image' && example.value && (
        <figure class="example-shown">
          <img src={example.value.dataUri} alt={`Example: ${example.value.name}`} />
          <figcaption class="muted">Items like {example.value.name} (the image is not kept)</figcaption>
        </figure>
      )}
      <PhoneCollapse label="Search options">
        <SearchControls state={state} tagValues={tagValues} onChange={change} datasetId={datasetId} />
      </PhoneCollapse>
      <Results answer={answer} state={state} terms={terms} from={here} />
    </section>
  );
}

function Results(props: { answer: Answer; state: SearchState; terms: string[]; from: string }) {
  const { answer, state } = props;
  if (state.by === 'image' && !example.value)
    return (
      <p class="empty-state">
        Drop, paste or choose the image again (camera button beside the search box): images searched with are not kept.
      </p>
    );
  if (!asked(state))
    return (
      <p class="empty-state">Type words in the search box above: a colour, an object, words written in a picture.</p>
    );
  if (answer === null)
    return (
      <p class="loading" role="status">
        Searching…
      </p>
    );
  if ('error' in answer)
    return (
      <p class="error" role="alert">
        Search failed: {answer.error}
      </p>
    );
  if (answer.hits.length === 0)
    return (
      <p class="empty-state" role="status">
        No matches above {state.minScore.toFixed(2)}
        {state.minScore > 0 ? ' — lower the cut-off' : ''}.
      </p>
    );
  return (
    <>
      <p class="muted result-count" role="status">
        {answer.total === 1 ? '1 match' : `${answer.total} matches`}
        {state.newest ? ', newest first' : ', best first'}
      </p>
      <ul class="result-grid">
        {answer.hits.map((hit) => (
          <ResultTile key={hit.frame.id} hit={hit} terms={props.terms} from={props.from} />
        ))}
      </ul>
    </>
  );
}
