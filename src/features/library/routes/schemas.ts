import { z } from 'zod';
import { queryBool } from '../../../http/route.js';
import { BROWSE_MAX_LIMIT } from '../browse.js';
import { placeQueryFields } from '../../kernel/placeParams.js';

/** The largest metadata document an item or folder may carry, as UTF-8 JSON (README, "Request limits"). */
export const MAX_METADATA_BYTES = 64 * 1024;

/** A whole metadata document: an object of at most MAX_METADATA_BYTES (its nesting is bounded by the JSON parser). */
const metadataDocument = z
  .record(z.string(), z.unknown())
  .refine((m) => Buffer.byteLength(JSON.stringify(m), 'utf8') <= MAX_METADATA_BYTES, {
    message: `metadata is larger than ${MAX_METADATA_BYTES} bytes of JSON`,
  });

/**
 * The PATCH body of an item or a folder: a new name (at most `nameMax` characters) and/or a whole new
 * metadata document; the use case refuses a body with neither.
 */
export const renameOrReplaceBody = (nameMax: number) =>
  z.object({ name: z.string().max(nameMax).optional(), metadata: metadataDocument.optional() });

/** The spec's browse parameters, with its defaults. */
export const browseQuery = z.object({
  path: z.string().optional().describe('ltree path of the folder to list; default the collection root'),
  recursive: queryBool.default(false).describe('true lists every descendant'),
  limit: z.coerce.number().int().min(1).max(BROWSE_MAX_LIMIT).default(10),
  offset: z.coerce.number().int().min(0).default(0),
  type: z.enum(['image', 'video', 'folder', 'all']).default('all'),
  dateFrom: z.string().optional().describe('YYYY-MM-DD, inclusive (UTC; the date dateField names)'),
  dateTo: z.string().optional().describe('YYYY-MM-DD, inclusive (UTC; the date dateField names)'),
  dateField: z
    .enum(['createdAt', 'takenAt'])
    .optional()
    .describe(
      'ours: the date dateFrom/dateTo bound; takenAt is the capture time, or createdAt where it is unknown. ' +
        'Default: takenAt when sortBy=takenAt, else createdAt (the spec)',
    ),
  sortBy: z
    .enum(['name', 'createdAt', 'type', 'description', 'prompt', 'takenAt'])
    .default('createdAt')
    .describe('takenAt (ours): the capture time, items without one at their createdAt'),
  sortDirection: z.enum(['asc', 'desc']).default('desc'),
  tags: z.string().optional().describe('comma-separated values; an item must carry all of them (any group)'),
  tagFilters: z.string().optional().describe('URL-encoded JSON {group: [values]}: AND between groups, OR within one'),
  mediaId: z.string().optional(),
  clusterId: z.string().optional(),
  albumId: z.string().optional().describe('ours: only items in this album (any folder; recursive over the collection)'),
  q: z.string().optional().describe('natural-language query (scored mode)'),
  similarToObjectId: z.string().optional(),
  similarToObjectModel: z.enum(['faces', 'objects', 'shoeprints']).optional(),
  minScore: z.coerce.number().min(0).max(1).default(0.05),
  favorite: queryBool.optional().describe('ours: true lists favourites only (false or absent: any)'),
  archived: z
    .enum(['exclude', 'include', 'only'])
    .default('exclude')
    .describe('ours: archived items are left out of listings and search unless `include` (with the rest) or `only`'),
  ...placeQueryFields,
});

/**
 * A bulk selection by query (POST /api/media/bulk): exactly browse's parameters but paging, as browse
 * reads them from a query string; booleans and numbers are taken too.
 */
export const selectionQuery = z.preprocess(
  (v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v).map(([k, x]) => [k, typeof x === 'boolean' || typeof x === 'number' ? String(x) : x]),
        )
      : v,
  browseQuery.omit({ limit: true, offset: true }).strict(),
);
/** The item PATCH body: renameOrReplaceBody's fields and ours, the favourite and archived flags. */
export const itemPatchBody = (nameMax: number) =>
  renameOrReplaceBody(nameMax).extend({
    favorite: z.boolean().optional().describe('ours: mark or unmark a favourite'),
    archived: z.boolean().optional().describe('ours: archive (out of default listings and search) or unarchive'),
  });
