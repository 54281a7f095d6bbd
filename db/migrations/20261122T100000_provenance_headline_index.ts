// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * Provenance headline index: a narrow side table of the articles that count as coverage
 * (approved, submitted or scheduled, not sponsored) holding a short "candidate key" of each
 * headline, with its own trigram (GIN) index. The text check finds its candidates there instead of
 * in the GIN index over the wide `articles.headline`.
 *
 * provenance_normalize_headline(text) is a SQL port of normalizeHeadline in
 * src/provenance/rules/headline-similarity.ts (case, accents, amounts, number words, synonyms, stop words,
 * plural "s", distinct words sorted); a test checks that both agree. provenance_headline_key(text)
 * cuts each normalised word to its first 4 characters (a crude stem: "launches", "launched" and
 * "launch" meet; typos after the 4th character are forgiven) and keeps each once. Shorter keys
 * have fewer trigrams, so both the GIN scan and the recheck of every candidate row cost less, and
 * rewordings score higher than on raw headlines (stop words, synonyms and word forms are gone), so
 * a higher pg_trgm threshold keeps the same recall. String-similarity on the full headlines still
 * decides what is a match; the key only chooses candidates.
 *
 * Maintained by a trigger on articles, so every write path (API, editors, wire promotion,
 * sponsored posts, seeds, tests) keeps it exact. Rows older than the 30-day provenance window (plus
 * a day of margin) are deleted by the provenance-headlines-prune job; queries filter on created_at
 * anyway, so pruning only bounds the table's size.
 *
 * Changing normalizeHeadline means a new migration that replaces these functions and recomputes
 * headline_key (UPDATE provenance_headlines ... FROM articles).
 */
const NORMALIZE_HEADLINE_FN = String.raw`
    CREATE FUNCTION provenance_normalize_headline(headline text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
    DECLARE
      s text;
      toks text[];
      out text[] := '{}';
      i int := 1;
      n int;
      w text;
      f numeric;
    BEGIN
      s := lower(regexp_replace(normalize(headline, NFKD), '[\u0300-\u036f]', '', 'g'));
      s := translate(s, E'\u2018\u2019\u201b\u2032\u201c\u201d', E'''''''''""');
      s := regexp_replace(s, '''s\M', '', 'g');
      s := regexp_replace(s, 'exchange[- ]traded funds?', 'etf', 'g');
      s := regexp_replace(s, '\mu\.s\.(a\.)?|\munited states( of america)?\M', ' us ', 'g');
      -- Amounts: "1,000" -> "1000"; a figure glued to a word ("l2", "v3") is split off; "100k" -> "100 k".
      s := regexp_replace(s, '(\d),(?=\d)', '\1', 'g');
      s := regexp_replace(s, '([a-z])(\d[\d]*(\.\d+)?(k|thousand|mn|m|million|bn|b|billion|tn|t|trillion)?)\M', '\1 \2', 'g');
      s := regexp_replace(s, '(\d)(k|thousand|mn|m|million|bn|b|billion|tn|t|trillion)\M', '\1 \2', 'g');
      s := regexp_replace(s, '(?<!\d)\.|\.(?!\d)', ' ', 'g');
      toks := regexp_split_to_array(s, '[^a-z0-9.]+');
      n := coalesce(array_length(toks, 1), 0);
      WHILE i <= n LOOP
        w := toks[i];
        IF w ~ '^\d+(\.\d+)?$' THEN
          f := CASE toks[i + 1] WHEN 'k' THEN 1e3 WHEN 'thousand' THEN 1e3 WHEN 'm' THEN 1e6 WHEN 'mn' THEN 1e6 WHEN 'million' THEN 1e6
                 WHEN 'b' THEN 1e9 WHEN 'bn' THEN 1e9 WHEN 'billion' THEN 1e9 WHEN 't' THEN 1e12 WHEN 'tn' THEN 1e12 WHEN 'trillion' THEN 1e12 END;
          IF f IS NOT NULL THEN i := i + 1; END IF;
          w := round(w::numeric * coalesce(f, 1))::text;
        ELSE
          w := replace(w, '.', '');
          w := CASE w WHEN 'one' THEN '1' WHEN 'two' THEN '2' WHEN 'three' THEN '3' WHEN 'four' THEN '4' WHEN 'five' THEN '5' WHEN 'six' THEN '6'
                 WHEN 'seven' THEN '7' WHEN 'eight' THEN '8' WHEN 'nine' THEN '9' WHEN 'ten' THEN '10' WHEN 'eleven' THEN '11' WHEN 'twelve' THEN '12' ELSE w END;
          w := CASE w
            WHEN 'btc' THEN 'bitcoin' WHEN 'xbt' THEN 'bitcoin' WHEN 'eth' THEN 'ethereum' WHEN 'ether' THEN 'ethereum' WHEN 'sol' THEN 'solana'
            WHEN 'usdt' THEN 'tether' WHEN 'etfs' THEN 'etf' WHEN 'tops' THEN 'above' WHEN 'top' THEN 'above' WHEN 'breaks' THEN 'above'
            WHEN 'surpasses' THEN 'above' WHEN 'crosses' THEN 'above' WHEN 'exceeds' THEN 'above' WHEN 'falls' THEN 'below' WHEN 'drops' THEN 'below'
            WHEN 'dips' THEN 'below' WHEN 'slips' THEN 'below' WHEN 'under' THEN 'below' WHEN 'buys' THEN 'buy' WHEN 'acquires' THEN 'buy'
            WHEN 'acquire' THEN 'buy' WHEN 'purchases' THEN 'buy' WHEN 'launches' THEN 'launch' WHEN 'debuts' THEN 'launch' WHEN 'unveils' THEN 'launch'
            WHEN 'rolls' THEN 'launch' WHEN 'hacked' THEN 'exploit' WHEN 'exploited' THEN 'exploit' WHEN 'exploits' THEN 'exploit' WHEN 'drained' THEN 'exploit'
            WHEN 'drain' THEN 'exploit' WHEN 'hack' THEN 'exploit' WHEN 'sues' THEN 'sue' WHEN 'sued' THEN 'sue' WHEN 'lawsuit' THEN 'sue'
            WHEN 'files' THEN 'file' WHEN 'filing' THEN 'file' WHEN 'filed' THEN 'file' WHEN 'submits' THEN 'file' WHEN 'approves' THEN 'approve'
            WHEN 'approved' THEN 'approve' WHEN 'greenlights' THEN 'approve' WHEN 'begins' THEN 'start' WHEN 'starts' THEN 'start'
            WHEN 'repaying' THEN 'repay' WHEN 'repayments' THEN 'repay' WHEN 'steps' THEN 'step' WHEN 'resigns' THEN 'step'
            WHEN 'usa' THEN 'us' WHEN 'america' THEN 'us' ELSE w END;
          IF w = '' OR w = ANY ('{a,an,the,of,for,to,in,on,at,as,by,with,from,and,or,its,it,is,are,be,been,was,were,after,amid,into,via,this,that,new,more,another,additional,ever,now,over,says,report,reports,reportedly,just,first,time,crypto}'::text[]) THEN
            w := NULL;
          ELSIF length(w) > 3 AND w LIKE '%s' AND w NOT LIKE '%ss' THEN
            w := left(w, -1);
          END IF;
        END IF;
        IF w IS NOT NULL AND NOT w = ANY (out) THEN out := out || w; END IF;
        i := i + 1;
      END LOOP;
      RETURN array_to_string(ARRAY(SELECT x FROM unnest(out) x ORDER BY x COLLATE "C"), ' ');
    END
    $fn$`;

