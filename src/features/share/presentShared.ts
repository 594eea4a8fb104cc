import { needsWebVideo, webVideoOf } from '../../files/webPlayable.js';
import type { ShareLink } from '../../storage/shareStore.js';
import type { MediaRecord } from '../../storage/types.js';
import type { Services } from '../kernel/services.js';

/**
 * An item as a visitor sees it: its name, size, capture time and the layers the link permits — the
 * renditions and a video's playable copy always, the original (`downloadUrl`) only when downloads are
 * allowed. No metadata, EXIF, places, people, captions or ids of anything else. Every file URL is the link's
 * own (`urlForShare`): it stops at once when the link is revoked or expires, unlike the owners' URLs.
 */
export async function presentShared(
  deps: Pick<Services, 'storage' | 'urls'>,
  link: Pick<ShareLink, 'id' | 'canDownload'>,
  items: MediaRecord[],
) {
  const frames = await deps.storage.media.frames(items.map((m) => m.id));
  const url = (key: string, name?: string) => deps.urls.urlForShare(link.id, key, name);
  return items.map((m) => {
    const frame = frames.get(m.id)?.[0];
    const copy = m.type === 'video' && needsWebVideo(m) ? webVideoOf(m) : null;
    const playable = m.type === 'video' && m.blobKey ? (needsWebVideo(m) ? copy?.key : m.blobKey) : null;
    return {
      id: m.id,
      name: m.name,
      type: m.type,
      mimeType: m.mimeType,
      width: m.width,
      height: m.height,
      duration: m.duration,
      takenAt: m.takenAt,
      thumbnailUrl: frame?.thumbnailKey ? url(frame.thumbnailKey) : null,
      previewUrl: frame?.previewKey ? url(frame.previewKey) : null,
      playbackUrl: playable ? url(playable) : null,
      downloadUrl: link.canDownload && m.blobKey ? url(m.blobKey, m.name) : null,
    };
  });
}
