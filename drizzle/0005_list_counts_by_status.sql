-- Counters per value of a filter column too: list_counts_apply(list, column, ...) keeps, beside `list`,
-- one count per value of each named column under the key '<list>/<column>=<value>' (null values are not
-- counted), so a list filtered by that column alone still gets its exact total from a few rows.
-- GET /orders?status=<id> reads 'orders/status_id=<id>'.
CREATE OR REPLACE FUNCTION list_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT *, 1 AS delta FROM new_rows'
    WHEN 'DELETE' THEN 'SELECT *, -1 AS delta FROM old_rows'
    ELSE 'SELECT *, 1 AS delta FROM new_rows UNION ALL SELECT *, -1 AS delta FROM old_rows'
  END;
  list_key text;
  i int;
BEGIN
  -- i = 0: the list itself; i >= 1: the values of the i-th named column.
  FOR i IN 0 .. TG_NARGS - 1 LOOP
    list_key := CASE WHEN i = 0 THEN quote_literal(TG_ARGV[0])
      ELSE format('%L || %I::text', TG_ARGV[0] || '/' || TG_ARGV[i] || '=', TG_ARGV[i]) END;
    EXECUTE format($sql$
      INSERT INTO list_counts AS c (company_id, list, shard, n)
      SELECT company_id, k, $1, sum(delta)
      FROM (SELECT company_id, %s AS k, delta FROM (%s) t WHERE deleted_at IS NULL) d
      WHERE k IS NOT NULL
      GROUP BY company_id, k
      HAVING sum(delta) <> 0
      ORDER BY company_id, k -- one lock order for statements touching several counters
      ON CONFLICT (company_id, list, shard) DO UPDATE SET n = c.n + excluded.n
    $sql$, list_key, changed) USING (pg_backend_pid() % 16)::smallint;
  END LOOP;
  RETURN NULL;
END
$$;
--> statement-breakpoint
DROP FUNCTION list_counts_add(text, jsonb);
--> statement-breakpoint
DROP TRIGGER projects_count_insert ON projects;
--> statement-breakpoint
DROP TRIGGER projects_count_update ON projects;
--> statement-breakpoint
DROP TRIGGER projects_count_delete ON projects;
--> statement-breakpoint
CREATE TRIGGER projects_count_insert AFTER INSERT ON projects REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_apply('orders', 'status_id');
--> statement-breakpoint
CREATE TRIGGER projects_count_update AFTER UPDATE ON projects REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_apply('orders', 'status_id');
--> statement-breakpoint
CREATE TRIGGER projects_count_delete AFTER DELETE ON projects REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_apply('orders', 'status_id');
--> statement-breakpoint
-- The triggers above hold writes to projects until this migration commits: the backfill is exact.
INSERT INTO list_counts (company_id, list, shard, n)
SELECT company_id, 'orders/status_id=' || status_id, 0, count(*) FROM projects
WHERE deleted_at IS NULL AND status_id IS NOT NULL GROUP BY company_id, status_id;
