-- The request log (docs/request-logs.md), partitioned by day of created_at, so retention drops whole days
-- (DROP TABLE of a partition) instead of deleting millions of rows. drizzle-kit cannot declare a
-- partitioned table: the migration before this one creates request_logs plain (empty, new); this one
-- replaces it with a partitioned table of the same columns and defaults, then its keys and indexes under
-- the names the drizzle schema gives them (created on the parent: each partition gets its own).
ALTER SEQUENCE "request_logs_id_seq" OWNED BY NONE;
--> statement-breakpoint
CREATE TABLE "request_logs_partitioned" (LIKE "request_logs" INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE ("created_at");
--> statement-breakpoint
DROP TABLE "request_logs";
--> statement-breakpoint
ALTER TABLE "request_logs_partitioned" RENAME TO "request_logs";
--> statement-breakpoint
ALTER SEQUENCE "request_logs_id_seq" OWNED BY "request_logs"."id";
--> statement-breakpoint
ALTER TABLE "request_logs" ADD CONSTRAINT "request_logs_created_at_id_pk" PRIMARY KEY ("created_at", "id");
--> statement-breakpoint
CREATE INDEX "request_logs_company_idx" ON "request_logs" USING btree ("company_id", "created_at" DESC NULLS LAST, "id" DESC NULLS LAST);
--> statement-breakpoint
CREATE INDEX "request_logs_token_idx" ON "request_logs" USING btree ("company_id", "token_id", "created_at" DESC NULLS LAST, "id" DESC NULLS LAST);
--> statement-breakpoint
CREATE INDEX "request_logs_status_idx" ON "request_logs" USING btree ("company_id", "status_class", "created_at" DESC NULLS LAST, "id" DESC NULLS LAST);
--> statement-breakpoint
CREATE INDEX "request_logs_operation_idx" ON "request_logs" USING btree ("company_id", "operation", "created_at" DESC NULLS LAST, "id" DESC NULLS LAST);
--> statement-breakpoint
CREATE UNIQUE INDEX "request_logs_request_idx" ON "request_logs" USING btree ("company_id", "request_id", "seq", "created_at");
--> statement-breakpoint
-- One partition per UTC day, request_logs_pYYYYMMDD. Creates the days from days_back days ago to
-- days_ahead days ahead (those missing), drops the days that ended more than keep_days days ago, and
-- answers how many it dropped. Run by the cron pass (src/platform/request-log-store.ts), and by the
-- consumer when an entry's day is missing.
CREATE OR REPLACE FUNCTION request_log_partitions(days_ahead int, keep_days int, days_back int DEFAULT 1) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  today date := (now() AT TIME ZONE 'UTC')::date;
  d date;
  part text;
  dropped int := 0;
BEGIN
  FOR d IN SELECT g::date FROM generate_series(today - greatest(days_back, 0), today + days_ahead, interval '1 day') g LOOP
    CONTINUE WHEN d < today - keep_days;
    EXECUTE format('CREATE TABLE IF NOT EXISTS %I PARTITION OF request_logs FOR VALUES FROM (%L) TO (%L)',
      'request_logs_p' || to_char(d, 'YYYYMMDD'), d::timestamp AT TIME ZONE 'UTC', (d + 1)::timestamp AT TIME ZONE 'UTC');
  END LOOP;
  FOR part IN
    SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'request_logs'::regclass AND c.relname ~ '^request_logs_p[0-9]{8}$'
      AND to_date(substr(c.relname, 15), 'YYYYMMDD') < today - keep_days
  LOOP
    EXECUTE format('DROP TABLE %I', part);
    dropped := dropped + 1;
  END LOOP;
  RETURN dropped;
END $$;
--> statement-breakpoint
SELECT request_log_partitions(7, 30);
