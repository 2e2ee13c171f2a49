-- Events say who caused them (actor) and in which request. The new indexes are on large tables: on a
-- production table build them first with `npm run db:indexes` (CREATE INDEX CONCURRENTLY); they are IF NOT EXISTS here.
ALTER TABLE "webhook_events" ADD COLUMN "actor_type" text;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "actor_id" text;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "request_id" text;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "audit_entries_created_idx" ON "audit_entries" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "webhook_events_company_actor_idx" ON "webhook_events" USING btree ("company_id","actor_type","actor_id","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "webhook_events_company_request_idx" ON "webhook_events" USING btree ("company_id","request_id","id");