/** The media type select and the From/To date range, shared by the browse filters and the search controls. */

export type MediaTypeFilter = 'all' | 'image' | 'video';

export interface TypeDateFiltersProps {
  type: MediaTypeFilter;
  /** Dates as yyyy-mm-dd, '' for open. */
  from: string;
  to: string;
  onType(type: MediaTypeFilter): void;
  onFrom(from: string): void;
  onTo(to: string): void;
}

export function TypeDateFilters(props: TypeDateFiltersProps) {
  return (
    <>
      <label>
        Type{' '}
        <select value={props.type} onChange={(e) => props.onType(e.currentTarget.value as MediaTypeFilter)}>
          <option value="all">All</option>
          <option value="image">Images</option>
          <option value="video">Videos</option>
        </select>
      </label>
      <DateField label="From" value={props.from} max={props.to} onChange={props.onFrom} />
      <DateField label="To" value={props.to} min={props.from} onChange={props.onTo} />
    </>
  );
}

function DateField(props: { label: string; value: string; min?: string; max?: string; onChange(v: string): void }) {
  return (
    <label>
      {props.label}{' '}
      <input
        type="date"
        value={props.value}
        min={props.min || undefined}
        max={props.max || undefined}
        onChange={(e) => props.onChange(e.currentTarget.value)}
      />
    </label>
  );
}
