/** The duplicates routes as the review page uses them (GET/POST /api/dataset/:id/duplicates…). */
import { api } from '../../lib/api';
import type { MediaItem } from '../viewer/types';

export type DupItem = MediaItem & { takenAt?: string | null; folder: { path: string; name: string | null } };

export interface DupGroup {
  id: string;
  kind: 'exact' | 'near';
  similarity: number;
  keepId: string;
  items: DupItem[];
}

export interface DupPage {
  scan: { status: 'none' | 'running' | 'done'; scannedAt: string | null; items: number; threshold: number | null };
  groups: DupGroup[];
  pagination: { total: number; limit: number; offset: number; hasMore: boolean };
}

const base = (datasetId: string) => `/api/dataset/${encodeURIComponent(datasetId)}/duplicates`;

export const fetchDuplicates = (datasetId: string, offset: number, limit = 20) =>
  api<DupPage>('GET', base(datasetId), { query: { offset, limit } });

export const startScan = (datasetId: string) => api<{ jobId: number }>('POST', `${base(datasetId)}/scan`);

export const resolveGroup = (
  datasetId: string,
  body: { keepId: string; trashIds: string[]; mergeTags: boolean; name?: string; description?: string },
) => api('POST', `${base(datasetId)}/resolve`, { body });

export const dismissGroup = (datasetId: string, mediaIds: string[]) =>
  api('POST', `${base(datasetId)}/dismiss`, { body: { mediaIds } });
