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
  // A Map, not a plain object: a group may be named anything, `__proto__` and `constructor` included (issue #29).
  const out = new Map<string, string[]>();
  for (const [group, values] of Object.entries(tags as Record<string, unknown>)) {
    if (!Array.isArray(values) || values.some((v) => typeof v !== 'string')) {
      throw invalid(`metadata.tags.${group} must be an array of strings`);
    }
    const clean = sortedUnique((values as string[]).map((v) => v.trim()).filter(Boolean));
    const key = group.trim();
    if (key && clean.length) out.set(key, sortedUnique([...(out.get(key) ?? []), ...clean]));
  }
  return { ...metadata, tags: Object.fromEntries(out) };
}

/** An item's tag groups as a Map (group names are user strings: never keys of a plain object while edited). */
const tagsOf = (m: Metadata): Map<string, string[]> => {
  const tags = m.tags;
  return new Map(tags && typeof tags === 'object' && !Array.isArray(tags) ? Object.entries(tags) : []);
};

/**
 * Stores one item's tag groups as `edit` leaves them (it edits a copy in place; the rest of the metadata is
 * kept); an edit that answers 'unchanged' leaves the metadata as it was.
 */
function mutateTags(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  mediaId: string,
  edit: (tags: Map<string, string[]>) => 'unchanged' | void,
) {
  return deps.storage.media.mutateMetadata(mediaId, principal.userId, (metadata) => {
    const tags = tagsOf(metadata);
    // Object.fromEntries defines own properties: a group named `__proto__` stays a group.
    return edit(tags) === 'unchanged' ? metadata : { ...metadata, tags: Object.fromEntries(tags) };
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
    const values = tags.get(group) ?? [];
    if (values.includes(v)) throw conflict(`"${v}" is already in tag group "${group}"`);
    tags.set(group, sortedUnique([...values, v]));
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
    const values = tags.get(group);
    if (!values) throw notFound(`tag group "${group}" is not on this item`);
    if (value === undefined) {
      tags.delete(group);
    } else {
      if (!values.includes(value.trim())) throw notFound(`"${value}" is not in tag group "${group}"`);
      const left = values.filter((x) => x !== value.trim());
      if (left.length === 0) tags.delete(group);
      else tags.set(group, left);
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
    const values = tags.get(from);
    if (!values) throw notFound(`tag group "${from}" is not on this item`);
    if (from === to) return 'unchanged';
    tags.set(to, sortedUnique([...(tags.get(to) ?? []), ...values]));
    tags.delete(from);
  });
}

export async function tagGroups(deps: Pick<Services, 'storage'>, principal: Principal, collectionId: string) {
  const c = await loadCollection(deps, principal, collectionId, 'viewer');
  return deps.storage.media.tagGroups(c.id);
}
