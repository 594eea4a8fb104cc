/** "More like this": the collection's search screen ranking items by their likeness to this whole frame. */
import { apiUrl } from '../../lib/api';
import { followLink } from '../../lib/router';
import type { Frame } from './types';

export function MoreLikeThis(props: { datasetId: string; frame: Frame | undefined }) {
  // The whole-frame object carries the frame's embedding (ingest's phase 2); none yet while it is processed.
  const whole = props.frame?.objects.find((o) => o.type === 'frame');
  if (!whole) return null;
  const href = apiUrl(`/c/${encodeURIComponent(props.datasetId)}/search`, { like: whole.id });
  return (
    <a href={href} onClick={followLink} class="more-like-this">
      More like this
    </a>
  );
}
