/** The filter bar: type, date range, tags (chips with autocomplete), sort and direction, subfolders, clear all. */
import { useState } from 'preact/hooks';
import { TypeDateFilters } from '../../components/TypeDateFilters';
import { CLEARED, hasFilters, type BrowseState } from './browseState';
import { FlagFilters } from './FlagFilters';
import { PlaceFilters } from './PlaceFilters';

export interface FiltersProps {
  datasetId: string;
  state: BrowseState;
  /** Every tag value of the collection, for the autocomplete. */
  tagValues: string[];
  onChange: (patch: Partial<BrowseState>) => void;
}

export function Filters({ datasetId, state, tagValues, onChange }: FiltersProps) {
  return (
    <form class="browse-filters" aria-label="Filters and sorting" onSubmit={(e) => e.preventDefault()}>
      <TypeDateFilters
        type={state.type}
        from={state.from}
        to={state.to}
        onType={(type) => onChange({ type })}
        onFrom={(from) => onChange({ from })}
        onTo={(to) => onChange({ to })}
      />
      <TagFilter tags={state.tags} values={tagValues} onChange={(tags) => onChange({ tags })} />
      <label>
        Sort by{' '}
        <select value={state.sort} onChange={(e) => onChange({ sort: e.currentTarget.value as BrowseState['sort'] })}>
          <option value="date">Date added</option>
          <option value="taken">Date taken</option>
          <option value="name">Name</option>
          <option value="type">Type</option>
        </select>
      </label>
      <button
        type="button"
        class="sort-direction"
        aria-label={
          state.dir === 'asc' ? 'Ascending order; switch to descending' : 'Descending order; switch to ascending'
        }
        onClick={() => onChange({ dir: state.dir === 'asc' ? 'desc' : 'asc' })}
      >
        <span aria-hidden="true">{state.dir === 'asc' ? '↑ ' : '↓ '}</span>
        {state.dir === 'asc' ? 'Ascending' : 'Descending'}
      </button>
      <label class="checkbox">
        <input
          type="checkbox"
          checked={state.recursive}
          onChange={(e) => onChange({ recursive: e.currentTarget.checked })}
        />{' '}
        Include subfolders
      </label>
      <FlagFilters state={state} onChange={onChange} />
      <PlaceFilters datasetId={datasetId} state={state} onChange={onChange} />
      {hasFilters(state) ? (
        <button type="button" onClick={() => onChange(CLEARED)}>
          Clear filters
        </button>
      ) : null}
    </form>
  );
}

/** Tag chips (each removable) and an input that adds a tag, suggesting the collection's values. */
function TagFilter({
  tags,
  values,
  onChange,
}: {
  tags: string[];
  values: string[];
  onChange: (tags: string[]) => void;
}) {
  const [draft, setDraft] = useState('');
  const add = (raw: string) => {
    const value = raw.trim();
    if (value && !tags.includes(value)) onChange([...tags, value]);
    setDraft('');
  };
  return (
    <div class="tag-filter" role="group" aria-label="Tags">
      {tags.map((tag) => (
        <span class="chip" key={tag}>
          {tag}
          <button
            type="button"
            class="chip-remove"
            aria-label={`Remove tag ${tag}`}
            onClick={() => onChange(tags.filter((t) => t !== tag))}
          >
            ×
          </button>
        </span>
      ))}
      <input
        type="text"
        list="browse-tag-values"
        aria-label="Add a tag filter"
        placeholder="Tag…"
        value={draft}
        onInput={(e) => setDraft(e.currentTarget.value)}
        onChange={(e) => {
          // Picking a suggestion fires change with an exact value: add it at once.
          if (values.includes(e.currentTarget.value)) add(e.currentTarget.value);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            add(draft);
          }
        }}
      />
      <datalist id="browse-tag-values">
        {values
          .filter((v) => !tags.includes(v))
          .map((v) => (
            <option key={v} value={v} />
          ))}
      </datalist>
    </div>
  );
}
