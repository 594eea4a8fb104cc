import { TEXT_FIELDS, type TextField, type TextHit } from '../textIndex.js';
import { textRank } from '../textRank.js';
import type { Occurrences } from './postings.js';
import type { Score } from './ranking.js';
import type { DocRow } from './schema.js';
import { Stemmer } from './stemmer.js';
import type { TextSearchState } from './state.js';
import type { Term } from './terms.js';

/**
 * A search hit in the making: a frame (its caption and OCR rows) or an item (its own row and its tags'), with
 * what its rows hold of the query words.
 */
export interface Unit {
  mediaId: string;
  frameId: string | null;
  collectionId: string;
  fields: Set<TextField>;
  /** Per query word: occurrences of the word or its forms; of words it begins (prefix only). */
  tf: number[];
  prefixTf: number[];
}

/** The frames and items of some index rows, by frame id and by media id. */
export interface Units {
  frames: Map<string, Unit>;
  items: Map<string, Unit>;
}

/** Groups rows into frames (captions, OCR) and items (name, description, tags), with the items of the frames. */
export function groupUnits(docs: DocRow[], terms: Term[]): Units {
  const frames = new Map<string, Unit>();
  const items = new Map<string, Unit>();
  const newUnit = (mediaId: string, frameId: string | null): Unit => ({
    mediaId,
    frameId,
    collectionId: '',
    fields: new Set(),
    tf: terms.map(() => 0),
    prefixTf: terms.map(() => 0),
  });
  for (const d of docs) {
    if (d.frame_id !== null) {
      if (!frames.has(d.frame_id)) frames.set(d.frame_id, newUnit(d.media_id, d.frame_id));
    } else if (!items.has(d.media_id)) items.set(d.media_id, newUnit(d.media_id, null));
  }
  // Every indexed frame's item is live and indexed too: its own text may complete the frame's match.
  for (const f of frames.values()) if (!items.has(f.mediaId)) items.set(f.mediaId, newUnit(f.mediaId, null));
  return { frames, items };
}

/** Counts the query words in one field's text of a unit. */
function countWords(stemmer: Stemmer, unit: Unit, field: TextField, words: string[], terms: Term[]): void {
  const counts = stemmer.count(words);
  if (counts.size === 0) return;
  terms.forEach((t, i) => {
    let tf = 0;
    for (const s of t.exact) tf += counts.get(s) ?? 0;
    let prefixTf = 0;
    if (t.prefix !== null) for (const [s, n] of counts) if (s.startsWith(t.prefix) && !t.exact.has(s)) prefixTf += n;
    if (tf > 0 || prefixTf > 0) unit.fields.add(field);
    unit.tf[i] += tf;
    unit.prefixTf[i] += prefixTf;
  });
}

/**
 * Reads the text of these frames and items back from the source tables, cuts it into index terms with the
 * index's own tokenizer (Stemmer) and counts the query words in it: exact, and cheaper than asking FTS5 per
 * word. Fills in the items' collections.
 */
export function analyseText(state: TextSearchState, { frames, items }: Units, terms: Term[]): void {
  const { sql, stemmer } = state;
  const texts: Array<[Unit, TextField, string[]]> = [];
  const add = (unit: Unit, field: TextField, text: string | null) => {
    const words = Stemmer.words(text);
    if (words.length) texts.push([unit, field, words]);
  };
  if (frames.size) {
    const pairs = JSON.stringify([...frames.values()].map((f) => [f.mediaId, f.frameId]));
    for (const r of sql.frameText.all(pairs) as Array<{ id: string; kind: 'caption' | 'ocr'; text: string | null }>) {
      add(frames.get(r.id)!, r.kind, r.text);
    }
  }
  if (items.size) {
    const ids = JSON.stringify([...items.keys()]);
    type ItemText = { id: string; dataset_id: string; name: string; description: string | null };
    for (const r of sql.itemText.all(ids) as ItemText[]) {
      const unit = items.get(r.id)!;
      unit.collectionId = r.dataset_id;
      add(unit, 'name', r.name);
      add(unit, 'description', r.description);
    }
    for (const r of sql.tagText.all(ids, ids, ids) as Array<{ id: string; text: string }>)
      add(items.get(r.id)!, 'tag', r.text);
  }
  stemmer.warm(texts.flatMap(([, , words]) => words));
  for (const [unit, field, words] of texts) countWords(stemmer, unit, field, words, terms);
}

