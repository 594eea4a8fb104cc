/**
 * Folder names → the collection's folder paths (ltree), through the public folder routes: one level is
 * listed (GET /api/dataset/{id}/folders) to find a child by name, and a missing one is created
 * (POST /api/folder with reuse, so two importers at once still make one folder). In a dry run nothing is
 * created: a missing folder is reported, and everything beneath it is missing too.
 */
import type { ApiClient } from './client.js';

interface FolderPage {
  folders: Array<{ id: string; name: string; path: string }>;
  pagination: { hasMore: boolean };
}

export interface FolderResolver {
  /** The ltree path of the folder at these names ('/'-separated, '' = root); null in a dry run when missing. */
  resolve(names: string): Promise<string | null>;
  /** Folders created (or, in a dry run, that would be), as name paths. */
  created(): string[];
}

export function folderResolver(
  client: ApiClient,
  datasetId: string,
  rootPath: string,
  dryRun: boolean,
): FolderResolver {
  const known = new Map<string, Promise<string | null>>([['', Promise.resolve(rootPath)]]);
  const made: string[] = [];

  async function child(parentPath: string, name: string): Promise<string | null> {
    if (!datasetId) return null; // a collection a dry run would create has no folders yet
    for (let offset = 0; ; offset += 1000) {
      const page = await client.json<FolderPage>(
        'GET',
        `/api/dataset/${datasetId}/folders?path=${encodeURIComponent(parentPath)}&limit=1000&offset=${offset}`,
      );
      const hit = page.folders.find((f) => f.name === name);
      if (hit) return hit.path;
      if (!page.pagination.hasMore) return null;
    }
  }

  async function lookup(names: string): Promise<string | null> {
    const cut = names.lastIndexOf('/');
    const parentNames = cut < 0 ? '' : names.slice(0, cut);
    const name = names.slice(cut + 1);
    const parent = await resolve(parentNames);
    const existing = parent === null ? null : await child(parent, name);
    if (existing) return existing;
    made.push(names);
    if (dryRun) return null;
    const r = await client.json<{ folder: { path: string } }>('POST', '/api/folder', {
      datasetId,
      name,
      path: parent,
      reuse: true,
    });
    return r.folder.path;
  }

  function resolve(names: string): Promise<string | null> {
    let p = known.get(names);
    if (!p) {
      p = lookup(names);
      known.set(names, p);
    }
    return p;
  }

  return { resolve, created: () => [...made].sort() };
}
