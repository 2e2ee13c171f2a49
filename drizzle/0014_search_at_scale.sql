-- Client search (GET /clients?q=) at every length of q, the catalog's "starts with" search, and counters
-- for totals that would otherwise count rows: see docs/scale.md. Index builds here lock writes to their
-- table while they run: on a large production table build them first with `npm run db:indexes` (CREATE
-- INDEX CONCURRENTLY; the functions an index needs are created first); they are IF NOT EXISTS here, so
-- this migration then only records them. The two trigram indexes of clients the search used before
-- (clients_company_search_trgm, clients_company_phone_trgm) stay for the code running while this deploys;
-- a later release drops them.
--
-- client_search_grams: every 1-, 2- and 3-character gram (by character) of the lowercased searchable text
-- and of the phone's digits, each prefixed with `prefix`. Grams spanning the U+001F field separator are
-- left out. The index prefixes them with the company id, so a company's search reads only its own
-- posting lists; the counters below call it with an empty prefix. Duplicates are kept (GIN removes them).
CREATE OR REPLACE FUNCTION client_search_grams(prefix text, search_text text, phone_digits text) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  c text[] := string_to_array(lower(search_text) || E'\x1f' || coalesce(phone_digits, ''), NULL);
  n int := cardinality(c);
  grams text[] := '{}';
  k int := 0;
BEGIN
  FOR i IN 1 .. n LOOP
    CONTINUE WHEN c[i] = E'\x1f';
    k := k + 1; grams[k] := prefix || c[i];
    CONTINUE WHEN i = n OR c[i + 1] = E'\x1f';
    k := k + 1; grams[k] := prefix || c[i] || c[i + 1];
    CONTINUE WHEN i + 1 = n OR c[i + 2] = E'\x1f';
    k := k + 1; grams[k] := prefix || c[i] || c[i + 1] || c[i + 2];
  END LOOP;
  RETURN grams;
