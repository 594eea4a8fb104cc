/** The browse screen's calls to the JSON API, with the few response fields it reads. */
import { api } from '../../lib/api';
import { browseParams, type BrowseState } from './browseState';

/** A media item as the browse listing returns it (the fields the grid uses). */
export interface MediaItem {
  id: string;
  name: string;
  type: 'image' | 'video' | 'folder';
  blob: string;
  path: string;
  /** 256 px WebP, null until generated (h15thumbs); absent on servers before it. */
  thumbnailUrl?: string | null;
  createdAt: string;
  duration: number | null;
  processingStatus: 'pending' | 'processing' | 'ready' | 'failed';
  processingError: string | null;
  /** Stage → "done" | "off" | "waiting for model X" | … */
  analysis: Record<string, string>;
  folderItemCount: number | null;
  frames: Array<{ captions: Array<{ text: string }> }>;
  /** Ours (issue #27); absent on servers before it. */
  favorite?: boolean;
  archived?: boolean;
}

export interface Page {
  media: MediaItem[];
  pagination: { total: number; limit: number; offset: number; hasMore: boolean };
}

/** One page of the listing. */
export function fetchPage(
  datasetId: string,
  state: BrowseState,
  offset: number,
  limit: number,
  signal?: AbortSignal,
): Promise<Page> {
  return api<Page>('GET', `/api/dataset/${encodeURIComponent(datasetId)}/media`, {
    query: { ...browseParams(state), offset, limit },
    signal,
  });
}

/** A child folder in the tree (GET /api/dataset/:id/folders). */
export interface TreeFolder {
  id: string;
  name: string;
  path: string;
  childCount: number;
  folderCount: number;
  itemCount: number;
}

export interface FolderLevel {
  path: string;
  root: string;
  ancestors: Array<{ id: string; name: string; path: string }>;
  folders: TreeFolder[];
  pagination: { total: number; hasMore: boolean };
}

/** The subfolders of `path` (default the root) and its ancestors. */
export function fetchFolders(datasetId: string, path: string, signal?: AbortSignal): Promise<FolderLevel> {
  return api<FolderLevel>('GET', `/api/dataset/${encodeURIComponent(datasetId)}/folders`, {
    query: { path: path || undefined, limit: 1000 },
    signal,
  });
}

export interface Collection {
  id: string;
  name: string;
}

export const fetchCollection = (datasetId: string) =>
  api<{ dataset: Collection }>('GET', `/api/dataset/${encodeURIComponent(datasetId)}`).then((r) => r.dataset);

/** Every distinct tag value of the collection (the groups flattened), sorted. */
export async function fetchTagValues(datasetId: string): Promise<string[]> {
  const r = await api<{ tags: Record<string, string[]> }>('GET', `/api/dataset/${encodeURIComponent(datasetId)}/tags`);
  return [...new Set(Object.values(r.tags).flat())].sort((a, b) => a.localeCompare(b));
}

export const createFolder = (datasetId: string, name: string, path: string) =>
  api<{ folder: { id: string; path: string } }>('POST', '/api/folder', {
    body: { datasetId, name, ...(path ? { path } : {}) },
  });

export const renameFolder = (folderId: string, name: string) =>
  api('PATCH', `/api/folder/${encodeURIComponent(folderId)}`, { body: { name } });

export const moveMedia = (mediaId: string, destinationPath: string) =>
  api<{ id: string; newPath: string }>('PATCH', `/api/media/${encodeURIComponent(mediaId)}/move`, {
    body: { destinationPath },
  });
