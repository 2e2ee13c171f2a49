-- Live-row counts per company for the unfiltered list totals (GET /clients, GET /orders), kept by
-- statement-level triggers in the writing transaction: a total read in any snapshot matches the rows
-- that snapshot sees. Each backend adds to its own shard (pid mod 16) so concurrent writers of one
-- company seldom wait on one row. "Live" is deleted_at IS NULL on the counted table.
-- Creating the triggers locks writes to the table until this migration commits, so the backfill
-- below counts exactly the rows the triggers did not see.
CREATE FUNCTION list_counts_add(list text, deltas jsonb) RETURNS void LANGUAGE sql AS $$
  INSERT INTO list_counts AS c (company_id, list, shard, n)
  SELECT (d.key)::int, list, (pg_backend_pid() % 16)::smallint, (d.value)::bigint
  FROM jsonb_each_text(deltas) d
  WHERE (d.value)::bigint <> 0
  ORDER BY (d.key)::int -- one lock order for statements touching several companies
  ON CONFLICT (company_id, list, shard) DO UPDATE SET n = c.n + excluded.n;
$$;
--> statement-breakpoint
CREATE FUNCTION list_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A transition table exists only for the events that define it, so each event reads its own.
  IF TG_OP = 'INSERT' THEN
    PERFORM list_counts_add(TG_ARGV[0], (
      SELECT jsonb_object_agg(company_id, n) FROM (SELECT company_id, count(*) AS n FROM new_rows WHERE deleted_at IS NULL GROUP BY company_id) s));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM list_counts_add(TG_ARGV[0], (
      SELECT jsonb_object_agg(company_id, -n) FROM (SELECT company_id, count(*) AS n FROM old_rows WHERE deleted_at IS NULL GROUP BY company_id) s));
  ELSE
    PERFORM list_counts_add(TG_ARGV[0], (
      SELECT jsonb_object_agg(company_id, n) FROM (
        SELECT company_id, sum(delta) AS n FROM (
          SELECT company_id, 1 AS delta FROM new_rows WHERE deleted_at IS NULL
          UNION ALL
          SELECT company_id, -1 FROM old_rows WHERE deleted_at IS NULL
        ) d GROUP BY company_id
      ) s));
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER clients_count_insert AFTER INSERT ON clients REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_apply('clients');
--> statement-breakpoint
CREATE TRIGGER clients_count_update AFTER UPDATE ON clients REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_apply('clients');
--> statement-breakpoint
CREATE TRIGGER clients_count_delete AFTER DELETE ON clients REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_apply('clients');
--> statement-breakpoint
CREATE TRIGGER projects_count_insert AFTER INSERT ON projects REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_apply('orders');
--> statement-breakpoint
CREATE TRIGGER projects_count_update AFTER UPDATE ON projects REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_apply('orders');
--> statement-breakpoint
CREATE TRIGGER projects_count_delete AFTER DELETE ON projects REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_apply('orders');
--> statement-breakpoint
INSERT INTO list_counts (company_id, list, shard, n)
SELECT company_id, 'clients', 0, count(*) FROM clients WHERE deleted_at IS NULL GROUP BY company_id;
--> statement-breakpoint
INSERT INTO list_counts (company_id, list, shard, n)
SELECT company_id, 'orders', 0, count(*) FROM projects WHERE deleted_at IS NULL GROUP BY company_id;
