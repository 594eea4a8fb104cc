/**
 * Regions like the chosen one across the collection (scored browse with similarToObjectId): each item with
 * its score and the frame that matched; each opens its item. Faces compare with the face model, everything
 * else with the object model.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, describeError } from '../../lib/api';
import { apiUrl } from '../../lib/api';
import { followLink } from '../../lib/router';
import { regionName } from '../../components/RegionOverlay';
import { thumbOf, type Region, type ScoredItem } from './types';

type State = { items: ScoredItem[] } | { error: string } | null;

export function SimilarPanel(props: { region: Region; datasetId: string; backTo: string; onClose: () => void }) {
  const { region, datasetId } = props;
  const [state, setState] = useState<State>(null);
  useEffect(() => {
    setState(null);
    const abort = new AbortController();
    api<{ media: ScoredItem[] }>('GET', `/api/dataset/${encodeURIComponent(datasetId)}/media`, {
      query: {
        similarToObjectId: region.id,
        similarToObjectModel: region.type === 'face' ? 'faces' : 'objects',
        minScore: 0.05,
        limit: 24,
      },
      signal: abort.signal,
    }).then(
      (r) => setState({ items: r.media }),
      (err) => !abort.signal.aborted && setState({ error: describeError(err) }),
    );
    return () => abort.abort();
  }, [region.id, datasetId]);
  return (
    <section class="similar-panel" aria-labelledby="similar-title">
      <header class="panel-head">
        <h2 id="similar-title">Similar to {regionName(region)}</h2>
        <button type="button" onClick={props.onClose} aria-label="Close similar regions">
          ×
        </button>
      </header>
      {state === null && (
        <p class="muted" role="status">
          Finding similar regions…
        </p>
      )}
      {state && 'error' in state && (
        <p class="error" role="alert">
          {state.error}
        </p>
      )}
      {state && 'items' in state && state.items.length === 0 && (
        <p class="muted">Nothing similar in this collection.</p>
      )}
      {state && 'items' in state && state.items.length > 0 && (
        <ol class="similar-list">
          {state.items.map((m) => {
            const frameId = m._matchingFrames[0]?.id;
            const frame = m.frames.find((f) => f.id === frameId) ?? m.frames[0];
            const href = apiUrl(`/m/${encodeURIComponent(m.id)}`, { from: props.backTo, frame: frame?.id });
            return (
              <li key={m.id}>
                <a href={href} onClick={followLink} class="similar-item">
                  {frame && <img src={thumbOf(frame)} alt={frame.captions[0]?.text || m.name} loading="lazy" />}
                  <span class="similar-name">{m.name}</span>
                  <span class="similar-score" title="Similarity">
                    {m._score.toFixed(2)}
                  </span>
                </a>
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
