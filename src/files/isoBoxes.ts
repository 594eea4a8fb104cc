/**
 * A cheap completeness check of ISO-BMFF files (HEIC, AVIF, CR3): walks the
 * top-level boxes by their declared sizes and says how many bytes are missing
 * when the last one runs past the end of the file. A HEIC cut short in transfer
 * still parses (its `meta` box comes first) and libheif would decode the tiles
 * it has and leave the rest grey; this lets it be refused instead.
 */
import { open } from 'node:fs/promises';

/** Top-level boxes walked at most: real files have a handful. */
const MAX_BOXES = 10_000;

/**
 * Bytes missing at the end of an ISO-BMFF file: 0 when its top-level boxes fit (or the file is not one we can
 * walk), else how many more bytes its last box declares.
 */
export async function missingBoxBytes(path: string): Promise<number> {
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    const head = Buffer.alloc(16);
    let pos = 0;
    for (let n = 0; n < MAX_BOXES && pos + 8 <= size; n++) {
      const { bytesRead } = await fh.read(head, 0, 16, pos);
      if (bytesRead < 8) return 0;
      let boxSize = head.readUInt32BE(0);
      if (boxSize === 0) return 0; // "to the end of the file"
      if (boxSize === 1) {
        if (bytesRead < 16) return 0;
        boxSize = Number(head.readBigUInt64BE(8));
      }
      if (boxSize < 8) return 0; // not a box structure we understand: let the decoder judge
      if (pos + boxSize > size) return pos + boxSize - size;
      pos += boxSize;
    }
    return 0;
  } finally {
    await fh.close();
  }
}
