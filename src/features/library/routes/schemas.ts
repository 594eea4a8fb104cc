import { z } from 'zod';

/**
 * The PATCH body of an item or a folder: a new name (at most `nameMax` characters) and/or a whole new
 * metadata document; the use case refuses a body with neither.
 */
export const renameOrReplaceBody = (nameMax: number) =>
  z.object({ name: z.string().max(nameMax).optional(), metadata: z.record(z.string(), z.unknown()).optional() });
