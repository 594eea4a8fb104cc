/**
 * Issue #26's filters of the browse bar: country, place and camera (each a select over what the collection
 * holds, from GET /api/dataset/:id/places and /cameras) and the map's area (bbox, set by a map cluster). A set
 * filter shows as a chip with a button that removes it; the values live in the URL (browseState.ts).
 */
import { useEffect, useState } from 'preact/hooks';
import { fetchCameras, fetchPlaces, type Places } from '../map/mapApi';
import type { BrowseState } from './browseState';

/** The four filters (browse's and search's states both hold them). */
type Where = Pick<BrowseState, 'country' | 'place' | 'camera' | 'bbox'>;

interface Choices {
  places: Places;
  cameras: Array<{ make: string | null; model: string | null; count: number }>;
}
const NONE: Choices = { places: { countries: [], places: [] }, cameras: [] };

/** What the collection's items were taken where and with: loaded once per collection; nothing when it fails. */
function useChoices(datasetId: string): Choices {
  const [choices, setChoices] = useState<Choices>(NONE);
  useEffect(() => {
    const abort = new AbortController();
    setChoices(NONE);
    void Promise.all([
      fetchPlaces(datasetId, abort.signal).catch(() => NONE.places),
      fetchCameras(datasetId, abort.signal)
        .then((r) => r.cameras)
        .catch(() => []),
    ]).then(([places, cameras]) => {
      if (!abort.signal.aborted) setChoices({ places, cameras });
    });
    return () => abort.abort();
  }, [datasetId]);
  return choices;
}

export function PlaceFilters(props: { datasetId: string; state: Where; onChange: (patch: Partial<Where>) => void }) {
  const { state, onChange } = props;
  const { places, cameras } = useChoices(props.datasetId);
  const countryName = places.countries.find((c) => c.countryCode === state.country)?.country ?? state.country;
  const cities = [
    ...new Set(places.places.filter((p) => !state.country || p.countryCode === state.country).map((p) => p.city)),
  ];
  return (
    <>
      {state.country ? (
        <Chip
          label={`Country: ${countryName}`}
          name={`country filter ${countryName}`}
          onRemove={() => onChange({ country: '' })}
        />
      ) : (
        <Choice
          label="Country"
          options={places.countries.map((c) => [c.countryCode, `${c.country} (${c.count})`])}
          onPick={(country) => onChange({ country, place: '' })}
        />
      )}
      {state.place ? (
        <Chip
          label={`Place: ${state.place}`}
          name={`place filter ${state.place}`}
          onRemove={() => onChange({ place: '' })}
        />
      ) : (
        <Choice label="Place" options={cities.map((c) => [c, c])} onPick={(place) => onChange({ place })} />
      )}
      {state.camera ? (
        <Chip
          label={`Camera: ${state.camera}`}
          name={`camera filter ${state.camera}`}
          onRemove={() => onChange({ camera: '' })}
        />
      ) : (
        <Choice
          label="Camera"
          options={cameras.flatMap((c) => (c.model ? [[c.model, `${c.model} (${c.count})`] as [string, string]] : []))}
          onPick={(camera) => onChange({ camera })}
        />
      )}
      {state.bbox ? (
        <Chip label="Area on the map" name="map area filter" onRemove={() => onChange({ bbox: '' })} />
      ) : null}
    </>
  );
}

function Chip({ label, name, onRemove }: { label: string; name: string; onRemove: () => void }) {
  return (
    <span class="chip">
      {label}
      <button type="button" class="chip-remove" aria-label={`Remove ${name}`} onClick={onRemove}>
        ×
      </button>
    </span>
  );
}

/** A select of the values there are (hidden when there are none); picking one sets the filter. */
function Choice(props: { label: string; options: Array<[string, string]>; onPick: (value: string) => void }) {
  if (props.options.length === 0) return null;
  return (
    <label>
      {props.label}{' '}
      <select value="" onChange={(e) => e.currentTarget.value && props.onPick(e.currentTarget.value)}>
        <option value="">Any</option>
        {props.options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}
