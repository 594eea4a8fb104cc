/**
 * One search result: the matched frame with the matched region outlined, the caption and OCR words with the
 * query's words marked, the score split into its text and visual parts, and the date. The whole tile is
 * one link to the viewer at that frame (and, for a video, at its second).
 */
import { apiUrl } from '../../lib/api';
import { followLink } from '../../lib/router';
import { RegionOverlay } from '../../components/RegionOverlay';
import { seconds, thumbOf } from '../viewer/types';
import { prefetchMedia } from '../viewer/mediaCache';
import { mentions } from './highlight';
import { Highlighted } from './Highlighted';
import { outlinedRegions, type SearchHit } from './hits';

/** The viewer URL of a hit: back to `from` on Esc, at the matched frame and second. */
export function viewerHref(hit: SearchHit, from: string): string {
  return apiUrl(`/m/${encodeURIComponent(hit.mediaId)}`, {
    from,
    frame: hit.frame.id,
    t: hit.mediaType === 'video' ? seconds(hit.frame) : undefined,
  });
}

const fmt = (x: number) => x.toFixed(2);

/** "1:05" for 65 seconds. */
export const clock = (s: number): string => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, '0')}`;

export function ResultTile(props: { hit: SearchHit; terms: string[]; from: string }) {
  const { hit, terms } = props;
  const caption = hit.frame.captions[0]?.text ?? '';
  const ocr = hit.frame.objects.filter((o) => o.type === 'text' && mentions(o.label, terms)).slice(0, 3);
  const regions = outlinedRegions(hit, (text) => mentions(text, terms));
  const { width, height } = hit.frame;
  const date = new Date(hit.createdAt);
  return (
    <li class="result-tile">
      <a
        href={viewerHref(hit, props.from)}
        onClick={followLink}
        onPointerEnter={() => prefetchMedia(hit.mediaId)}
        onFocus={() => prefetchMedia(hit.mediaId)}
        data-media-id={hit.mediaId}
      >
        <div class="region-stage tile-stage" style={{ aspectRatio: `${width || 4} / ${height || 3}` }}>
          <img src={thumbOf(hit.frame)} alt={caption || hit.mediaName} loading="lazy" decoding="async" />
          <RegionOverlay width={width} height={height} regions={regions} />
          {hit.mediaType === 'video' && <span class="tile-badge">▶ {clock(seconds(hit.frame))}</span>}
        </div>
        <div class="tile-body">
          <p class="tile-name">{hit.mediaName}</p>
          {caption && (
            <p class="tile-caption">
              <Highlighted text={caption} terms={terms} />
            </p>
          )}
          {ocr.length > 0 && (
            <p class="tile-ocr">
              <span class="muted">Text: </span>
              {ocr.map((o, i) => (
                <span key={o.id}>
                  {i > 0 && ' · '}
                  <Highlighted text={o.label} terms={terms} />
                </span>
              ))}
            </p>
          )}
          <p class="tile-score">
            <span class="score-total" title="Combined relevance">
              {fmt(hit.score)}
            </span>
            {hit.textRank !== null && <span> text {fmt(hit.textRank)}</span>}
            {hit.visualRank !== null && <span> · visual {fmt(hit.visualRank)}</span>}
          </p>
          <time class="tile-date muted" dateTime={hit.createdAt}>
            {Number.isNaN(date.getTime()) ? hit.createdAt : date.toLocaleDateString()}
          </time>
        </div>
      </a>
    </li>
  );
}
