CREATE TABLE "decorations" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "decorations_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"company_id" integer NOT NULL,
	"project_id" integer NOT NULL,
	"invoice_item_id" integer NOT NULL,
	"location" text NOT NULL,
	"location_detail" text,
	"method" text NOT NULL,
	"colors" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"color_count" integer,
	"stitch_count" integer,
	"width" numeric(8, 2),
	"height" numeric(8, 2),
	"unit" text,
	"artwork_id" integer,
	"notes" text,
	"position" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone,
	CONSTRAINT "decorations_location_ck" CHECK ("decorations"."location" in ('front', 'back', 'left_chest', 'right_chest', 'left_sleeve', 'right_sleeve', 'neck', 'hood', 'leg', 'other')),
	CONSTRAINT "decorations_method_ck" CHECK ("decorations"."method" in ('screen_print', 'embroidery', 'dtg', 'dtf', 'heat_transfer', 'sublimation', 'vinyl', 'laser', 'other')),
	CONSTRAINT "decorations_unit_ck" CHECK ("decorations"."unit" in ('in', 'cm', 'mm'))
);
--> statement-breakpoint
ALTER TABLE "decorations" ADD CONSTRAINT "decorations_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "decorations" ADD CONSTRAINT "decorations_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "decorations" ADD CONSTRAINT "decorations_invoice_item_id_invoice_items_id_fk" FOREIGN KEY ("invoice_item_id") REFERENCES "public"."invoice_items"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "decorations" ADD CONSTRAINT "decorations_artwork_id_artworks_id_fk" FOREIGN KEY ("artwork_id") REFERENCES "public"."artworks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "decorations_item_idx" ON "decorations" USING btree ("invoice_item_id","position","id") WHERE "decorations"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "decorations_project_idx" ON "decorations" USING btree ("project_id") WHERE "decorations"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "decorations_company_method_idx" ON "decorations" USING btree ("company_id","method","project_id") WHERE "decorations"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "decorations_company_location_idx" ON "decorations" USING btree ("company_id","location","project_id") WHERE "decorations"."deleted_at" is null;