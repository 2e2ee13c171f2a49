-- Index builds here lock writes to their table while they run. On a large production table, build the
-- CREATE INDEX statements first with `npm run db:indexes` (CREATE INDEX CONCURRENTLY, outside a transaction):
-- they are IF NOT EXISTS here, so this migration then only records them. See docs/scale.md.
CREATE TABLE "list_counts" (
	"company_id" integer NOT NULL,
	"list" text NOT NULL,
	"shard" smallint NOT NULL,
	"n" bigint NOT NULL,
	CONSTRAINT "list_counts_company_id_list_shard_pk" PRIMARY KEY("company_id","list","shard")
);
--> statement-breakpoint
DROP INDEX IF EXISTS "clients_company_name_trgm";--> statement-breakpoint
DROP INDEX IF EXISTS "clients_first_name_trgm";--> statement-breakpoint
DROP INDEX IF EXISTS "clients_last_name_trgm";--> statement-breakpoint
DROP INDEX IF EXISTS "clients_full_name_trgm";--> statement-breakpoint
DROP INDEX IF EXISTS "clients_email_trgm";--> statement-breakpoint
DROP INDEX IF EXISTS "clients_phone_digits_trgm";--> statement-breakpoint
DROP INDEX IF EXISTS "invoice_items_title_trgm";--> statement-breakpoint
DROP INDEX IF EXISTS "invoice_items_description_trgm";--> statement-breakpoint
DROP INDEX IF EXISTS "projects_company_client_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "projects_company_status_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "catalog_items_title_trgm";--> statement-breakpoint
ALTER TABLE "list_counts" ADD CONSTRAINT "list_counts_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "clients_company_search_trgm" ON "clients" USING gin ("company_id",("company_name" || E'\x1f' || "full_name" || E'\x1f' || coalesce("email", '')) gin_trgm_ops) WHERE "clients"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "clients_company_phone_trgm" ON "clients" USING gin ("company_id","phone_digits" gin_trgm_ops) WHERE "clients"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "invoice_items_company_created_idx" ON "invoice_items" USING btree ("company_id","created_at","id") WHERE "invoice_items"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "invoice_items_company_title_trgm" ON "invoice_items" USING gin ("company_id","title" gin_trgm_ops) WHERE "invoice_items"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "invoice_items_company_description_trgm" ON "invoice_items" USING gin ("company_id","description" gin_trgm_ops) WHERE "invoice_items"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "projects_company_client_created_idx" ON "projects" USING btree ("company_id","client_id","created_at","id") WHERE "projects"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "projects_company_status_created_idx" ON "projects" USING btree ("company_id","status_id","created_at","id") WHERE "projects"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "catalog_items_company_title_trgm" ON "catalog_items" USING gin ("company_id","title" gin_trgm_ops) WHERE "catalog_items"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "catalog_items_company_title_idx" ON "catalog_items" USING btree ("company_id","title","id") WHERE "catalog_items"."deleted_at" is null;