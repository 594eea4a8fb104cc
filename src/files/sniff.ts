/**
 * File type detection by content. Uploads carry a name and a Content-Type, both
 * chosen by the client; neither is trusted. What a file is gets decided here,
 * from its first bytes, and the stored extension comes from this answer.
 */
import { open } from 'node:fs/promises';
import { rawSniffed } from './rawFormats.js';

/** What a file is, judged by its bytes. `ext` is the extension the blob store uses. */
export interface Sniffed {
  kind: 'image' | 'video';
  mime: string;
  ext: string;
  /** An image sequence sharp cannot read (animated AVIF): its first frame is decoded by ffmpeg. */
  sequence?: true;
}

/** How many bytes of the head are read: enough for an ftyp box with many brands and an EBML header. */
export const SNIFF_BYTES = 4096;

const JPEG: Sniffed = { kind: 'image', mime: 'image/jpeg', ext: 'jpg' };
const PNG: Sniffed = { kind: 'image', mime: 'image/png', ext: 'png' };
const GIF: Sniffed = { kind: 'image', mime: 'image/gif', ext: 'gif' };
const WEBP: Sniffed = { kind: 'image', mime: 'image/webp', ext: 'webp' };
const TIFF: Sniffed = { kind: 'image', mime: 'image/tiff', ext: 'tif' };
const HEIC: Sniffed = { kind: 'image', mime: 'image/heic', ext: 'heic' };
const AVIF: Sniffed = { kind: 'image', mime: 'image/avif', ext: 'avif' };
const AVIF_SEQUENCE: Sniffed = { ...AVIF, sequence: true };
const MP4: Sniffed = { kind: 'video', mime: 'video/mp4', ext: 'mp4' };
const MOV: Sniffed = { kind: 'video', mime: 'video/quicktime', ext: 'mov' };
const WEBM: Sniffed = { kind: 'video', mime: 'video/webm', ext: 'webm' };
const MKV: Sniffed = { kind: 'video', mime: 'video/x-matroska', ext: 'mkv' };
const AVI: Sniffed = { kind: 'video', mime: 'video/x-msvideo', ext: 'avi' };
const THREE_GP: Sniffed = { kind: 'video', mime: 'video/3gpp', ext: '3gp' };
/** JPEG XL is recognised so that a refusal can name it (imageFormats.ts says whether it decodes). */
const JXL: Sniffed = { kind: 'image', mime: 'image/jxl', ext: 'jxl' };
/** The ISO-BMFF signature box of a JPEG XL container. */
const JXL_CONTAINER = [0, 0, 0, 0x0c, 0x4a, 0x58, 0x4c, 0x20, 0x0d, 0x0a, 0x87, 0x0a];

const HEIC_BRANDS = new Set(['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis', 'hevm', 'hevs']);
const AVIF_BRANDS = new Set(['avif', 'avis']);
/** Generic HEIF brands: the compatible brands say whether the payload is HEVC or AV1. */
const HEIF_GENERIC_BRANDS = new Set(['mif1', 'msf1', 'mif2', 'miaf']);
/**
 * ISO-BMFF brands that are not a video we can play: audio-only MPEG-4, JPEG 2000.
 * Anything else unknown is treated as MP4 and left to ffprobe.
 */
const NOT_VISUAL_MEDIA_BRANDS = new Set(['M4A ', 'M4B ', 'M4P ', 'F4A ', 'F4B ', 'jp2 ', 'jpx ', 'jpm ', 'mjp2']);
/** QuickTime files without an ftyp box start directly with one of these atoms. */
const QUICKTIME_LEADING_ATOMS = new Set(['moov', 'mdat', 'wide', 'free', 'skip', 'pnot']);

/** Reads the head of a file and sniffs it; null when it is not a supported image or video (or is unreadable as a file). */
export async function sniffFile(path: string): Promise<Sniffed | null> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await fh.read(buf, 0, SNIFF_BYTES, 0);
    return sniffBuffer(buf.subarray(0, bytesRead));
  } finally {
    await fh.close();
  }
}

