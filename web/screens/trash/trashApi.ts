/** The trash screen's calls (ours, issue #27): GET /api/dataset/:id/trash, restore and purge. */
import { api } from '../../lib/api';

export interface TrashEntry {
  id: string;
  name: string;
  type: 'image' | 'video' | 'folder';
  deletedAt: string;
  deletedBy: { id: string; name: string | null };
  location: Array<{ id: string; name: string }>;
  itemCount: number;
  media: { name: string; type: 'image' | 'video' | 'folder'; blob: string; thumbnailUrl?: string | null };
}

export interface TrashPage {
  entries: TrashEntry[];
  pagination: { total: number; limit: number; offset: number; hasMore: boolean };
}

const base = (datasetId: string) => `/api/dataset/${encodeURIComponent(datasetId)}/trash`;

export const fetchTrash = (datasetId: string, offset: number, limit: number) =>
  api<TrashPage>('GET', base(datasetId), { query: { offset, limit } });

export const restoreEntries = (datasetId: string, ids: string[]) =>
  api<{ restoredCount: number }>('POST', `${base(datasetId)}/restore`, { body: { ids } });

/** Queues the purge (all entries without ids); answers with the job. */
export const purgeEntries = (datasetId: string, ids?: string[]) =>
  api<{ jobId: number }>('POST', `${base(datasetId)}/purge`, { body: ids ? { ids } : {} });
