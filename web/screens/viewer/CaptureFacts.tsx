/**
 * Where and with what an item was taken (issue #26): the place (nearest town, region, country), the position
 * and the camera, each linking to the collection's items filtered by it (place, country, camera) or to the map.
 */
import { followLink } from '../../lib/router';
import type { MediaItem } from './types';

const browse = (datasetId: string, filters: Record<string, string>) =>
  `/c/${encodeURIComponent(datasetId)}?${new URLSearchParams({ recursive: 'true', ...filters })}`;

export function CaptureFacts({ media }: { media: MediaItem }) {
  const place = media.location?.place ?? null;
  const camera = media.camera?.model ? media.camera : null;
  if (!media.location && !camera) return null;
  const ds = media.datasetId;
  const cameraName = camera ? [camera.make, camera.model].filter(Boolean).join(' ') : '';
  return (
    <section class="viewer-section" aria-labelledby="capture-title">
      <h2 id="capture-title">Where and how</h2>
      <dl class="facts">
        {place ? (
          <div>
            <dt>Place</dt>
            <dd>
              <a href={browse(ds, { place: place.city, country: place.countryCode })} onClick={followLink}>
                {place.city}
              </a>
              {place.region ? `, ${place.region}` : ''},{' '}
              <a href={browse(ds, { country: place.countryCode })} onClick={followLink}>
                {place.country}
              </a>
            </dd>
          </div>
        ) : null}
        {media.location ? (
          <div>
            <dt>Position</dt>
            <dd>
              <a
                href={`/c/${encodeURIComponent(ds)}/map?at=${media.location.latitude},${media.location.longitude}`}
                onClick={followLink}
              >
                {media.location.latitude.toFixed(5)}, {media.location.longitude.toFixed(5)}
              </a>
            </dd>
          </div>
        ) : null}
        {camera ? (
          <div>
            <dt>Camera</dt>
            <dd>
              <a href={browse(ds, { camera: camera.model! })} onClick={followLink}>
                {cameraName}
              </a>
              {camera.lens ? ` · ${camera.lens}` : ''}
            </dd>
          </div>
        ) : null}
      </dl>
    </section>
  );
}
