/**
 * Splits library text on the words of a query so the screen can wrap the matches in <mark> as JSX text
 * (never markup). A query word matches at the start of a word ("red" marks "red" and "reddish"), as the
 * server's stemming text index roughly does; case is ignored.
 */

export interface Segment {
  text: string;
  match: boolean;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The words of a query worth marking (two letters or more, deduplicated, longest first). */
export function queryTerms(q: string): string[] {
  const words = q
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length >= 2);
  return [...new Set(words)].sort((a, b) => b.length - a.length);
}

/** `text` in pieces, each marked when it is a query word (or a word starting with one). */
export function splitOnTerms(text: string, terms: string[]): Segment[] {
  if (!text) return [];
  if (terms.length === 0) return [{ text, match: false }];
  const re = new RegExp(`(?<![\\p{L}\\p{N}])(${terms.map(escape).join('|')})`, 'giu');
  const out: Segment[] = [];
  let last = 0;
  for (const m of text.matchAll(re)) {
    const at = m.index ?? 0;
    if (at > last) out.push({ text: text.slice(last, at), match: false });
    out.push({ text: m[0], match: true });
    last = at + m[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last), match: false });
  return out;
}

/** True when any query word occurs in the text. */
export const mentions = (text: string, terms: string[]): boolean => splitOnTerms(text, terms).some((s) => s.match);