/**
 * What the rows of these frames and items hold of the query words, from the index's occurrences; the items'
 * collections. When the occurrences are those of some rows only (`terms`: the full matches), the other rows'
 * are read too.
 */
export function analyseOccurrences(
  state: TextSearchState,
  { frames, items }: Units,
  occ: Occurrences,
  collectionIds: string[],
  terms: Term[] | null,
): void {
  const { sql } = state;
  // (mediaId, frameId) of each frame, (mediaId, null) of each item: one look-up each in the media index.
  const units = [...frames.values(), ...items.values()].map((u) => [u.mediaId, u.frameId]);
  const found = sql.unitRows.all(JSON.stringify(units)) as Array<{
    id: number;
    media_id: string;
    frame_id: string | null;
  }>;
  const unread = terms ? found.filter((r) => occ.slotOf(r.id) < 0).map((r) => r.id) : [];
  const more = unread.length ? state.postings(terms!, Infinity, null, unread)! : null;
  for (const r of found) {
    const unit = r.frame_id === null ? items.get(r.media_id)! : frames.get(r.frame_id)!;
    // The row's occurrences: in those read first, else in those just read for it (else it holds no query word).
    let o = occ;
    let slot = occ.slotOf(r.id);
    if (slot < 0 && more) slot = (o = more).slotOf(r.id);
    if (slot < 0) continue;
    for (let i = 0, at = slot * o.words; i < o.words; i++, at++) {
      unit.tf[i] += o.tf[at];
      unit.prefixTf[i] += o.prefixTf[at];
    }
    TEXT_FIELDS.forEach((f, i) => {
      if (o.fields[slot] & (1 << i)) unit.fields.add(f);
    });
  }
  if (items.size === 0) return;
  // One collection asked for: every row found is in it (the scope clause, or no other collection exists).
  if (collectionIds.length === 1) for (const u of items.values()) u.collectionId = collectionIds[0];
  else
    for (const r of sql.itemCollections.all(JSON.stringify([...items.keys()])) as Array<{
      id: string;
      dataset_id: string;
    }>)
      items.get(r.id)!.collectionId = r.dataset_id;
}

/**
 * The hits of these frames and items: a frame hit also counts what its item's own text matched ("beach
 * sunset" is a full match for the frame captioned "sunset" of "beach.jpg"); items matched by their own text
 * are hits of their own (frameId null). Unsorted.
 */
export function unitHits({ frames, items }: Units, terms: Term[], score: Score): TextHit[] {
  for (const f of frames.values()) f.collectionId = items.get(f.mediaId)!.collectionId;
  const hits: TextHit[] = [];
  const add = (unit: Unit, item: Unit | undefined) => {
    const { bm25, matched } = item
      ? score(
          unit.tf.map((n, i) => n + item.tf[i]),
          unit.prefixTf.map((n, i) => n + item.prefixTf[i]),
        )
      : score(unit.tf, unit.prefixTf);
    if (matched === 0) return;
    const fields = item ? new Set([...unit.fields, ...item.fields]) : unit.fields;
    hits.push({
      mediaId: unit.mediaId,
      frameId: unit.frameId,
      collectionId: unit.collectionId,
      score: textRank(bm25, matched, terms.length),
      bm25,
      termsMatched: matched,
      termsTotal: terms.length,
      matchedFields: TEXT_FIELDS.filter((f) => fields.has(f)),
    });
  };
  for (const f of frames.values()) if (f.fields.size) add(f, items.get(f.mediaId));
  for (const i of items.values()) if (i.fields.size) add(i, undefined);
  return hits;
}
