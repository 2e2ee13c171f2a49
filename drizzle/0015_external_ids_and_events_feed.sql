-- External ids and metadata on clients and orders (projects), and the events feed's indexes. The columns are added
-- without a table rewrite (a constant default). The index builds lock writes to their table while they run: on a large
-- production table build them first with `npm run db:indexes` (CREATE INDEX CONCURRENTLY); they are IF NOT EXISTS here.
ALTER TABLE "clients" ADD COLUMN "external_id" text;--> statement-breakpoint
ALTER TABLE "clients" ADD COLUMN "metadata" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "external_id" text;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "metadata" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "clients_company_external_id_uq" ON "clients" USING btree ("company_id","external_id") WHERE "clients"."deleted_at" is null and "clients"."external_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "projects_company_external_id_uq" ON "projects" USING btree ("company_id","external_id") WHERE "projects"."deleted_at" is null and "projects"."external_id" is not null;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "webhook_events_company_type_idx" ON "webhook_events" USING btree ("company_id","type","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "webhook_events_company_resource_idx" ON "webhook_events" USING btree ("company_id","resource_id","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "webhook_events_unfilled_idx" ON "webhook_events" USING btree ("id") WHERE "webhook_events"."payload" is null;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "webhook_events_created_idx" ON "webhook_events" USING btree ("created_at");