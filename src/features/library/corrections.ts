import { invalid, notFound } from '../../errors.js';
import { newMediaId } from '../../ids.js';
import { loadMedia } from '../kernel/access.js';
import { presentFrame } from '../kernel/present.js';
import type { Principal, Services } from '../kernel/services.js';

/**
 * A user's corrections to what the models found. They become the user's
 * rows: reprocessing replaces only the model's own output, never these, and
 * does not detect again an object the user edited or deleted.
 */
async function loadObject(s: Services, p: Principal, id: string) {
  const object = /^[0-9a-f]{32}$/.test(id) ? await s.storage.analysis.getObject(id) : null;
  if (!object || object.status !== 'active') throw notFound('object not found');
  await loadMedia(s, p, object.mediaId, 'member');
  return object;
}

export async function relabelObject(s: Services, p: Principal, id: string, label: string) {
  const object = await loadObject(s, p, id);
  if (!label.trim()) throw invalid('label must not be empty');
  const o = await s.storage.analysis.correctObject(object.id, { label: label.trim() });
  return {
    id: o.id,
    type: o.type,
    label: o.label,
    polygon: o.polygon,
    blob: o.blobKey ? s.urls.urlFor(o.blobKey) : '',
    model: o.model,
    source: 'user',
  };
}

export async function deleteObject(s: Services, p: Principal, id: string) {
  const object = await loadObject(s, p, id);
  await s.storage.analysis.correctObject(object.id, { deleted: true });
  return { id: object.id, deleted: true };
}

export async function addCaption(s: Services, p: Principal, frameId: string, text: string) {
  const frame = /^[0-9a-f]{32}$/.test(frameId) ? await s.storage.analysis.getFrame(frameId) : null;
  if (!frame || frame.status !== 'active') throw notFound('frame not found');
  await loadMedia(s, p, frame.mediaId, 'member');
  if (!text.trim()) throw invalid('text must not be empty');
  await s.storage.analysis.addUserCaption(frame.id, { id: newMediaId(), text: text.trim(), model: 'user' }, p.userId);
  const [detail] = await s.storage.media.pickFrames([{ mediaId: frame.mediaId, frameId: frame.id }]);
  return presentFrame(s.urls, detail!);
}
