/**
 * How free user text becomes search terms: words cut as the index tokenizer
 * cuts them, stopwords dropped, inflected forms the Porter stemmer does not
 * join added, the last word possibly a prefix. Never throws on any input.
 */

/** One word of the query and the forms of it that also count. */
export interface QueryTerm {
  /** The word as typed, lowercased. */
  text: string;
  /** `text` first, then inflected forms the Porter stemmer does not join to it (bus ↔ buses, knife ↔ knives). */
  forms: string[];
  /** Also match words starting with `text` (the last word of a query still being typed). */
  prefix: boolean;
}

/** Most terms a query keeps (longer queries are cut: each term costs a lookup). */
export const MAX_QUERY_TERMS = 12;
const MAX_TERM_LENGTH = 64;
const MIN_PREFIX_LENGTH = 3;

/**
 * Words so common they say nothing about a picture; dropped from a query
 * unless nothing else is left ("the who" still searches).
 */
const STOPWORDS = new Set(
  (
    'a an and are as at be been but by for from has have he her his i if in into is it its me my no not of on or our ' +
    'she so than that the their them then there these they this those to too us was we were what when where which ' +
    'while who whom why will with you your'
  ).split(' '),
);

/**
 * Word characters exactly as SQLite's unicode61 tokenizer sees them (its
 * default categories L*, N*, Co); everything else separates words. Tokens
 * built from these can be quoted safely: they hold no quote or operator.
 */
export const WORD_PATTERN = /[\p{L}\p{N}\p{Co}]+/gu;

/**
 * English irregular plurals, both ways (Porter stems each form differently).
 */
const IRREGULAR = new Map<string, string>(
  Object.entries({
    child: 'children',
    man: 'men',
    woman: 'women',
    person: 'people',
    mouse: 'mice',
    goose: 'geese',
    foot: 'feet',
    tooth: 'teeth',
    ox: 'oxen',
    die: 'dice',
    cactus: 'cacti',
    fungus: 'fungi',
  }).flatMap(([singular, plural]) => [
    [singular, plural],
    [plural, singular],
  ]),
);

/**
 * Other inflected forms of a word that Porter stemming alone would not match:
 * Porter stems "bus" to "bu" but "buses" to "buse", "knife" to "knif" but
 * "knives" to "knive". Forms that stem the same as the word are harmless (the
 * implementation drops duplicates by stem).
 */
export function inflections(word: string): string[] {
  const out = new Set<string>([word]);
  const irregular = IRREGULAR.get(word);
  if (irregular) out.add(irregular);
  if (word.length >= 4 && /^\p{Ll}+$/u.test(word)) {
    if (word.endsWith('ves')) {
      // plural → singular
      out.add(`${word.slice(0, -3)}f`);
      out.add(`${word.slice(0, -3)}fe`);
    } else if (/(s|x|z|ch|sh)es$/.test(word)) {
      out.add(word.slice(0, -2));
    } else if (/(s|x|z|ch|sh)$/.test(word) && !word.endsWith('ss')) {
      // singular → plural
      out.add(`${word}es`);
    }
    if (word.endsWith('fe')) out.add(`${word.slice(0, -2)}ves`);
    else if (word.endsWith('f') && !word.endsWith('ff')) out.add(`${word.slice(0, -1)}ves`);
  } else if (word.length === 3 && /^\p{Ll}+s$/u.test(word)) {
    out.add(`${word}es`); // bus → buses, gas → gases
  }
  return [...out];
}

/**
 * Turns free user text into search terms: words as the index tokenizer cuts
 * them, lowercased, deduplicated, stopwords and single letters dropped (unless
 * nothing else is left), at most MAX_QUERY_TERMS. The last word may match as a
 * prefix when the text does not end with a separator (the user may still be
 * typing it). Never throws; returns [] when there is no word at all.
 */
export function parseQuery(text: string, opts: { prefix?: boolean } = {}): QueryTerm[] {
  const normalised = text.normalize('NFC');
  const words = (normalised.match(WORD_PATTERN) ?? [])
    .map((w) => w.toLowerCase())
    .filter((w) => w.length <= MAX_TERM_LENGTH);
  const unique = [...new Set(words)];
  const strong = unique.filter((w) => !STOPWORDS.has(w) && !/^\p{L}$/u.test(w));
  const kept = (strong.length ? strong : unique).slice(0, MAX_QUERY_TERMS);
  const endsInWord = /[\p{L}\p{N}\p{Co}]$/u.test(normalised);
  const last = words[words.length - 1];
  return kept.map((w) => ({
    text: w,
    forms: inflections(w),
    prefix: (opts.prefix ?? true) && endsInWord && w === last && [...w].length >= MIN_PREFIX_LENGTH,
  }));
}
