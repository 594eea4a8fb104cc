/**
 * Builds a small byte-level BPE `tokenizer.json` (the Hugging Face tokenizers
 * format that transformers.js reads). transformers.js accepts BPE, WordPiece
 * or Unigram models (not WordLevel), so the stand-ins use byte-level BPE like
 * GPT-2 and CLIP: all 256 byte symbols are in the vocabulary (any text
 * tokenises), plus one token per listed word, reached through a chain of
 * merges ('Ġ r' → 'Ġr', 'Ġr e' → 'Ġre', 'Ġre d' → 'Ġred').
 */

/** GPT-2's reversible byte → printable unicode character table. */
function bytesToUnicode(): string[] {
  const printable: number[] = [];
  for (let b = 33; b <= 126; b++) printable.push(b);
  for (let b = 161; b <= 172; b++) printable.push(b);
  for (let b = 174; b <= 255; b++) printable.push(b);
  const table: string[] = new Array(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    table[b] = printable.includes(b) ? String.fromCharCode(b) : String.fromCharCode(256 + extra++);
  }
  return table;
}

const BYTE_CHARS = bytesToUnicode();
const utf8 = new TextEncoder();

/** The byte-level form of a piece of text ('Ġred' for ' red'). */
export function byteLevel(text: string): string {
  return Array.from(utf8.encode(text), (b) => BYTE_CHARS[b]).join('');
}

export interface BpeSpec {
  /** Words that become single tokens, in the form they appear after pre-tokenisation (' red' with its space). */
  pieces: readonly string[];
  /** Special tokens, appended after the regular vocabulary in this order. */
  specials: readonly string[];
  /** Prepend a space to the text so the first word matches its ' word' piece (CLIP-like); GPT-2 uses false. */
  addPrefixSpace: boolean;
  lowercase: boolean;
  /** Special tokens to put around every sequence (e.g. CLIP: bos + eos; SigLIP: eos only). */
  wrap?: { before?: string; after?: string };
}

export interface BuiltTokenizer {
  /** The parsed tokenizer.json object. */
  json: Record<string, unknown>;
  vocab: Map<string, number>;
  /** Id of a piece as written in `pieces` (e.g. ' red'). */
  idOf(piece: string): number;
}

export function buildByteLevelBpe(spec: BpeSpec): BuiltTokenizer {
  const vocab = new Map<string, number>();
  const add = (tok: string) => {
    if (!vocab.has(tok)) vocab.set(tok, vocab.size);
  };
  BYTE_CHARS.forEach(add);
  const merges: [string, string][] = [];
  const seen = new Set<string>();
  for (const piece of spec.pieces) {
    const chars = [...byteLevel(piece)];
    let left = chars[0];
    for (const ch of chars.slice(1)) {
      const key = `${left} ${ch}`;
      if (!seen.has(key)) {
        seen.add(key);
        merges.push([left, ch]);
      }
      left += ch;
      add(left);
    }
  }
  spec.specials.forEach(add);

  const special = (content: string) => ({
    id: vocab.get(content)!,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  const wrapTokens = [spec.wrap?.before, spec.wrap?.after].filter((t): t is string => !!t);
  const postProcessor = wrapTokens.length
    ? {
        type: 'TemplateProcessing',
        single: [
          ...(spec.wrap?.before ? [{ SpecialToken: { id: spec.wrap.before, type_id: 0 } }] : []),
          { Sequence: { id: 'A', type_id: 0 } },
          ...(spec.wrap?.after ? [{ SpecialToken: { id: spec.wrap.after, type_id: 0 } }] : []),
        ],
        pair: [{ Sequence: { id: 'A', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }],
        special_tokens: Object.fromEntries(wrapTokens.map((t) => [t, { id: t, ids: [vocab.get(t)!], tokens: [t] }])),
      }
    : null;

  const json = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: spec.specials.map(special),
    normalizer: spec.lowercase ? { type: 'Lowercase' } : null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: spec.addPrefixSpace, trim_offsets: true, use_regex: true },
    post_processor: postProcessor,
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab: Object.fromEntries(vocab),
      merges,
    },
  };
  return {
    json,
    vocab,
    idOf(piece: string) {
      const id = vocab.get(byteLevel(piece)) ?? vocab.get(piece);
      if (id === undefined) throw new Error(`stand-in tokenizer has no token for ${JSON.stringify(piece)}`);
      return id;
    },
  };
}
