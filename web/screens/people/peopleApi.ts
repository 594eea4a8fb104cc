/** The People screens' calls to the JSON API (face clusters: /api/dataset/:id/clusters, /api/clusters/:id). */
import { api } from '../../lib/api';

export interface Person {
  id: string;
  name: string | null;
  hidden: boolean;
  size: number;
  mediaCount: number;
  preview: string | null;
  previewObjectId: string | null;
  datasetId?: string;
}

export interface PeoplePage {
  clusters: Person[];
  pagination: { total: number; limit: number; offset: number; hasMore: boolean };
  faces: { modelsReady: boolean; pending: number };
}

export interface Face {
  objectId: string;
  mediaId: string;
  crop: string | null;
  manual: boolean;
}

export interface Suggestion {
  a: Person;
  b: Person;
  similarity: number;
}

const ds = (datasetId: string) => `/api/dataset/${encodeURIComponent(datasetId)}`;
const one = (id: string) => `/api/clusters/${encodeURIComponent(id)}`;

export const fetchPeople = (
  datasetId: string,
  page: { offset: number; limit: number; includeHidden: boolean },
  signal?: AbortSignal,
) => api<PeoplePage>('GET', `${ds(datasetId)}/clusters`, { query: page, signal });

export const fetchSuggestions = (datasetId: string, signal?: AbortSignal) =>
  api<{ suggestions: Suggestion[] }>('GET', `${ds(datasetId)}/clusters/suggestions`, { query: { limit: 6 }, signal });

export const fetchPerson = (id: string, signal?: AbortSignal) =>
  api<{ cluster: Person }>('GET', one(id), { signal }).then((r) => r.cluster);

export const fetchFaces = (id: string, signal?: AbortSignal) =>
  api<{ faces: Face[] }>('GET', `${one(id)}/faces`, { query: { limit: 500 }, signal }).then((r) => r.faces);

export const updatePerson = (id: string, patch: { name?: string | null; hidden?: boolean; coverObjectId?: string }) =>
  api<{ cluster: Person }>('PATCH', one(id), { body: patch }).then((r) => r.cluster);

export const mergePeople = (into: string, clusterIds: string[]) =>
  api<{ cluster: Person }>('POST', `${one(into)}/merge`, { body: { clusterIds } }).then((r) => r.cluster);

/** "Not the same person": the pair is not suggested again. */
export const notSamePerson = (a: string, b: string) =>
  api<{ dismissed: boolean }>('POST', `${one(a)}/not-same-person`, { body: { clusterId: b } });

export const moveFaces = (from: string, objectIds: string[], to: string | null) =>
  api<{ clusterId: string; moved: number; sourceRemains: boolean }>('POST', `${one(from)}/faces/move`, {
    body: { objectIds, to },
  });

/** A person's name for display. */
export const personName = (p: Pick<Person, 'name'>): string => p.name ?? 'Unnamed person';
