/**
 * The order of media_scope's sort indexes, in TypeScript: (key, item) as SQLite compares them. `name` is
 * COLLATE NOCASE (ASCII letters folded, then bytes); the other keys and the item ids compare as bytes (memcmp,
 * then the shorter first). Stored text is UTF-8, so the keys are compared as their UTF-8 bytes.
 */
const NOCASE_COLUMNS = new Set(['name']);

/** ASCII upper-case letters folded to lower case, as SQLite's NOCASE does (other bytes unchanged). */
function foldAscii(bytes: Uint8Array): Uint8Array {
  const out = Uint8Array.from(bytes);
  for (let i = 0; i < out.length; i++) if (out[i] >= 0x41 && out[i] <= 0x5a) out[i] += 0x20;
  return out;
}

/** Negative, zero or positive as (aKey, aItem) sorts before, with or after (bKey, bItem) in `column`'s index. */
export function compareSortKeys(column: string, aKey: string, aItem: Buffer, bKey: string, bItem: Buffer): number {
  let a: Uint8Array = Buffer.from(String(aKey), 'utf8');
  let b: Uint8Array = Buffer.from(String(bKey), 'utf8');
  if (NOCASE_COLUMNS.has(column)) {
    a = foldAscii(a);
    b = foldAscii(b);
  }
  return Buffer.compare(a, b) || Buffer.compare(aItem, bItem);
}
