import Database from 'better-sqlite3';
import { WORD_PATTERN } from '../query.js';

/** ASCII digits are their own index term (neither folded nor stemmed): no need to ask the tokenizer. */
const DIGITS = /^[0-9]+$/;

/**
 * Cuts text into index terms with FTS5's own tokenizer (porter unicode61
 * remove_diacritics 2, in a private in-memory database), word by word with a
 * cache, so this side knows exactly which terms the index holds for a word:
 * two forms of a query word with the same stem are searched once, and the
 * words of a document's text are found without asking FTS5 per word.
 */
export class Stemmer {
  private db: Database.Database | null = null;
  private cache = new Map<string, string[]>();
  private insert!: Database.Statement;
  private read!: Database.Statement;
  private clear!: Database.Statement;

  constructor(private readonly maxCached = 200_000) {}

  private open(): Database.Database {
    const db = new Database(':memory:');
    db.exec(`CREATE VIRTUAL TABLE words USING fts5(w, tokenize = 'porter unicode61 remove_diacritics 2');
             CREATE VIRTUAL TABLE terms USING fts5vocab(words, 'instance');`);
    this.insert = db.prepare(`INSERT INTO words (rowid, w) VALUES (?, ?)`);
    this.read = db.prepare(`SELECT doc, term FROM terms ORDER BY doc, offset`);
    this.clear = db.prepare(`DELETE FROM words`);
    return db;
  }

  /** The index terms of each word (usually exactly one; none for a word the tokenizer drops). */
  terms(words: string[]): string[][] {
    this.warm(words);
    return words.map((w) => this.termsOf(w));
  }

  /** Looks up, in one go, the words not cached yet. */
  warm(words: Iterable<string>): void {
    const missing: string[] = [];
    const seen = new Set<string>();
    for (const w of words) {
      if (this.cache.has(w) || DIGITS.test(w) || seen.has(w)) continue;
      seen.add(w);
      missing.push(w);
    }
    if (missing.length === 0) return;
    const db = (this.db ??= this.open());
    const rows = db.transaction(() => {
      missing.forEach((w, i) => this.insert.run(i + 1, w));
      const found = this.read.all() as Array<{ doc: number; term: string }>;
      this.clear.run();
      return found;
    })();
    const byWord = missing.map(() => [] as string[]);
    for (const r of rows) byWord[r.doc - 1].push(r.term);
    if (this.cache.size + missing.length > this.maxCached) this.cache.clear();
    missing.forEach((w, i) => this.cache.set(w, byWord[i]));
  }

  private termsOf(word: string): string[] {
    const cached = this.cache.get(word);
    if (cached) return cached;
    if (DIGITS.test(word)) return [word];
    this.warm([word]);
    return this.cache.get(word)!;
  }

  /** The words of a text (as the tokenizer cuts them, before stemming). */
  static words(text: string | null): string[] {
    return (text && text.match(WORD_PATTERN)) || [];
  }

  /** Each index term of these words with its number of occurrences. */
  count(words: string[]): Map<string, number> {
    const counts = new Map<string, number>();
    for (const w of words) for (const t of this.termsOf(w)) counts.set(t, (counts.get(t) ?? 0) + 1);
    return counts;
  }
}
