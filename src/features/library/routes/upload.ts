import { rm } from 'node:fs/promises';
import { z } from 'zod';
import { MAX_SIDECAR_BYTES } from '../../../files/sidecar.js';
import { presentOne } from '../../kernel/present.js';
import { uploadMedia } from '../upload.js';
import { invalid } from '../../../platform/errors.js';
import { defineRoute } from '../../../http/route.js';

interface ParsedFile {
  filepath: string;
  originalFilename: string | null;
  hash?: string | null;
  size?: number;
}

const field = z.union([z.string(), z.array(z.string()).transform((a) => a[0])]);

export const uploadRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/upload/multipart',
    tag: 'library',
    summary: 'Upload an image or video (multipart/form-data: datasetId, path?, name?, file, sidecar?)',
    description:
      "An optional `sidecar` part carries the file's XMP sidecar (IMG_1.JPG.xmp or IMG_1.xmp, at most 4 MiB): its " +
      "title, description, keywords, rating, GPS position and capture time win over the file's own. It is not " +
      'stored as an item.',
    bodyType: 'multipart',
    body: z.object({
      datasetId: field.pipe(z.string().min(1, 'datasetId is required')),
      path: field.optional(),
      name: field.optional(),
    }),
    responses: {
      400: 'missing datasetId or file, or a sidecar over 4 MiB',
      403: 'role too low or no access',
      404: 'collection or folder not found',
      413: 'file too large',
      415: 'not a supported image or video',
      422: 'the bytes do not decode',
      507: 'insufficient_storage: the disk is full, or the file would not leave MIN_FREE_BYTES free',
    },
    handle: async ({ services, principal, body, ctx }) => {
      const files = ctx.request.files ?? {};
      const sidecar = (files.sidecar ? [files.sidecar].flat()[0] : undefined) as unknown as ParsedFile | undefined;
      const all = (Object.values(files).flat() as unknown as ParsedFile[]).filter((f) => f !== sidecar);
      const file = (files.file ? [files.file].flat()[0] : all[0]) as unknown as ParsedFile | undefined;
      try {
        if (!file) throw invalid('file is required (multipart field "file")');
        if (all.length > 1)
          throw invalid(
            'more than one file: an upload carries exactly one file (and at most its XMP sidecar, part "sidecar")',
          );
        if ((sidecar?.size ?? 0) > MAX_SIDECAR_BYTES) throw invalid('sidecar must be at most 4 MiB');
        const record = await uploadMedia(services, principal, {
          collectionId: body.datasetId,
          path: body.path,
          name: body.name,
          file: { tempPath: file.filepath, originalName: file.originalFilename, sha256: file.hash },
          sidecarPath: sidecar?.filepath,
        });
        const media = await presentOne(services, record);
        return { mediaId: record.id, url: media.blob, message: 'uploaded', media };
      } finally {
        if (sidecar) await rm(sidecar.filepath, { force: true });
      }
    },
  }),
];
