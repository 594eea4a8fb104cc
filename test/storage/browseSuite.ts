/**
 * Part of the storage contract (called by ./suite.ts): browse, totals and
 * folder summaries agree with a straightforward reading of the records, over a
 * randomised library, for every sort × direction × filter combination, at
 * several places and offsets, after random moves, deletes, tag and text edits
 * and version switches. Like the rest of the suite it talks to the store only
 * through the Storage interface: the expected answer is computed here, in
 * TypeScript, from every record read back with getMany.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newMediaId, newUuid, nowIso, pathLabel } from '../../src/platform/ids.js';
import { seededRandom } from '../../src/platform/random.js';
import type { Storage } from '../../src/storage/storage.js';
import type { BrowseQuery, MediaRecord, MediaType, Metadata, SortField } from '../../src/storage/types.js';
import { NO_FILTERS } from '../../src/storage/browseQuery.js';

const SORT_FIELDS: SortField[] = ['name', 'createdAt', 'type', 'description', 'prompt', 'takenAt'];
const GROUPS: Record<string, string[]> = {
  color: ['red', 'blue', 'green'],
  size: ['big', 'small'],
  mood: ['red', 'calm'],
};
/** Non-ASCII names too: NOCASE folds ASCII letters only ('É' and 'é' differ), then compares UTF-8 bytes. */
const NAMES = ['alpha', 'Alpha', 'bravo', 'BRAVO', 'charlie', 'delta', 'echo', 'Echo', 'Émile', 'émile', 'Zoë', 'zoë'];
const TEXTS = [undefined, 'a', 'b', 'B', 'c', 'é', 'É'];
/** Capture times: few, so some tie; some after the items' createdAt (now), most before. */
const TAKEN = [
  '2003-07-01T12:00:00.000Z',
  '2011-02-03T04:05:06.789Z',
  '2019-12-31T23:59:59.999Z',
  '2999-01-01T00:00:00.000Z',
];

interface Ctx {
  s: Storage;
  rand: () => number;
  collectionId: string;
  organizationId: string;
  userId: string;
  root: string;
  /** Every id written (items, versions, folders), any status. */
  ids: string[];
}

