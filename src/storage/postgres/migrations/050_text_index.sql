-- The text index on PostgreSQL (tsvector + GIN), beside SQLite's FTS5 one
-- (src/storage/sqlite/migrations/005_text_index.sql): one row per live
-- caption, OCR text object, item (name and description) and tag value, with
-- the same words as SQLite's `porter unicode61 remove_diacritics 2` tokenizer
-- makes of them, so one query finds and scores the same rows on both engines
-- (src/index/text/postgres/). Every PostgreSQL has full-text search: this is
-- in the library set, not the vector one.
--
-- Words, as SQLite cuts them: diacritics removed (NFD, combining marks
-- dropped; no `unaccent` extension needed), lowercased, split at anything
-- that is not a letter or digit, each word stemmed by Snowball's original
-- Porter stemmer (`porter`, as FTS5's porter tokenizer; not `english`, which
-- is Porter2: it stems "generous"/"generate", "skies", "dying" differently)
-- with no stopwords (SQLite indexes every word), words shorter than 3 or
-- longer than 64 bytes left as they are (as FTS5 does). The tsvector is built
-- from those stems directly, not by to_tsvector: PostgreSQL's parser would cut
-- "12e3abc" into a number and a word.

CREATE TEXT SEARCH DICTIONARY text_index_porter (TEMPLATE = snowball, Language = porter);

-- Diacritics removed, lowercased. Letters, digits and case are those of Unicode whatever the database's
-- locale (a server made with --locale=C knows only ASCII ones): in the first of these collations present,
-- PostgreSQL 17+'s builtin pg_c_utf8, libc's C.utf8, ICU's root.
DO $do$
DECLARE
  coll text;
