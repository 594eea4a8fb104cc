import { conflict, invalid, notFound } from '../../platform/errors.js';
import type { Metadata } from '../../storage/types.js';
import { loadCollection, loadMedia } from '../kernel/access.js';
import type { Principal, Services } from '../kernel/services.js';

const sortedUnique = (values: string[]) => [...new Set(values)].sort();

/**
 * Makes metadata.tags well-formed: an object of group → sorted distinct
 * non-empty strings, groups without values dropped. Anything else in the
 * document is kept exactly as the client sent it.
 */
export function normalizeMetadata(metadata: Metadata): Metadata {
  if (metadata.tags === undefined) return metadata;
  const tags = metadata.tags as unknown;
  if (tags === null || typeof tags !== 'object' || Array.isArray(tags)) {
    throw invalid('metadata.tags must be an object mapping a group label to an array of strings');
  }
  const out: Record<string, string[]> = {};
  for (const [group, values] of Object.entries(tags as Record<string, unknown>)) {
    if (!Array.isArray(values) || values.some((v) => typeof v !== 'string')) {
      throw invalid(`metadata.tags.${group} must be an array of strings`);
    }
    const clean = sortedUnique((values as string[]).map((v) => v.trim()).filter(Boolean));
    if (group.trim() && clean.length) out[group.trim()] = clean;
  }
  return { ...metadata, tags: out };
}

const tagsOf = (m: Metadata): Record<string, string[]> => ({ ...((m.tags as Record<string, string[]>) ?? {}) });

/**
 * Stores one item's tag groups as `edit` leaves them (it edits a copy in place; the rest of the metadata is
 * kept); an edit that answers 'unchanged' leaves the metadata as it was.
 */
function mutateTags(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  mediaId: string,
  edit: (tags: Record<string, string[]>) => 'unchanged' | void,
) {
  return deps.storage.media.mutateMetadata(mediaId, principal.userId, (metadata) => {
    const tags = tagsOf(metadata);
    return edit(tags) === 'unchanged' ? metadata : { ...metadata, tags };
  });
}

function clean(label: string, field: string) {
  const v = label.trim();
  if (!v) throw invalid(`${field} must not be empty`);
  return v;
}

export async function addTag(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  id: string,
  label: string,
  value: string,
) {
  const media = await loadMedia(deps, principal, id, 'member');
  const group = clean(label, 'label');
  const v = clean(value, 'value');
  return mutateTags(deps, principal, media.id, (tags) => {
    if ((tags[group] ?? []).includes(v)) throw conflict(`"${v}" is already in tag group "${group}"`);
    tags[group] = sortedUnique([...(tags[group] ?? []), v]);
  });
}

/** Removes one value (the group goes with its last value), or the whole group when `value` is absent (compat). */
export async function removeTag(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  id: string,
  label: string,
  value: string | undefined,
) {
  const media = await loadMedia(deps, principal, id, 'member');
  const group = clean(label, 'label');
  return mutateTags(deps, principal, media.id, (tags) => {
    if (!tags[group]) throw notFound(`tag group "${group}" is not on this item`);
    if (value === undefined) {
      delete tags[group];
    } else {
      if (!tags[group].includes(value.trim())) throw notFound(`"${value}" is not in tag group "${group}"`);
      tags[group] = tags[group].filter((x) => x !== value.trim());
      if (tags[group].length === 0) delete tags[group];
    }
  });
}

/** Renames a tag group on one item; values merge when the new group exists already. */
export async function renameTagGroup(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  id: string,
  oldLabel: string,
  newLabel: string,
) {
  const media = await loadMedia(deps, principal, id, 'member');
  const from = clean(oldLabel, 'oldLabel');
  const to = clean(newLabel, 'newLabel');
  return mutateTags(deps, principal, media.id, (tags) => {
    if (!tags[from]) throw notFound(`tag group "${from}" is not on this item`);
    if (from === to) return 'unchanged';
    tags[to] = sortedUnique([...(tags[to] ?? []), ...tags[from]]);
    delete tags[from];
  });
}

export async function tagGroups(deps: Pick<Services, 'storage'>, principal: Principal, collectionId: string) {
  const c = await loadCollection(deps, principal, collectionId, 'viewer');
  return deps.storage.media.tagGroups(c.id);
}
