-- Incremental sync (updated_since on GET /clients and GET /orders). Index builds here lock writes to their
-- table while they run: on a large production table build them first with `npm run db:indexes`
-- (CREATE INDEX CONCURRENTLY); they are IF NOT EXISTS here, so this migration then only records them.
CREATE INDEX IF NOT EXISTS "clients_company_updated_idx" ON "clients" USING btree ("company_id","updated_at","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "projects_company_updated_idx" ON "projects" USING btree ("company_id","updated_at","id");
