CREATE TABLE "approvals" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "approvals_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"company_id" integer NOT NULL,
	"project_id" integer NOT NULL,
	"token_digest" text NOT NULL,
	"artworks" jsonb NOT NULL,
	"include_total" boolean DEFAULT false NOT NULL,
	"total" text,
	"total_inputs" text,
	"message" text,
	"expires_at" timestamp with time zone NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"responder_name" text,
	"responder_email" text,
	"comment" text,
	"responded_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "approvals_status_ck" CHECK ("approvals"."status" in ('pending', 'approved', 'changes_requested', 'revoked'))
);
--> statement-breakpoint
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "approvals_token_digest_uq" ON "approvals" USING btree ("token_digest");--> statement-breakpoint
CREATE INDEX "approvals_company_project_idx" ON "approvals" USING btree ("company_id","project_id","id");