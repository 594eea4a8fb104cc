/**
 * The map screen (/c/:datasetId/map): every geotagged item of the collection as clustered markers on a world
 * drawn from Natural Earth data we serve ourselves (no tile server, nothing from outside). The map code and
 * its atlas load as a chunk of our own build when this screen opens, keeping the first page light. Browse
 * filters in the URL (type, dates, tags, country, place, camera…) narrow the points and carry over to the
 * items a cluster opens. `at=latitude,longitude` opens the map close up there (the viewer links to it).
 */
import { useEffect, useState } from 'preact/hooks';
import type { ComponentType } from 'preact';
import { followLink, location } from '../../lib/router';
import { useLoad } from '../../components/useLoad';
import { fetchMapPoints, MAP_FILTERS } from './mapApi';
import type { MapCanvasProps } from './MapCanvas';
import './map.css';

let canvasModule: Promise<ComponentType<MapCanvasProps>> | null = null;
const loadCanvas = () => (canvasModule ??= import('./MapCanvas').then((m) => m.MapCanvas));

export function MapScreen({ params }: { params: Record<string, string> }) {
  const datasetId = params.datasetId;
  const query = location.value.query;
  const filters: Record<string, string> = {};
  for (const name of MAP_FILTERS) {
    const value = query.get(name);
    if (value) filters[name] = value;
  }
  const key = JSON.stringify(filters);
  const at = (query.get('at') ?? '').split(',').map(Number);
  const focus: [number, number] | null =
    at.length === 2 && Math.abs(at[0]) <= 90 && Math.abs(at[1]) <= 180 && at.every(Number.isFinite)
      ? [at[0], at[1]]
      : null;
  const loaded = useLoad((signal) => fetchMapPoints(datasetId, filters, signal), [datasetId, key]);
  const [Canvas, setCanvas] = useState<ComponentType<MapCanvasProps> | null>(null);
  const [chunkError, setChunkError] = useState<string | null>(null);
  useEffect(() => {
    loadCanvas().then(
      (c) => setCanvas(() => c),
      () => setChunkError('The map could not be loaded; reload the page to try again.'),
    );
  }, []);
  const collection = `/c/${encodeURIComponent(datasetId)}`;
  const total = loaded.data?.total;

  return (
    <section class="map-screen" aria-labelledby="map-title">
      <div class="map-head">
        <h1 id="map-title">Map</h1>
        {total !== undefined ? (
          <p class="muted" role="status">
            {total.toLocaleString()} {total === 1 ? 'item has' : 'items have'} a location
            {loaded.data && loaded.data.ids.length < total
              ? ` (the map shows ${loaded.data.ids.length.toLocaleString()} of them)`
              : ''}
          </p>
        ) : null}
        <a href={`${collection}/places`} onClick={followLink}>
          Places
        </a>
        <a href={collection} onClick={followLink}>
          Back to the collection
        </a>
      </div>
      <MapBody
        loaded={loaded}
        Canvas={Canvas}
        chunkError={chunkError}
        datasetId={datasetId}
        filters={filters}
        focus={focus}
      />
    </section>
  );
}

function MapBody(props: {
  loaded: ReturnType<typeof useLoad<Awaited<ReturnType<typeof fetchMapPoints>>>>;
  Canvas: ComponentType<MapCanvasProps> | null;
  chunkError: string | null;
  datasetId: string;
  filters: Record<string, string>;
  focus: [number, number] | null;
}) {
  const { data, error } = props.loaded;
  const { Canvas } = props;
  if (error || props.chunkError)
    return (
      <div class="empty-state" role="alert">
        <p>The map could not be shown: {error ?? props.chunkError}</p>
        {error ? (
          <button type="button" onClick={() => props.loaded.reload()}>
            Try again
          </button>
        ) : null}
      </div>
    );
  if (!data || !Canvas)
    return (
      <p class="loading" role="status">
        Loading the map…
      </p>
    );
  if (data.ids.length === 0)
    return (
      <div class="empty-state map-empty" role="status">
        <p>
          {Object.keys(props.filters).length > 0
            ? 'No item matching these filters has a location.'
            : 'No item in this collection has a location yet. Photos with GPS positions (most phones add them) appear here.'}
        </p>
      </div>
    );
  return <Canvas datasetId={props.datasetId} points={data} filters={props.filters} focus={props.focus} />;
}