/** Sniffs bytes already in memory (the first few KB are enough; more does no harm). */
export function sniffBuffer(buf: Buffer): Sniffed | null {
  if (buf.length < 4) return null;
  if (buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) return JPEG;
  if (startsWith(buf, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return PNG;
  const head6 = buf.toString('latin1', 0, 6);
  if (head6 === 'GIF87a' || head6 === 'GIF89a') return GIF;
  if (buf.length >= 12 && ascii(buf, 0, 4) === 'RIFF' && ascii(buf, 8, 12) === 'WEBP') return WEBP;
  if (buf.length >= 12 && ascii(buf, 0, 4) === 'RIFF' && ascii(buf, 8, 12) === 'AVI ') return AVI;
  const raw = sniffRawHead(buf);
  if (raw) return raw;
  if (startsWith(buf, [0x49, 0x49, 0x2a, 0x00]) || startsWith(buf, [0x4d, 0x4d, 0x00, 0x2a])) return TIFF;
  if (startsWith(buf, [0xff, 0x0a]) || startsWith(buf, JXL_CONTAINER)) return JXL;
  if (startsWith(buf, [0x1a, 0x45, 0xdf, 0xa3])) return ebmlDocType(buf) === 'webm' ? WEBM : MKV;
  if (buf.length >= 12) {
    const boxType = ascii(buf, 4, 8);
    if (boxType === 'ftyp') return sniffFtyp(buf);
    if (QUICKTIME_LEADING_ATOMS.has(boxType)) return MOV;
  }
  return null;
}

/** Decides among HEIC, AVIF, MOV and MP4 from the ftyp box's major and compatible brands. */
function sniffFtyp(buf: Buffer): Sniffed | null {
  const major = ascii(buf, 8, 12);
  // The box size bounds the compatible-brand list; clamp it to what was read.
  const boxSize = buf.readUInt32BE(0);
  const end = Math.min(buf.length, boxSize >= 16 ? boxSize : 16);
  const compatible: string[] = [];
  for (let i = 16; i + 4 <= end; i += 4) compatible.push(ascii(buf, i, i + 4));

  if (major === 'avis') return AVIF_SEQUENCE;
  if (AVIF_BRANDS.has(major)) return AVIF;
  if (HEIC_BRANDS.has(major)) return HEIC;
  if (HEIF_GENERIC_BRANDS.has(major)) {
    if (compatible.some((b) => AVIF_BRANDS.has(b))) return AVIF;
    // A generic HEIF still image is, in practice, an HEVC-coded one from a phone.
    return HEIC;
  }
  if (major === 'qt  ') return MOV;
  if (major === 'crx ') return rawSniffed('cr3');
  if (major.startsWith('3gp') || major.startsWith('3g2')) return THREE_GP;
  if (NOT_VISUAL_MEDIA_BRANDS.has(major)) return null;
  // Some still images declare a generic major brand but list avif/heic as compatible.
  if (!compatible.some((b) => VIDEO_HINT_BRANDS.has(b))) {
    if (compatible.some((b) => AVIF_BRANDS.has(b))) return AVIF;
    if (compatible.some((b) => HEIC_BRANDS.has(b))) return HEIC;
  }
  return MP4;
}

/**
 * RAW formats whose head says so: CR2 (a TIFF with 'CR' after the header), ORF ('IIRO', 'IIRS', 'MMOR'),
 * RW2 ('IIU\0'), RAF ('FUJIFILMCCD-RAW'). CR3 is an ftyp brand (sniffFtyp); DNG, NEF, ARW look like TIFF.
 */
function sniffRawHead(buf: Buffer): Sniffed | null {
  if (buf.length >= 10 && startsWith(buf, [0x49, 0x49, 0x2a, 0x00]) && ascii(buf, 8, 10) === 'CR') {
    return rawSniffed('cr2');
  }
  const head4 = ascii(buf, 0, 4);
  if (head4 === 'IIRO' || head4 === 'IIRS' || head4 === 'MMOR') return rawSniffed('orf');
  if (head4 === 'IIU\0') return rawSniffed('rw2');
  if (ascii(buf, 0, 15) === 'FUJIFILMCCD-RAW') return rawSniffed('raf');
  return null;
}

/** Compatible brands that only video files list; they keep a video with an odd brand list a video. */
const VIDEO_HINT_BRANDS = new Set([
  'isom',
  'iso2',
  'iso4',
  'iso5',
  'iso6',
  'mp41',
  'mp42',
  'avc1',
  'dash',
  'M4V ',
  'qt  ',
]);

/**
 * Reads the DocType string from an EBML header ('webm' or 'matroska').
 * Returns null when the header is malformed or has no DocType within the bytes read.
 */
function ebmlDocType(buf: Buffer): string | null {
  const header = readElementHead(buf, 0);
  if (!header || header.id !== 0x1a45dfa3) return null;
  const end = Math.min(buf.length, header.dataStart + header.size);
  let pos = header.dataStart;
  while (pos < end) {
    const el = readElementHead(buf, pos);
    if (!el || el.dataStart + el.size > end) return null;
    if (el.id === 0x4282) return buf.toString('latin1', el.dataStart, el.dataStart + el.size).replace(/\0+$/, '');
    pos = el.dataStart + el.size;
  }
  return null;
}

/** One EBML element head: its id (marker bits kept, as ids are written in specs) and data size. */
function readElementHead(buf: Buffer, pos: number): { id: number; size: number; dataStart: number } | null {
  const id = readVint(buf, pos, true);
  if (!id) return null;
  const size = readVint(buf, pos + id.length, false);
  if (!size) return null;
  return { id: id.value, size: size.value, dataStart: pos + id.length + size.length };
}

/** EBML variable-length integer: the count of leading zero bits of the first byte gives its length. */
function readVint(buf: Buffer, pos: number, keepMarker: boolean): { value: number; length: number } | null {
  if (pos >= buf.length) return null;
  const first = buf[pos];
  if (first === 0) return null;
  let length = 1;
  while (!(first & (0x80 >> (length - 1)))) length++;
  if (pos + length > buf.length || length > 8) return null;
  let value = keepMarker ? first : first & (0xff >> length);
  for (let i = 1; i < length; i++) value = value * 256 + buf[pos + i];
  return { value, length };
}

function startsWith(buf: Buffer, bytes: number[]): boolean {
  return buf.length >= bytes.length && bytes.every((b, i) => buf[i] === b);
}

function ascii(buf: Buffer, start: number, end: number): string {
  return buf.toString('latin1', start, end);
}
