/** The album and share link shapes the API answers (src/features/share), and the calls the screens make. */
import { api } from '../../lib/api';

export interface Album {
  id: string;
  datasetId: string;
  name: string;
  coverMediaId: string | null;
  itemCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface ShareLinkInfo {
  id: string;
  datasetId: string;
  kind: 'album' | 'folder' | 'selection';
  targetId: string | null;
  name: string;
  hasPassword: boolean;
  expiresAt: string | null;
  canDownload: boolean;
  canUpload: boolean;
  showOrganization: boolean;
  viewCount: number;
  state: 'active' | 'expired' | 'revoked';
  createdAt: string;
}

const enc = encodeURIComponent;

export const listAlbums = (datasetId: string, signal?: AbortSignal) =>
  api<{ albums: Album[] }>('GET', `/api/dataset/${enc(datasetId)}/albums`, { signal });

export const createAlbum = (datasetId: string, name: string, mediaIds: string[] = []) =>
  api<Album>('POST', `/api/dataset/${enc(datasetId)}/albums`, { body: { name, mediaIds } });

export const addToAlbum = (albumId: string, mediaIds: string[]) =>
  api<{ changed: number; album: Album }>('POST', `/api/albums/${enc(albumId)}/items`, { body: { mediaIds } });

export const listLinks = (datasetId: string, signal?: AbortSignal) =>
  api<{ links: ShareLinkInfo[] }>('GET', `/api/dataset/${enc(datasetId)}/share-links`, { signal });
