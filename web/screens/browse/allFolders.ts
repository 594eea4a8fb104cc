/** Every folder of a collection, depth first (for the move dialog's destination list), up to a bound. */
import { fetchFolders } from './browseApi';

/** Enough for any hand-made tree; a collection with more lists the first ones. */
const MAX_FOLDERS = 2000;

export interface FolderChoice {
  path: string;
  name: string;
  depth: number;
}

/** The folders beneath the root, parents before children, skipping the subtree of `exclude`. */
export async function allFolders(datasetId: string, exclude: string): Promise<FolderChoice[]> {
  const out: FolderChoice[] = [];
  const walk = async (path: string, depth: number): Promise<void> => {
    const level = await fetchFolders(datasetId, path);
    for (const f of level.folders) {
      if (out.length >= MAX_FOLDERS || f.path === exclude) continue;
      out.push({ path: f.path, name: f.name, depth });
      if (f.folderCount > 0) await walk(f.path, depth + 1);
    }
  };
  await walk('', 0);
  return out;
}
