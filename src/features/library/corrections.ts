import { invalid, notFound } from '../../platform/errors.js';
import { newMediaId } from '../../platform/ids.js';
import { loadMedia } from '../kernel/access.js';
import { presentFrame } from '../kernel/present.js';
import type { Principal, Services } from '../kernel/services.js';

/**
 * A user's corrections to what the models found. They become the user's
 * rows: reprocessing replaces only the model's own output, never these, and
 * does not detect again an object the user edited or deleted.
 */
async function loadObject(deps: Pick<Services, 'storage'>, principal: Principal, id: string) {
  const object = /^[0-9a-f]{32}$/.test(id) ? await deps.storage.analysis.getObject(id) : null;
  if (!object || object.status !== 'active') throw notFound('object not found');
  await loadMedia(deps, principal, object.mediaId, 'member');
  return object;
}

export async function relabelObject(
  deps: Pick<Services, 'storage' | 'urls'>,
  principal: Principal,
  id: string,
  label: string,
) {
  const object = await loadObject(deps, principal, id);
  if (!label.trim()) throw invalid('label must not be empty');
  const o = await deps.storage.analysis.correctObject(object.id, { label: label.trim() });
  return {
    id: o.id,
    type: o.type,
    label: o.label,
    polygon: o.polygon,
    blob: o.blobKey ? deps.urls.urlFor(o.blobKey) : '',
    model: o.model,
    source: 'user',
  };
}

export async function deleteObject(deps: Pick<Services, 'storage'>, principal: Principal, id: string) {
  const object = await loadObject(deps, principal, id);
  await deps.storage.analysis.correctObject(object.id, { deleted: true });
  return { id: object.id, deleted: true };
}

export async function addCaption(
  deps: Pick<Services, 'storage' | 'urls'>,
  principal: Principal,
  frameId: string,
  text: string,
) {
  const frame = /^[0-9a-f]{32}$/.test(frameId) ? await deps.storage.analysis.getFrame(frameId) : null;
  if (!frame || frame.status !== 'active') throw notFound('frame not found');
  await loadMedia(deps, principal, frame.mediaId, 'member');
  if (!text.trim()) throw invalid('text must not be empty');
  await deps.storage.analysis.addUserCaption(
    frame.id,
    { id: newMediaId(), text: text.trim(), model: 'user' },
    principal.userId,
  );
  const [detail] = await deps.storage.media.pickFrames([{ mediaId: frame.mediaId, frameId: frame.id }]);
  return presentFrame(deps.urls, detail!);
}
