/**
 * The manifest of a model bundle (`manifest.json`, the first entry of the tar):
 * which models it holds, each with the catalog entry it was packed under and
 * every file's path, size and sha256. Files sit at `models/<name>/<path>`.
 */
import { z } from 'zod';

export const BUNDLE_FORMAT = 'lumen-models-bundle';
export const BUNDLE_VERSION = 1;
export const MANIFEST_NAME = 'manifest.json';

const SafePath = z
  .string()
  .min(1)
  .max(500)
  .refine(
    (p) =>
      !p.startsWith('/') &&
      !p.includes('\\') &&
      p.split('/').every((part) => part !== '..' && part !== '.' && part !== ''),
    'must be a relative path inside the model folder',
  );

const BundleFileSchema = z.object({
  path: SafePath,
  bytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lower-case hex digits'),
});
export type BundleFile = z.infer<typeof BundleFileSchema>;

const BundleModelSchema = z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/),
  repo: z.string().nullable(),
  revision: z.string(),
  /** The catalog entry on the packing machine, for the reader (import uses this machine's catalog). */
  entry: z.record(z.string(), z.unknown()),
  files: z.array(BundleFileSchema).min(1),
});
export type BundleModel = z.infer<typeof BundleModelSchema>;

export const ManifestSchema = z.object({
  format: z.literal(BUNDLE_FORMAT),
  version: z.literal(BUNDLE_VERSION),
  createdAt: z.string(),
  models: z.array(BundleModelSchema),
});
export type Manifest = z.infer<typeof ManifestSchema>;

/** Where a model's file sits inside the bundle. */
export function bundlePath(model: string, file: string): string {
  return `models/${model}/${file}`;
}

/** Parses manifest JSON text; throws an Error that says what is wrong. */
export function parseManifest(text: string): Manifest {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`${MANIFEST_NAME} is not JSON: ${(err as Error).message}`);
  }
  const format = (json as { format?: unknown })?.format;
  if (format !== BUNDLE_FORMAT)
    throw new Error(`${MANIFEST_NAME} is not a model bundle manifest (format ${JSON.stringify(format)})`);
  const version = (json as { version?: unknown }).version;
  if (version !== BUNDLE_VERSION)
    throw new Error(
      `bundle format version ${JSON.stringify(version)} is not supported (this server reads ${BUNDLE_VERSION})`,
    );
  const parsed = ManifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${MANIFEST_NAME}: ${issue.path.join('.')}: ${issue.message}`);
  }
  const names = new Set<string>();
  for (const m of parsed.data.models) {
    if (names.has(m.name)) throw new Error(`${MANIFEST_NAME}: model ${m.name} is listed twice`);
    names.add(m.name);
    const paths = new Set<string>();
    for (const f of m.files) {
      if (paths.has(f.path)) throw new Error(`${MANIFEST_NAME}: ${m.name} lists ${f.path} twice`);
      paths.add(f.path);
    }
  }
  return parsed.data;
}