BEGIN
  SELECT collname INTO coll FROM pg_collation
  WHERE collname IN ('pg_c_utf8', 'C.utf8', 'und-x-icu')
    AND collencoding IN (-1, (SELECT encoding FROM pg_database WHERE datname = current_database()))
  ORDER BY array_position(ARRAY['pg_c_utf8', 'C.utf8', 'und-x-icu'], collname::text) LIMIT 1;
  EXECUTE format($f$
    CREATE FUNCTION text_index_fold(t text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT lower(normalize(regexp_replace(normalize(t, NFD), '[\u0300-\u036f]+', '', 'g'), NFC) %1$s)
    $$;
    -- The words of a text: runs of letters and digits.
    CREATE FUNCTION text_index_split(t text) RETURNS TABLE (w text, n bigint)
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT w, n FROM regexp_split_to_table(text_index_fold(t) %1$s, '[^[:alnum:]]+') WITH ORDINALITY s(w, n)
      WHERE w <> ''
    $$;
  $f$, CASE WHEN coll IS NULL THEN '' ELSE format('COLLATE %I', coll) END);
END
$do$;

-- Porter's measure m of a stem: its number of vowel-consonant sequences (y a vowel after a consonant).
CREATE FUNCTION text_index_measure(s text) RETURNS int
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  m int := 0;
  prev boolean := false;
  v boolean;
  c text;
BEGIN
  FOR i IN 1..length(s) LOOP
    c := substr(s, i, 1);
    v := c IN ('a', 'e', 'i', 'o', 'u') OR (c = 'y' AND i > 1 AND NOT prev);
    IF prev AND NOT v THEN
      m := m + 1;
    END IF;
    prev := v;
  END LOOP;
  RETURN m;
END
$$;

-- One word's index term. Snowball's porter is the algorithm as published; FTS5's follows Porter's own C
-- version, which departs from it in step 2 ("bli" -> "ble", "logi" -> "log"), done here on Snowball's
-- result ("possibly", "technology"). Measured on 16,584 words of English text: these were the only
-- differences. (FTS5 stems bytes, Snowball characters: a letter left non-ASCII after folding, as in
-- "straße", can still stem differently.)
CREATE FUNCTION text_index_stem(word text) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  s text;
  m int;
BEGIN
  IF octet_length(word) < 3 OR octet_length(word) > 64 OR word ~ '^[0-9]+$' THEN
    RETURN word;
  END IF;
  s := coalesce((ts_lexize('text_index_porter', word))[1], word);
  IF right(s, 4) = 'logi' AND text_index_measure(left(s, -4)) > 0 THEN
    RETURN left(s, -1);
  END IF;
  IF right(s, 3) = 'bli' AND text_index_measure(left(s, -3)) > 0 THEN
    s := left(s, -1) || 'e';
    -- Then step 4 (-able, -ible) or step 5a (a final e) as the C version goes on.
    IF right(s, 4) IN ('able', 'ible') AND text_index_measure(left(s, -4)) > 1 THEN
      RETURN left(s, -4);
    END IF;
    m := text_index_measure(left(s, -1));
    IF m > 1 OR (m = 1 AND NOT left(s, -1) ~ '[^aeiou][aeiouy][^aeiouwxy]$') THEN
      RETURN left(s, -1);
    END IF;
  END IF;
  RETURN s;
END
$$;

-- The index terms of a text, in order (duplicates kept). Words over 1000
-- bytes are dropped (a tsvector lexeme holds at most 2047; no query word is
-- longer than 64 characters).
CREATE FUNCTION text_index_terms(t text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(text_index_stem(w) ORDER BY n), '{}')
  FROM text_index_split(coalesce(t, ''))
  WHERE octet_length(w) <= 1000
$$;

-- A text's tsvector, every position weighted `weight` (an item's name A, its
-- description B: the field of a match). One position per occurrence: the
-- number of positions is the word's frequency (positions stop at 16383, a
-- lexeme keeps at most 256: texts here are short).
CREATE FUNCTION text_index_vector(t text, weight "char") RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(string_agg(format('''%s'':%s', replace(replace(lexeme, '\', '\\'), '''', ''''''), positions), ' '), '')::tsvector
  FROM (
    SELECT lexeme, string_agg(least(n, 16383)::text || weight::text, ',' ORDER BY n) AS positions
    FROM unnest(text_index_terms(t)) WITH ORDINALITY s(lexeme, n)
    GROUP BY lexeme
  ) x
$$;

-- ------------------------------------------------------------------ rows

-- One row per indexed source row.
--   kind     'caption' | 'ocr' | 'item' (name, description) | 'tag'
--   source   captions.id | detected_objects.id | media.id | media_id, grp and value joined by chr(31)
--   collection_id  the item's collection (media.dataset_id): searches are limited to some collections
CREATE TABLE text_index_docs (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind          text NOT NULL,
  source        text NOT NULL,
  media_id      text NOT NULL,
  frame_id      text,
  collection_id text NOT NULL,
  terms         tsvector NOT NULL
);
CREATE UNIQUE INDEX text_index_docs_source ON text_index_docs (source, kind);
CREATE INDEX text_index_docs_media ON text_index_docs (media_id, frame_id);
CREATE INDEX text_index_docs_terms ON text_index_docs USING gin (terms);

-- ------------------------------------------------------------------ word counts (idf)

-- Rows holding each term (and, under the empty word, rows in all), for idf.
-- Writers never update a shared counter (every write would queue behind the
-- one before it on the counts of common words and of all rows): they append
-- deltas, and now and then one writer folds them into text_index_words under
-- a try-lock (the others carry on). A count is its row plus its deltas.
CREATE TABLE text_index_words (
  word text COLLATE "C" PRIMARY KEY,
  rows bigint NOT NULL
);
CREATE TABLE text_index_word_deltas (
  word  text COLLATE "C" NOT NULL,
  delta integer NOT NULL
);
CREATE INDEX text_index_word_deltas_word ON text_index_word_deltas (word);
CREATE SEQUENCE text_index_compactions;

CREATE FUNCTION text_index_compact() RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  -- 'text' as a lock key; another writer folding already: nothing to do.
  IF NOT pg_try_advisory_xact_lock(x'74657874'::int) THEN
    RETURN;
  END IF;
  WITH gone AS (DELETE FROM text_index_word_deltas RETURNING word, delta)
  INSERT INTO text_index_words AS w (word, rows)
    SELECT word, sum(delta) FROM gone GROUP BY word ORDER BY word
  ON CONFLICT (word) DO UPDATE SET rows = w.rows + excluded.rows;
END
$$;

CREATE FUNCTION text_index_docs_counted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO text_index_word_deltas (word, delta)
      SELECT '', count(*) FROM added HAVING count(*) > 0
      UNION ALL
      SELECT l, count(*) FROM added, unnest(tsvector_to_array(added.terms)) l GROUP BY l;
  ELSE
    INSERT INTO text_index_word_deltas (word, delta)
      SELECT '', -count(*) FROM removed HAVING count(*) > 0
      UNION ALL
      SELECT l, -count(*) FROM removed, unnest(tsvector_to_array(removed.terms)) l GROUP BY l;
  END IF;
  IF nextval('text_index_compactions') % 32 = 0 THEN
    PERFORM text_index_compact();
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER text_index_docs_added AFTER INSERT ON text_index_docs
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION text_index_docs_counted();
CREATE TRIGGER text_index_docs_removed AFTER DELETE ON text_index_docs
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION text_index_docs_counted();