const pick = <T>(rand: () => number, list: T[]): T => list[Math.floor(rand() * list.length)];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function randomMetadata(rand: () => number): Metadata {
  const tags: Record<string, string[]> = {};
  for (const [group, values] of Object.entries(GROUPS)) {
    if (rand() < 0.5) continue;
    tags[group] = [...new Set([pick(rand, values), ...(rand() < 0.3 ? [pick(rand, values)] : [])])];
  }
  const description = pick(rand, TEXTS);
  const prompt = pick(rand, TEXTS);
  return {
    ...(Object.keys(tags).length ? { tags } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(prompt !== undefined ? { prompt } : {}),
  };
}

async function addMedia(c: Ctx, parentPath: string, type: MediaType, rootId?: string): Promise<MediaRecord> {
  const id = newMediaId();
  const common = {
    id,
    collectionId: c.collectionId,
    organizationId: c.organizationId,
    parentPath,
    type,
    name: pick(c.rand, NAMES),
    mimeType: null,
    width: null,
    height: null,
    duration: null,
    sizeBytes: 10,
    exif: {},
    processingStatus: 'ready' as const,
    createdById: c.userId,
  };
  c.ids.push(id);
  if (type === 'folder') {
    return (await c.s.media.insertFolder({ ...common, blobKey: null, metadata: {} }, false)).folder;
  }
  const takenAt = c.rand() < 0.4 ? null : pick(c.rand, TAKEN);
  const media = {
    ...common,
    blobKey: `blob-${id}`,
    metadata: randomMetadata(c.rand),
    takenAt,
    ...(rootId ? { rootId } : {}),
  };
  return c.s.media.insert(media, [{ id: newMediaId(), timestamp: '0', blobKey: `frame-${id}`, width: 1, height: 1 }]);
}

const isLive = (m: MediaRecord) => m.status === 'active' && m.isCurrent;

/** The well-formed tags of a record, as the store indexes them. */
const tagsOf = (m: MediaRecord): Record<string, string[]> => (m.metadata.tags ?? {}) as Record<string, string[]>;
const textOf = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function sortKey(m: MediaRecord, field: SortField): string | null {
  switch (field) {
    case 'name':
      return m.name.replace(/[A-Z]/g, (c) => c.toLowerCase()); // NOCASE: ASCII letters fold, nothing else
    case 'createdAt':
      return m.createdAt;
    case 'type':
      return m.type;
    case 'description':
      return textOf(m.metadata.description);
    case 'prompt':
      return textOf(m.metadata.prompt);
    case 'takenAt':
      return m.takenAt ?? m.createdAt;
  }
}

/** The date the query's bounds apply to. */
const dateOf = (m: MediaRecord, q: BrowseQuery): string =>
  q.dateField === 'takenAt' ? (m.takenAt ?? m.createdAt) : m.createdAt;

/**
 * NULL sorts first ascending, as in SQL; ties break by id in the same direction. Keys compare as UTF-16
 * code units, which is UTF-8 byte order for the characters used here (none beyond U+D7FF).
 */
function compare(a: MediaRecord, b: MediaRecord, field: SortField): number {
  const x = sortKey(a, field);
  const y = sortKey(b, field);
  if (x !== y) {
    if (x === null) return -1;
    if (y === null) return 1;
    return x < y ? -1 : 1;
  }
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The straightforward answer: filter every live record, sort, slice. */
function naive(all: MediaRecord[], q: BrowseQuery): { ids: string[]; total: number } {
  const matches = all.filter((m) => {
    if (!isLive(m) || m.collectionId !== q.collectionId) return false;
    if (q.recursive ? !m.path.startsWith(`${q.path}.`) : m.parentPath !== q.path) return false;
    if (q.types && !q.types.includes(m.type)) return false;
    if (q.createdFrom && dateOf(m, q) < q.createdFrom) return false;
    if (q.createdBefore && dateOf(m, q) >= q.createdBefore) return false;
    if (q.mediaId && m.id !== q.mediaId) return false;
    if (q.favorite === true && !m.favorite) return false;
    const archived = q.archived ?? 'exclude';
    if (archived === 'exclude' ? m.archived : archived === 'only' && !m.archived) return false;
    const tags = tagsOf(m);
    for (const [group, values] of Object.entries(q.tagFilters ?? {})) {
      if (values.length && !values.some((v) => tags[group]?.includes(v))) return false;
    }
    return (q.tagValues ?? []).every((v) => Object.values(tags).some((vs) => vs.includes(v)));
  });
  const sign = q.sortDirection === 'asc' ? 1 : -1;
  matches.sort((a, b) => sign * compare(a, b, q.sortBy));
  return { ids: matches.slice(q.offset, q.offset + q.limit).map((m) => m.id), total: matches.length };
}

/** One random change through the store: a move, a delete, a tag or text edit, or a version switch. */
async function randomChange(c: Ctx, all: MediaRecord[]): Promise<void> {
  const live = all.filter(isLive);
  const folders = live.filter((m) => m.type === 'folder');
  const items = live.filter((m) => m.type !== 'folder');
  const places = [c.root, ...folders.map((f) => f.path)];
  if (c.rand() < 0.3) return flagOrTrash(c, live);
  const r = c.rand();
  if (r < 0.2 && folders.length) {
    const f = pick(c.rand, folders);
    const dest = pick(
      c.rand,
      places.filter((p) => p !== f.path && !p.startsWith(`${f.path}.`)),
    );
    await c.s.media.move(f.id, dest, c.userId);
  } else if (r < 0.35 && items.length) {
    await c.s.media.move(pick(c.rand, items).id, pick(c.rand, places), c.userId);
  } else if (r < 0.42 && items.length) {
    await c.s.media.softDelete(pick(c.rand, items).id, c.userId);
  } else if (r < 0.45 && folders.length > 3) {
    await c.s.media.softDelete(pick(c.rand, folders).id, c.userId);
  } else if (r < 0.65 && items.length) {
    await c.s.media.mutateMetadata(pick(c.rand, items).id, c.userId, () => randomMetadata(c.rand));
  } else if (r < 0.72 && items.length) {
    await c.s.media.update(pick(c.rand, items).id, { name: pick(c.rand, NAMES) }, c.userId);
  } else if (r < 0.85 && items.length) {
    const m = pick(c.rand, items);
    await addMedia(c, m.parentPath, m.type as MediaType, m.rootId);
  } else if (items.length) {
    const versions = await c.s.media.listVersions(pick(c.rand, items).rootId);
    const v = pick(c.rand, versions);
    if (versions.length > 1 && c.rand() < 0.5) await c.s.media.deleteVersion(v.rootId, v.id, c.userId);
    else await c.s.media.selectVersion(v.id, c.userId);
  } else {
    await addMedia(c, pick(c.rand, places), 'image');
  }
}

/** Favourite and archive flags set or cleared on a few items, several trashed at once, or an entry restored. */
async function flagOrTrash(c: Ctx, live: MediaRecord[]): Promise<void> {
  const r = c.rand();
  const some = () => Array.from({ length: 1 + Math.floor(c.rand() * 3) }, () => pick(c.rand, live).id);
  if (r < 0.3) await c.s.media.setFlags(some(), { favorite: c.rand() < 0.6 });
  else if (r < 0.55) await c.s.media.setFlags(some(), { archived: c.rand() < 0.6 });
  else if (r < 0.65) await c.s.media.setFlags(some(), { favorite: true, archived: true });
  else if (r < 0.8) await c.s.media.trash(some(), c.userId);
  else {
    const { entries } = await c.s.media.listTrash(c.collectionId, { limit: 50, offset: 0 });
    if (entries.length) await c.s.media.restore([pick(c.rand, entries).id]);
  }
}

/** The filter combinations checked at every place, sort and direction. */
function filterCombos(all: MediaRecord[]): Array<Partial<BrowseQuery>> {
  const times = all.map((m) => m.createdAt).sort();
  const mid = times[Math.floor(times.length / 2)];
  const late = times[Math.floor((times.length * 3) / 4)];
  const someItem = all.find((m) => isLive(m) && m.type !== 'folder');
  // Whole days, as browse's dateFrom / dateTo pass them (the bitmaps of days answer these).
  const dayOf = (iso: string) => `${iso.slice(0, 10)}T00:00:00.000Z`;
  const dayAfter = (iso: string) => new Date(Date.parse(dayOf(iso)) + 86_400_000).toISOString();
  return [
    {},
    { types: ['image'] },
    { types: ['video', 'folder'] },
    { createdFrom: mid },
    { createdFrom: times[0], createdBefore: late, types: ['image', 'video'] },
    { tagFilters: { color: ['red'] } },
    { tagFilters: { color: ['red', 'blue'], size: ['big'], mood: ['calm', 'red'] } },
    { tagFilters: { color: [], size: ['small'] }, createdBefore: late },
    { tagValues: ['red'] },
    { tagValues: ['red', 'big'], types: ['image'] },
    { createdFrom: dayOf(mid), tagFilters: { color: ['red'] } },
    { createdFrom: dayOf(times[0]), createdBefore: dayAfter(late), types: ['image'] },
    { createdBefore: dayOf(times[0]), tagValues: ['big'] },
    { createdFrom: dayAfter(times[times.length - 1]) },
    { dateField: 'takenAt', createdFrom: TAKEN[1] },
    { dateField: 'takenAt', createdFrom: TAKEN[0], createdBefore: mid, types: ['image', 'video'] },
    { dateField: 'takenAt', createdBefore: TAKEN[3], tagFilters: { color: ['red'] } },
    // Whole days of the capture time (its bitmaps of days and months answer these).
    { dateField: 'takenAt', createdFrom: '2011-02-01T00:00:00.000Z', createdBefore: '2020-01-01T00:00:00.000Z' },
    { dateField: 'takenAt', createdFrom: dayOf(TAKEN[2]), createdBefore: dayAfter(mid), tagValues: ['red'] },
    { dateField: 'takenAt', createdBefore: '2019-12-31T00:00:00.000Z', types: ['image'] },
    ...(someItem ? [{ mediaId: someItem.id }] : []),
    // The flags (migration 027 / 060): favourites, archived items listed too or alone, with other filters.
    { favorite: true },
    { archived: 'include' },
    { archived: 'only', types: ['image'] },
    { favorite: true, archived: 'include', tagFilters: { color: ['red', 'blue'] } },
    { archived: 'only', createdFrom: dayOf(mid) },
    { favorite: true, dateField: 'takenAt', createdBefore: TAKEN[3] },
  ];
}

/** Every place × sort × direction × filter, at the first page, a middle one and the last, and unpaged. */
async function checkAll(c: Ctx, label: string): Promise<void> {
  const all = await c.s.media.getMany(c.ids);
  const folders = all.filter((m) => m.type === 'folder');
  const liveFolders = folders.filter(isLive);
  // A folder that moved or was deleted leaves paths that must list nothing.
  const stale = [...new Set(folders.map((f) => `${c.root}.${f.id}`))].filter(
    (p) => !liveFolders.some((f) => f.path === p),
  );
  const paths = [c.root, ...liveFolders.slice(0, 3).map((f) => f.path), ...stale.slice(0, 1)];
  const base: BrowseQuery = {
    collectionId: c.collectionId,
    path: c.root,
    recursive: false,
    ...NO_FILTERS,
    sortBy: 'createdAt',
    sortDirection: 'asc',
    limit: 1000,
    offset: 0,
  };
  for (const path of paths) {
    for (const recursive of [false, true]) {
      for (const filters of filterCombos(all)) {
        for (const sortBy of SORT_FIELDS) {
          for (const sortDirection of ['asc', 'desc'] as const) {
            const q = { ...base, path, recursive, sortBy, sortDirection, ...filters };
            const full = naive(all, q);
            const pages = [
              { offset: 0, limit: 1000 },
              { offset: 0, limit: 3 },
            ];
            if (full.total > 3) pages.push({ offset: Math.floor(full.total / 2) - 1, limit: 3 });
            if (full.total > 1) pages.push({ offset: full.total - 2, limit: 3 }, { offset: full.total, limit: 2 });
            // Paging on, as infinite scroll does: each page may start at the cursor the one before left
            // (pageCursors.ts), and a cursor left before the last round's changes must not be used.
            if (recursive) for (let offset = 1; offset < full.total; offset += 4) pages.push({ offset, limit: 4 });
            for (const page of pages) {
              const query = { ...q, ...page };
              const expected = naive(all, query);
              const got = await c.s.media.browse(query);
              const what = `${label}: ${JSON.stringify({ ...filters, path: path.slice(-6), recursive, sortBy, sortDirection, ...page })}`;
              assert.is(got.total, expected.total, `${what}: total`);
              assert.equal(
                got.items.map((m) => m.id),
                expected.ids,
                what,
              );
            }
          }
        }
      }
    }
  }
  await checkSummaries(c, all, liveFolders);
}

/** Folder item counts: live images and videos beneath; previews: frames of live items beneath. */
async function checkSummaries(c: Ctx, all: MediaRecord[], liveFolders: MediaRecord[]): Promise<void> {
  const sums = await c.s.media.folderSummaries(liveFolders.map((f) => f.path));
  for (const f of liveFolders) {
    const beneath = all.filter((m) => isLive(m) && m.type !== 'folder' && m.path.startsWith(`${f.path}.`));
    const sum = sums.get(f.path)!;
    assert.is(sum.itemCount, beneath.length, `itemCount of ${f.path}`);
    const allowed = new Set(beneath.map((m) => `frame-${m.id}`));
    assert.ok(sum.previewBlobKeys.length === Math.min(3, beneath.length), 'three previews when there are three items');
    for (const key of sum.previewBlobKeys) assert.ok(allowed.has(key), `${key} is beneath ${f.path}`);
  }
}

async function fill(c: Ctx): Promise<void> {
  const folders = [c.root];
  for (let i = 0; i < 7; i++) folders.push((await addMedia(c, pick(c.rand, folders), 'folder')).path);
  const made: string[] = [];
  for (let i = 0; i < 45; i++) {
    made.push((await addMedia(c, pick(c.rand, folders), c.rand() < 0.25 ? 'video' : 'image')).id);
    if (i % 6 === 0) await sleep(2); // createdAt: some ties, some not
  }
  await c.s.media.setFlags(
    made.filter(() => c.rand() < 0.3),
    { favorite: true },
  );
  await c.s.media.setFlags(
    made.filter(() => c.rand() < 0.2),
    { archived: true },
  );
}

export function browseSuite(
  name: string,
  open: () => Promise<Storage>,
  close: (s: Storage) => Promise<void> = (s) => s.close(),
): void {
  const test = suite(`storage: ${name}: browse equals a straightforward reading`);
  for (const seed of [1, 2]) {
    test(`randomised library (seed ${seed}): every sort × direction × filter, place and offset, through changes`, async () => {
      const s = await open();
      try {
        const userId = newUuid();
        await s.accounts.createUser({ id: userId, email: `b-${userId}@example.com`, name: 'B', createdAt: nowIso() });
        const organizationId = newUuid();
        await s.accounts.createOrganization({ id: organizationId, name: 'B', slug: `b-${organizationId}` }, userId);
        const collectionId = newUuid();
        const at = nowIso();
        await s.collections.create({
          id: collectionId,
          organizationId,
          name: 'B',
          icon: null,
          type: 'media',
          createdAt: at,
          updatedAt: at,
          createdById: userId,
        });
        const c: Ctx = {
          s,
          rand: seededRandom(seed),
          collectionId,
          organizationId,
          userId,
          root: pathLabel(collectionId),
          ids: [],
        };
        await fill(c);
        await checkAll(c, 'filled');
        for (let round = 1; round <= 3; round++) {
          for (let i = 0; i < 12; i++) await randomChange(c, await s.media.getMany(c.ids));
          await checkAll(c, `after round ${round} of changes`);
        }
      } finally {
        await close(s);
      }
    });
  }
  test.run();
}
