/**
 * The search screen's controls: the relevance cut-off (minScore), newest first among the matches, and the
 * filters (type, dates, and in a collection its tags). Each change rewrites the URL, which holds all state.
 */
import { useState } from 'preact/hooks';
import type { SearchState } from './searchState';
import { TypeDateFilters } from '../../components/TypeDateFilters';
import { PlaceFilters } from '../browse/PlaceFilters';

export function SearchControls(props: {
  state: SearchState;
  /** Tag values of the collection (null: organization search, no tag filter). */
  tagValues: string[] | null;
  onChange: (next: Partial<SearchState>) => void;
  /** The collection searched (its places and cameras fill the country, place and camera filters). */
  datasetId?: string | null;
}) {
  const { state, onChange } = props;
  // The slider shows its value while dragging; the search runs when it is let go.
  const [dragging, setDragging] = useState<number | null>(null);
  const shown = dragging ?? state.minScore;
  const available = (props.tagValues ?? []).filter((v) => !state.tags.includes(v));
  return (
    <form class="search-controls" aria-label="Search options" onSubmit={(e) => e.preventDefault()}>
      <label class="cutoff">
        <span>
          Relevance cut-off <output>{shown.toFixed(2)}</output>
        </span>
        <input
          type="range"
          name="minScore"
          aria-label="Relevance cut-off"
          aria-valuetext={shown.toFixed(2)}
          min={0}
          max={1}
          step={0.05}
          value={shown}
          onInput={(e) => setDragging(Number(e.currentTarget.value))}
          onChange={(e) => {
            setDragging(null);
            onChange({ minScore: Number(e.currentTarget.value) });
          }}
        />
      </label>
      <label class="check">
        <input
          type="checkbox"
          name="newest"
          checked={state.newest}
          onChange={(e) => onChange({ newest: e.currentTarget.checked })}
        />
        Newest first among matches
      </label>
      <TypeDateFilters
        type={state.type}
        from={state.dateFrom}
        to={state.dateTo}
        onType={(type) => onChange({ type })}
        onFrom={(dateFrom) => onChange({ dateFrom })}
        onTo={(dateTo) => onChange({ dateTo })}
      />
      {props.datasetId ? <PlaceFilters datasetId={props.datasetId} state={state} onChange={onChange} /> : null}
      {props.tagValues && (
        <div class="tag-filter" role="group" aria-label="Tag filter">
          {state.tags.map((t) => (
            <button
              type="button"
              class="chip"
              key={t}
              onClick={() => onChange({ tags: state.tags.filter((x) => x !== t) })}
            >
              {t} <span aria-hidden="true">×</span>
              <span class="visually-hidden"> (remove tag filter)</span>
            </button>
          ))}
          {available.length > 0 && (
            <label>
              <span class="visually-hidden">Only items tagged</span>
              <select
                name="tag"
                value=""
                onChange={(e) => e.currentTarget.value && onChange({ tags: [...state.tags, e.currentTarget.value] })}
              >
                <option value="">+ tag…</option>
                {available.map((v) => (
                  <option key={v} value={v}>
                    {v}
                  </option>
                ))}
              </select>
            </label>
          )}
        </div>
      )}
    </form>
  );
}