END
$$;
--> statement-breakpoint
-- client_search_keys: the index keys a search for `s` looks up in company $1's grams. A string of up to
-- three characters is one key, an exact lookup. A longer one is looked up by its three rarest 3-grams
-- (a 3-gram is at most as common as the rarer of its two 2-grams, which the counters below know): common
-- grams would only slow the index's intersection, and the rows found are checked against `s` anyway.
-- Declared IMMUTABLE although it reads the counters: whatever they hold, its answer is a set of index keys
-- every match of `s` has, so it only decides how fast the lookup is, never what it finds. The planner then
-- evaluates it once, when it plans the query: its estimate of the rows found uses the actual keys, and
-- no row is filtered by calling it again.
CREATE OR REPLACE FUNCTION client_search_keys(company_id integer, s text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN char_length(lower($2)) <= 3 THEN ARRAY[$1::text || ' ' || lower($2)] ELSE ARRAY(
    SELECT $1::text || ' ' || g
    FROM (SELECT DISTINCT substr(lower($2), i, 3) AS g FROM generate_series(1, char_length(lower($2)) - 2) AS i) AS grams
    ORDER BY least(
      (SELECT coalesce(sum(n), 0) FROM list_counts WHERE list_counts.company_id = $1 AND list = 'clients/q=' || substr(g, 1, 2)),
      (SELECT coalesce(sum(n), 0) FROM list_counts WHERE list_counts.company_id = $1 AND list = 'clients/q=' || substr(g, 2, 2))), g
    LIMIT 3) END
$$;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "clients_search_grams" ON "clients" USING gin (client_search_grams("company_id"::text || ' ', ("company_name" || E'\x1f' || "full_name" || E'\x1f' || coalesce("email", '') || E'\x1f' || coalesce("phone", '')), "phone_digits")) WHERE "clients"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "catalog_items_company_title_prefix_idx" ON "catalog_items" USING btree ("company_id",lower("title") text_pattern_ops,"title","id") WHERE "catalog_items"."deleted_at" is null;--> statement-breakpoint
-- 'clients/q=<gram>': per company and 1- or 2-character gram, the live clients whose searchable text (or
-- phone digits) contains it, so the total of a one- or two-character q is a sum of a few rows. Kept like
-- the list counters (drizzle/0004): a statement trigger, in the writing transaction, per-backend shards.
-- An update that leaves the searchable fields alone adds and takes away the same grams: nothing is written.
CREATE OR REPLACE FUNCTION clients_search_counts() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT *, 1 AS delta FROM new_rows'
    WHEN 'DELETE' THEN 'SELECT *, -1 AS delta FROM old_rows'
    ELSE 'SELECT *, 1 AS delta FROM new_rows UNION ALL SELECT *, -1 AS delta FROM old_rows'
  END;
BEGIN
  EXECUTE format($sql$
    INSERT INTO list_counts AS c (company_id, list, shard, n)
    SELECT company_id, 'clients/q=' || g, $1, sum(delta)
    FROM (%s) t,
      LATERAL (SELECT DISTINCT g FROM unnest(client_search_grams('',
        t.company_name || E'\x1f' || t.full_name || E'\x1f' || coalesce(t.email, '') || E'\x1f' || coalesce(t.phone, ''),
        t.phone_digits)) g WHERE char_length(g) <= 2) grams
    WHERE t.deleted_at IS NULL
    GROUP BY 1, 2
    HAVING sum(delta) <> 0
    ORDER BY 1, 2 -- one lock order for statements touching several counters
    ON CONFLICT (company_id, list, shard) DO UPDATE SET n = c.n + excluded.n
  $sql$, changed) USING (pg_backend_pid() % 16)::smallint;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- '<list>/include_deleted=true': every row per company, tombstones included (a soft delete is an update
-- and changes nothing here), for the totals of include_deleted=true.
CREATE OR REPLACE FUNCTION list_counts_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format($sql$
    INSERT INTO list_counts AS c (company_id, list, shard, n)
    SELECT company_id, %L, $1, %s count(*) FROM %I GROUP BY company_id
    ORDER BY company_id
    ON CONFLICT (company_id, list, shard) DO UPDATE SET n = c.n + excluded.n
  $sql$, TG_ARGV[0] || '/include_deleted=true', CASE TG_OP WHEN 'INSERT' THEN '' ELSE '-' END,
    CASE TG_OP WHEN 'INSERT' THEN 'new_rows' ELSE 'old_rows' END) USING (pg_backend_pid() % 16)::smallint;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER clients_search_count_insert AFTER INSERT ON clients REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION clients_search_counts();
--> statement-breakpoint
CREATE TRIGGER clients_search_count_update AFTER UPDATE ON clients REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION clients_search_counts();
--> statement-breakpoint
CREATE TRIGGER clients_search_count_delete AFTER DELETE ON clients REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION clients_search_counts();
--> statement-breakpoint
CREATE TRIGGER clients_rows_count_insert AFTER INSERT ON clients REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_rows('clients');
--> statement-breakpoint
CREATE TRIGGER clients_rows_count_delete AFTER DELETE ON clients REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_rows('clients');
--> statement-breakpoint
CREATE TRIGGER projects_rows_count_insert AFTER INSERT ON projects REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_rows('orders');
--> statement-breakpoint
CREATE TRIGGER projects_rows_count_delete AFTER DELETE ON projects REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_rows('orders');
--> statement-breakpoint
-- The triggers above hold writes to clients and projects until this migration commits: the backfills are exact.
INSERT INTO list_counts (company_id, list, shard, n)
SELECT company_id, 'clients/q=' || g, 0, count(*)
FROM clients t,
  LATERAL (SELECT DISTINCT g FROM unnest(client_search_grams('',
    t.company_name || E'\x1f' || t.full_name || E'\x1f' || coalesce(t.email, '') || E'\x1f' || coalesce(t.phone, ''),
    t.phone_digits)) g WHERE char_length(g) <= 2) grams
WHERE t.deleted_at IS NULL
GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO list_counts (company_id, list, shard, n)
SELECT company_id, 'clients/include_deleted=true', 0, count(*) FROM clients GROUP BY company_id;
--> statement-breakpoint
INSERT INTO list_counts (company_id, list, shard, n)
SELECT company_id, 'orders/include_deleted=true', 0, count(*) FROM projects GROUP BY company_id;
