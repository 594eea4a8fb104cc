/**
 * The places page (/c/:datasetId/places): the countries and places (nearest town, found offline from each
 * item's GPS position) the collection's items were taken in, with counts; each opens browse filtered by
 * `country` or `place` across all folders. The first countries show a photo taken there (one browse request
 * each, for at most THUMBED countries).
 */
import { followLink } from '../../lib/router';
import { api } from '../../lib/api';
import { useLoad } from '../../components/useLoad';
import { thumbSource, type ThumbFields } from '../../components/MediaThumb';
import { browseHref, fetchPlaces, type PlaceCount, type Places as PlacesData } from '../map/mapApi';
import './places.css';

/** Countries that get a photo. */
const THUMBED = 24;

const items = (n: number) => `${n.toLocaleString()} ${n === 1 ? 'item' : 'items'}`;

export function Places({ params }: { params: Record<string, string> }) {
  const datasetId = params.datasetId;
  const loaded = useLoad((signal) => fetchPlaces(datasetId, signal), [datasetId]);
  const collection = `/c/${encodeURIComponent(datasetId)}`;
  return (
    <section class="places" aria-labelledby="places-title">
      <div class="places-head">
        <h1 id="places-title">Places</h1>
        <a href={`${collection}/map`} onClick={followLink}>
          Map
        </a>
        <a href={collection} onClick={followLink}>
          Back to the collection
        </a>
      </div>
      <PlacesBody datasetId={datasetId} data={loaded.data} error={loaded.error} reload={loaded.reload} />
    </section>
  );
}

function PlacesBody(props: { datasetId: string; data?: PlacesData; error: string | null; reload: () => void }) {
  const { data, error, datasetId } = props;
  if (error)
    return (
      <div class="empty-state" role="alert">
        <p>The places could not be loaded: {error}</p>
        <button type="button" onClick={props.reload}>
          Try again
        </button>
      </div>
    );
  if (!data)
    return (
      <p class="loading" role="status">
        Loading places…
      </p>
    );
  if (data.countries.length === 0 && data.places.length === 0)
    return (
      <div class="empty-state" role="status">
        <p>No item in this collection has a place yet. Photos with GPS positions are placed when they are added.</p>
      </div>
    );
  const byCountry = new Map<string, PlaceCount[]>();
  for (const p of data.places) byCountry.set(p.countryCode, [...(byCountry.get(p.countryCode) ?? []), p]);
  return (
    <ul class="places-countries" aria-label="Countries">
      {data.countries.map((c, i) => (
        <li key={c.countryCode} class="places-country">
          {i < THUMBED ? <CountryPhoto datasetId={datasetId} countryCode={c.countryCode} /> : null}
          <h2>
            <a href={browseHref(datasetId, { country: c.countryCode })} onClick={followLink}>
              {c.country}
            </a>{' '}
            <span class="muted">{items(c.count)}</span>
          </h2>
          <ul class="places-list" aria-label={`Places in ${c.country}`}>
            {(byCountry.get(c.countryCode) ?? []).map((p) => (
              <li key={`${p.city}|${p.region ?? ''}`}>
                <a href={browseHref(datasetId, { place: p.city, country: p.countryCode })} onClick={followLink}>
                  {p.city}
                </a>
                {p.region ? <span class="muted">, {p.region}</span> : null}{' '}
                <span class="places-count">{items(p.count)}</span>
              </li>
            ))}
          </ul>
        </li>
      ))}
    </ul>
  );
}

/** A photo taken in the country (the newest), decorative: the country's link beside it names it. */
function CountryPhoto({ datasetId, countryCode }: { datasetId: string; countryCode: string }) {
  const loaded = useLoad(
    (signal) =>
      api<{ media: ThumbFields[] }>('GET', `/api/dataset/${encodeURIComponent(datasetId)}/media`, {
        query: { country: countryCode, recursive: 'true', type: 'image', limit: 1 },
        signal,
      }),
    [datasetId, countryCode],
  );
  const first = loaded.data?.media[0];
  const src = first ? thumbSource(first) : null;
  if (!src) return <span class="places-photo" aria-hidden="true" />;
  return <img class="places-photo" src={src} alt="" loading="lazy" decoding="async" />;
}
