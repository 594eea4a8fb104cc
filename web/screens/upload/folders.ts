/**
 * Keeps a dropped folder's structure: before a file goes into `a/b/`, the folders `a` and `a/b` are created
 * through `POST /api/folder` with `reuse: true` (an existing folder of that name is reused, never
 * duplicated). Each folder is asked for once per page: files of the same folder share the request.
 */
import { api } from '../../lib/api';

const known = new Map<string, Promise<string>>();

async function createFolder(datasetId: string, parent: string | undefined, name: string): Promise<string> {
  const body = { datasetId, name, reuse: true, ...(parent ? { path: parent } : {}) };
  const res = await api<{ folder: { path: string } }>('POST', '/api/folder', { body });
  return res.folder.path;
}

/** The ltree path of `dirs` below `base` (the collection root when absent), creating what is missing. */
export async function ensureFolder(
  datasetId: string,
  base: string | undefined,
  dirs: string[],
): Promise<string | undefined> {
  let parent = base;
  for (const name of dirs) {
    const key = `${datasetId}\n${parent ?? ''}\n${name}`;
    let path = known.get(key);
    if (!path) {
      path = createFolder(datasetId, parent, name);
      known.set(key, path);
      // A failed request is forgotten, so a retry asks again.
      path.catch(() => known.delete(key));
    }
    parent = await path;
  }
  return parent;
}
