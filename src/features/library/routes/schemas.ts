import { z } from 'zod';

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

/** The item PATCH body: renameOrReplaceBody's fields and ours, the favourite and archived flags. */
export const itemPatchBody = (nameMax: number) =>
  renameOrReplaceBody(nameMax).extend({
    favorite: z.boolean().optional().describe('ours: mark or unmark a favourite'),
    archived: z.boolean().optional().describe('ours: archive (out of default listings and search) or unarchive'),
  });
