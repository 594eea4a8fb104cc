/**
 * Which catalog models a command acts on: a profile's (every model its roles
 * name) or every model `fetch` can download.
 */
import type { Catalog, ModelEntry, Profile, Roles } from './catalog.js';

/** The models a profile's roles name, once each, in role order. */
export function profileEntries(catalog: Catalog, profile: Profile): ModelEntry[] {
  const names = new Set(Object.values(catalog.roles[profile]).filter((n): n is string => !!n));
  return [...names].map((n) => catalog.models.get(n)!);
}

/** The roles of a profile that a model serves, in role order. */
export function rolesOf(catalog: Catalog, profile: Profile, name: string): (keyof Roles)[] {
  return (Object.entries(catalog.roles[profile]) as [keyof Roles, string | null][])
    .filter(([, served]) => served === name)
    .map(([role]) => role);
}

/**
 * Whether `fetch` can download a model: from a hub repository, or from the
 * download address every one of its files names (GitHub releases and the like).
 * Models shipped inside an npm package and local folders are not fetched.
 */
export function isFetchable(entry: ModelEntry): boolean {
  if (entry.package) return false;
  return entry.repo !== null || (entry.files.length > 0 && entry.files.every((f) => f.url));
}

/** `fetch all`: every model that can be downloaded. */
export function fetchableEntries(catalog: Catalog): ModelEntry[] {
  return [...catalog.models.values()].filter(isFetchable);
}