export async function up(db: Kysely<any>): Promise<void> {
  // String.raw: the body is full of regex backslashes (\d, \m, \M) that a template literal would eat.
  await sql.raw(NORMALIZE_HEADLINE_FN).execute(db);

  await sql`
    CREATE FUNCTION provenance_headline_key(headline text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
      SELECT coalesce(string_agg(DISTINCT left(w, 4), ' ' ORDER BY left(w, 4)), '')
      FROM unnest(string_to_array(provenance_normalize_headline(headline), ' ')) w
    $fn$`.execute(db);

  await sql`
    CREATE TABLE provenance_headlines (
      article_id integer PRIMARY KEY REFERENCES articles (id) ON DELETE CASCADE,
      status text NOT NULL,
      created_at timestamptz NOT NULL,
      headline_key text NOT NULL
    )`.execute(db);

  await sql`
    CREATE FUNCTION provenance_headlines_sync() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      IF NEW.status IN ('approved', 'submitted', 'scheduled') AND NEW.sponsored IS NULL THEN
        INSERT INTO provenance_headlines (article_id, status, created_at, headline_key)
        VALUES (NEW.id, NEW.status, NEW.created_at, provenance_headline_key(NEW.headline))
        ON CONFLICT (article_id) DO UPDATE
          SET status = EXCLUDED.status, created_at = EXCLUDED.created_at, headline_key = EXCLUDED.headline_key;
      ELSIF TG_OP = 'UPDATE' THEN
        DELETE FROM provenance_headlines WHERE article_id = NEW.id;
      END IF;
      RETURN NULL;
    END
    $fn$`.execute(db);
  await sql`
    CREATE TRIGGER articles_provenance_headlines_insert AFTER INSERT ON articles
    FOR EACH ROW EXECUTE FUNCTION provenance_headlines_sync()`.execute(db);
  await sql`
    CREATE TRIGGER articles_provenance_headlines_update AFTER UPDATE OF headline, status, sponsored, created_at ON articles
    FOR EACH ROW
    WHEN (OLD.headline IS DISTINCT FROM NEW.headline OR OLD.status IS DISTINCT FROM NEW.status
          OR OLD.sponsored IS DISTINCT FROM NEW.sponsored OR OLD.created_at IS DISTINCT FROM NEW.created_at)
    EXECUTE FUNCTION provenance_headlines_sync()`.execute(db);

  await sql`
    INSERT INTO provenance_headlines (article_id, status, created_at, headline_key)
    SELECT id, status, created_at, provenance_headline_key(headline)
    FROM articles
    WHERE status IN ('approved', 'submitted', 'scheduled') AND sponsored IS NULL AND created_at >= now() - interval '31 days'`.execute(db);
  // fastupdate off: no pending list, which every search would scan in full; inserts here are rare.
  await sql`CREATE INDEX provenance_headlines_key_trgm_idx ON provenance_headlines USING gin (headline_key gin_trgm_ops) WITH (fastupdate = off)`.execute(db);
  await sql`CREATE INDEX provenance_headlines_created_idx ON provenance_headlines (created_at)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS articles_provenance_headlines_update ON articles`.execute(db);
  await sql`DROP TRIGGER IF EXISTS articles_provenance_headlines_insert ON articles`.execute(db);
  await sql`DROP FUNCTION IF EXISTS provenance_headlines_sync()`.execute(db);
  await sql`DROP TABLE IF EXISTS provenance_headlines`.execute(db);
  await sql`DROP FUNCTION IF EXISTS provenance_headline_key(text)`.execute(db);
  await sql`DROP FUNCTION IF EXISTS provenance_normalize_headline(text)`.execute(db);
}
