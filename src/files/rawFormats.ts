/**
 * Camera RAW formats. We do not develop sensor data (no LibRaw here): a RAW is
 * shown and analysed from the full-size JPEG its camera embeds (rawPreview.ts),
 * and the RAW itself is kept byte for byte as the original.
 *
 * Some RAWs announce themselves in their first bytes (CR3, CR2, ORF, RW2, RAF);
 * DNG, NEF, ARW and friends are plain TIFF files by their head, so sniffing
 * calls them TIFF and ExifTool's FileType says which camera format they are.
 */

/** What sniffing answers for a RAW (the shape of sniff.ts's Sniffed, kept here to avoid an import cycle). */
export interface RawSniffed {
  kind: 'image';
  mime: string;
  ext: string;
}
/** One RAW format: ExifTool's FileType, our stored extension and the MIME type ExifTool names. */
interface RawFormat {
  fileType: string;
  ext: string;
  mime: string;
}

const RAW_FORMATS: RawFormat[] = [
  { fileType: 'DNG', ext: 'dng', mime: 'image/x-adobe-dng' },
  { fileType: 'CR2', ext: 'cr2', mime: 'image/x-canon-cr2' },
  { fileType: 'CR3', ext: 'cr3', mime: 'image/x-canon-cr3' },
  { fileType: 'NEF', ext: 'nef', mime: 'image/x-nikon-nef' },
  { fileType: 'NRW', ext: 'nrw', mime: 'image/x-nikon-nrw' },
  { fileType: 'ARW', ext: 'arw', mime: 'image/x-sony-arw' },
  { fileType: 'SR2', ext: 'sr2', mime: 'image/x-sony-sr2' },
  { fileType: 'SRF', ext: 'srf', mime: 'image/x-sony-srf' },
  { fileType: 'ORF', ext: 'orf', mime: 'image/x-olympus-orf' },
  { fileType: 'RAF', ext: 'raf', mime: 'image/x-fujifilm-raf' },
  { fileType: 'RW2', ext: 'rw2', mime: 'image/x-panasonic-rw2' },
  { fileType: 'PEF', ext: 'pef', mime: 'image/x-pentax-pef' },
  { fileType: 'SRW', ext: 'srw', mime: 'image/x-samsung-srw' },
];

/** Content types of the RAW extensions, for the file server. */
export const RAW_CONTENT_TYPES: Readonly<Record<string, string>> = Object.fromEntries(
  RAW_FORMATS.map((f) => [f.ext, f.mime]),
);

const BY_EXT = new Map(RAW_FORMATS.map((f) => [f.ext, f]));
const BY_FILE_TYPE = new Map(RAW_FORMATS.map((f) => [f.fileType, f]));

const asSniffed = (f: RawFormat): RawSniffed => ({ kind: 'image', mime: f.mime, ext: f.ext });

/** The sniff answer for a RAW of this stored extension ('cr3', 'orf' …). */
export function rawSniffed(ext: string): RawSniffed {
  const f = BY_EXT.get(ext);
  if (!f) throw new Error(`not a RAW extension: ${ext}`);
  return asSniffed(f);
}

/** Whether files of this stored extension are camera RAWs. */
export function isRawExt(ext: string): boolean {
  return BY_EXT.has(ext);
}

/** Whether a MIME type (as stored on an item) is a camera RAW's. */
export function isRawMime(mime: string): boolean {
  return RAW_FORMATS.some((f) => f.mime === mime);
}

/**
 * A TIFF-headed file that ExifTool knows to be a camera RAW becomes that RAW;
 * anything else stays as sniffed.
 */
export function refineTiff<T extends { ext: string }>(sniffed: T, fileType: string | undefined): T | RawSniffed {
  if (sniffed.ext !== 'tif' || !fileType) return sniffed;
  const f = BY_FILE_TYPE.get(fileType.toUpperCase());
  return f ? asSniffed(f) : sniffed;
}
